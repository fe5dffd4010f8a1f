package main

import (
	"context"
	"errors"

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
	api   *wsapi.Server // set before Start
}

// newRelay builds the relay when the daemon is in a fleet; nil otherwise
// (a daemon alone serves only its own sessions, as before).
func newRelay(db daemonStore, inFleet bool, self string, svc *orchestrator.Service, log *zap.Logger) (*relayWiring, error) {
	pg, ok := db.(*postgres.DB)
	if !inFleet || !ok {
		return nil, nil
	}
	w := &relayWiring{db: pg, svc: svc}
	r, err := fleet.NewRelay(fleet.RelayConfig{Pool: pg.Pool(), Self: self, Events: pg, Logger: log,
		Execute:     func(ctx context.Context, cmd fleet.Command) fleet.Answer { return w.api.Execute(ctx, cmd) },
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
func (w *relayWiring) SessionPageAsOf(ctx context.Context, sessionID string, p store.MessagePage, eventsAfter int64) (store.PageAsOf, error) {
	return w.db.SessionPageAsOf(ctx, sessionID, p, eventsAfter)
}

func (w *relayWiring) Watch(sessionID string, after int64, deliver func(store.Event) bool) func() {
	return w.relay.Watch(sessionID, after, deliver)
}
