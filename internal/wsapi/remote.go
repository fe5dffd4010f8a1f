package wsapi

import (
	"context"
	"encoding/json"
	"errors"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// Remote reaches the sessions another daemon of the fleet runs (issue 17:
// any daemon serves any client). cmd/orchestratord wires it to
// internal/fleet's Relay, which goes through the shared database; wsapi
// only routes. Nil (SQLite, a daemon alone): every session is this
// daemon's.
type Remote interface {
	// Route names the daemon that runs the session when it is not this
	// one (Owner ""), and whether that owner is gone.
	Route(ctx context.Context, sessionID string) (fleet.Route, error)
	// RouteTask is Route for the task's newest session.
	RouteTask(ctx context.Context, taskID string) (fleet.Route, error)
	// Send forwards a session command to owner and returns its answer;
	// fleet.ErrOwnerUnavailable or fleet.ErrNoAnswer when there is none.
	Send(ctx context.Context, owner string, cmd fleet.Command) (fleet.Answer, error)
	// SubscribeRemote is SubscribeSession for a session another daemon
	// runs (orchestrator.Service.SubscribeRemote with the relay). A nil
	// feed is only returned with an error.
	SubscribeRemote(ctx context.Context, req orchestrator.SubscribeRequest, buffer int) (orchestrator.SubscribeResult, Feed, error)
}

// Feed is a subscription's feed of notifications; *orchestrator.Subscription
// satisfies it.
type Feed = feed

// forwarded are the requests that act on a session and go to the daemon
// that runs it (its events are that daemon's alone to write).
// Task changes too: they write the events of the task's session.
var forwarded = map[string]bool{
	ActionSessionPrompt:  true,
	ActionSessionStop:    true,
	ActionSessionRecover: true,
	ActionTaskUpdate:     true,
	ActionTaskDelete:     true,
}

// routed wraps a forwarded session action: a request for a session
// another daemon runs is sent there and answered with that daemon's
// answer, its typed error included; anything else is handled here.
func routed(h actionFunc) actionFunc { return routedBy("session_id", h) }

// routedTask wraps a forwarded task action, routed by the task's newest
// session.
func routedTask(h actionFunc) actionFunc { return routedBy("task_id", h) }

func routedBy(key string, h actionFunc) actionFunc {
	return func(ctx context.Context, c *conn, req request) (any, func(), error) {
		if c.s.cfg.Remote == nil || c.executing {
			return h(ctx, c, req)
		}
		var p map[string]any
		_ = json.Unmarshal(req.payload, &p)
		id, _ := p[key].(string)
		if id == "" {
			return h(ctx, c, req) // its own validation answers
		}
		var rt fleet.Route
		var err error
		if key == "task_id" {
			rt, err = c.routeTask(ctx, id)
		} else {
			rt, err = c.route(ctx, id)
		}
		switch {
		case err != nil:
			return nil, nil, err
		case rt.Owner == "":
			return h(ctx, c, req)
		case rt.Gone:
			e := newError(CodeUnavailable, "the daemon that runs %s %q is gone; another daemon takes it over shortly, try again then", what(key), id)
			e.Details = map[string]any{"owner": rt.Owner, "applied": false}
			return nil, nil, e
		}
		sid, _ := p["session_id"].(string)
		ans, err := c.s.cfg.Remote.Send(ctx, rt.Owner, fleet.Command{Action: req.action, SessionID: sid, Payload: req.payload})
		if err != nil {
			c.log.Warn("fleet: a request for another daemon's session got no answer", zap.String("action", req.action),
				zap.String("id", id), zap.String("owner", rt.Owner), zap.Error(err))
		}
		switch {
		case errors.Is(err, fleet.ErrOwnerUnavailable):
			e := newError(CodeUnavailable, "the daemon that runs %s %q did not take the request in time; nothing was done, try again", what(key), id)
			e.Details = map[string]any{"owner": rt.Owner, "applied": false}
			return nil, nil, e
		case err != nil:
			e := newError(CodeUnavailable, "the daemon that runs %s %q took the request but did not answer; it may have been applied (the session will show it)", what(key), id)
			e.Details = map[string]any{"owner": rt.Owner, "maybe_applied": true}
			return nil, nil, e
		case len(ans.Error) > 0:
			var e Error
			if json.Unmarshal(ans.Error, &e) != nil || e.Code == "" {
				return nil, nil, newError(CodeInternalError, "the daemon that runs %s %q gave an unreadable answer", what(key), id)
			}
			return nil, nil, &e
		}
		if len(ans.Result) == 0 {
			return nil, nil, nil
		}
		return ans.Result, nil, nil
	}
}

// route asks where a session runs; a session whose owner is gone is
// UNAVAILABLE until another daemon takes it over.
func (c *conn) route(ctx context.Context, sessionID string) (fleet.Route, error) {
	rt, err := c.s.cfg.Remote.Route(ctx, sessionID)
	if err != nil {
		c.log.Warn("fleet: the owner of a session cannot be read", zap.String("session_id", sessionID), zap.Error(err))
		return rt, newError(CodeUnavailable, "which daemon runs session %q cannot be read now (database unreachable); try again", sessionID)
	}
	return rt, nil
}

func what(key string) string {
	if key == "task_id" {
		return "task"
	}
	return "session"
}

// routeTask is route for a task.
func (c *conn) routeTask(ctx context.Context, taskID string) (fleet.Route, error) {
	rt, err := c.s.cfg.Remote.RouteTask(ctx, taskID)
	if err != nil {
		c.log.Warn("fleet: the owner of a task cannot be read", zap.String("task_id", taskID), zap.Error(err))
		return rt, newError(CodeUnavailable, "which daemon runs task %q cannot be read now (database unreachable); try again", taskID)
	}
	return rt, nil
}

// subscribeFeed subscribes here to a session this daemon runs, else
// through the relay, which follows the session's events in the store
// whichever daemon writes them — one that runs it now, or the one that
// will (a session nobody runs yet may be started by another daemon). The
// answer and the feed are the same either way.
func (c *conn) subscribeFeed(ctx context.Context, p orchestrator.SubscribeRequest) (orchestrator.SubscribeResult, feed, error) {
	if c.s.cfg.Remote != nil {
		rt, err := c.route(ctx, p.SessionID)
		if err != nil {
			return orchestrator.SubscribeResult{}, nil, err
		}
		if !rt.Here {
			res, f, err := c.s.cfg.Remote.SubscribeRemote(ctx, p, c.s.cfg.SubscriberBuffer)
			if err != nil {
				return res, nil, err
			}
			if f == nil {
				return res, nil, errors.New("relay returned no subscription")
			}
			return res, f, nil
		}
	}
	return c.s.feeds.subscribeSession(ctx, p, c.s.cfg.SubscriberBuffer)
}

// Execute answers a command another daemon forwarded to this one, for a
// session this one runs, exactly as a request from a client of its own
// (the same validation and errors), without forwarding it again. It is
// the fleet.Executor of this daemon's relay.
func (s *Server) Execute(ctx context.Context, cmd fleet.Command) fleet.Answer {
	answer := func(e *Error) fleet.Answer {
		b, _ := json.Marshal(e)
		return fleet.Answer{Error: b}
	}
	if !forwarded[cmd.Action] {
		return answer(newError(CodeUnknownAction, "action %q is not forwarded between daemons", cmd.Action))
	}
	c := &conn{s: s, log: s.log.With(zap.String("forwarded_from", cmd.Origin)), ctx: ctx, executing: true}
	res, _, err := actions[cmd.Action](ctx, c, request{action: cmd.Action, payload: cmd.Payload})
	if err != nil {
		e, expose := toError(err)
		if !expose {
			c.log.Error("forwarded request failed", zap.String("action", cmd.Action), zap.Error(err))
		}
		return answer(e)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return answer(newError(CodeInternalError, "cannot encode response"))
	}
	return fleet.Answer{Result: b}
}
