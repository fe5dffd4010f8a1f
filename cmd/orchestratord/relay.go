package main

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
	"github.com/orchestratord/orchestratord/internal/wsapi"
)

// relayWiring is the relay of a daemon in a fleet (--fleet): other
// daemons' sessions shown here, commands for them sent there, and theirs
// for this daemon's sessions executed by the API (set once it exists).
type relayWiring struct {
	relay *fleet.Relay
	db    *postgres.DB
	svc   *orchestrator.Service
	self  string        // this daemon's id
	api   *wsapi.Server // set before Start
}

// newRelay builds the relay when the daemon is in a fleet; nil otherwise
// (a daemon alone serves only its own sessions, as before).
func newRelay(db daemonStore, inFleet bool, self string, svc *orchestrator.Service, log *zap.Logger) (*relayWiring, error) {
	pg, ok := db.(*postgres.DB)
	if !inFleet || !ok {
		return nil, nil
	}
	w := &relayWiring{db: pg, svc: svc, self: self}
	r, err := fleet.NewRelay(fleet.RelayConfig{Pool: pg.Pool(), Self: self, Events: pg, Logger: log,
		Execute: func(ctx context.Context, cmd fleet.Command) fleet.Answer {
			if cmd.Action == marksAction {
				return w.answerMarks(cmd)
			}
			return w.api.Execute(ctx, cmd)
		},
		TaskChanged: svc.PublishStoredTask})
	if err != nil {
		return nil, err
	}
	w.relay = r
	return w, nil
}

// remote is the API's view of the relay; nil without one.
func (w *relayWiring) remote() wsapi.Remote {
	if w == nil {
		return nil
	}
	return w
}

func (w *relayWiring) start(ctx context.Context, api *wsapi.Server) error {
	if w == nil {
		return nil
	}
	w.api = api
	if err := w.relay.Start(ctx); err != nil {
		return err
	}
	w.svc.SetRemoteSessions(w) // a released session's subscribers go on through the relay
	return nil
}

func (w *relayWiring) close() {
	if w != nil {
		_ = w.relay.Close()
	}
}

func (w *relayWiring) Route(ctx context.Context, sessionID string) (fleet.Route, error) {
	return w.relay.Route(ctx, sessionID)
}

func (w *relayWiring) RouteTask(ctx context.Context, taskID string) (fleet.Route, error) {
	return w.relay.RouteTask(ctx, taskID)
}

func (w *relayWiring) Send(ctx context.Context, owner string, cmd fleet.Command) (fleet.Answer, error) {
	return w.relay.Send(ctx, owner, cmd)
}

func (w *relayWiring) SubscribeRemote(ctx context.Context, req orchestrator.SubscribeRequest, buffer int) (orchestrator.SubscribeResult, wsapi.Feed, error) {
	res, sub, err := w.svc.SubscribeRemote(ctx, req, buffer, w)
	if err != nil || sub == nil { // never a nil *Subscription in a non-nil Feed
		if sub != nil {
			sub.Close()
		}
		if err == nil {
			err = errors.New("orchestrator returned no subscription")
		}
		return res, nil, err
	}
	return res, sub, nil
}

// SessionPageAsOf and Watch make it the orchestrator's RemoteSessions.
func (w *relayWiring) SessionPageAsOf(ctx context.Context, sessionID string, p store.MessagePage, eventsAfter int64, eventsMaxBytes int) (store.PageAsOf, error) {
	return w.db.SessionPageAsOf(ctx, sessionID, p, eventsAfter, eventsMaxBytes)
}

func (w *relayWiring) Watch(sessionID string, after int64, deliver func(store.Event) bool) func() {
	return w.relay.Watch(sessionID, after, deliver)
}

// marksAction is the relay's request for the owner's marks of sessions
// (orchestrator.Marks): between daemons only, never from a client.
const marksAction = "fleet.marks"

type marksRequest struct {
	SessionIDs []string `json:"session_ids"`
}

// Marks asks each other daemon that owns some of sessionIDs for their
// marks, all at once; one that does not answer within ctx is left out.
func (w *relayWiring) Marks(ctx context.Context, sessionIDs []string) map[string]orchestrator.Marks {
	rows, err := w.db.Pool().Query(ctx, `SELECT key, holder FROM fleet_leases
		WHERE kind = 'session' AND key = ANY($1) AND holder <> '' AND holder <> $2 AND expires_at > now()`, sessionIDs, w.self)
	if err != nil {
		return nil
	}
	by := map[string][]string{}
	for rows.Next() {
		var key, holder string
		if rows.Scan(&key, &holder) == nil {
			by[holder] = append(by[holder], key)
		}
	}
	rows.Close()
	out := map[string]orchestrator.Marks{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for owner, ids := range by {
		wg.Go(func() {
			payload, _ := json.Marshal(marksRequest{SessionIDs: ids})
			a, err := w.relay.Send(ctx, owner, fleet.Command{Action: marksAction, Payload: payload})
			var got map[string]orchestrator.Marks
			if err != nil || len(a.Error) > 0 || json.Unmarshal(a.Result, &got) != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for id, m := range got {
				out[id] = m
			}
		})
	}
	wg.Wait()
	return out
}

// answerMarks is the owner's side of Marks.
func (w *relayWiring) answerMarks(cmd fleet.Command) fleet.Answer {
	var req marksRequest
	if err := json.Unmarshal(cmd.Payload, &req); err != nil {
		b, _ := json.Marshal(map[string]string{"code": "BAD_REQUEST", "message": "fleet.marks: " + err.Error()})
		return fleet.Answer{Error: b}
	}
	b, err := json.Marshal(w.svc.Marks(req.SessionIDs))
	if err != nil {
		b, _ = json.Marshal(map[string]string{"code": "INTERNAL_ERROR", "message": "fleet.marks: cannot encode"})
		return fleet.Answer{Error: b}
	}
	return fleet.Answer{Result: b}
}
