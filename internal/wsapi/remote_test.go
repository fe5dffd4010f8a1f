package wsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/store"
)

// fakeRemote routes sessions to another daemon, peer: a Server of its own
// whose Execute answers what this one forwards, as the relay's executor
// does on the owner.
type fakeRemote struct {
	mu      sync.Mutex // guards every field below
	routes  map[string]fleet.Route
	peer    *Server
	sendErr error
	sent    []fleet.Command
	feeds   []*fakeFeed
	subs    []orchestrator.SubscribeRequest
}

func (r *fakeRemote) Route(_ context.Context, sid string) (fleet.Route, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sid == "broken" {
		return fleet.Route{}, fmt.Errorf("%w: connection refused", fleet.ErrUnavailable)
	}
	return r.routes[sid], nil
}

func (r *fakeRemote) RouteTask(ctx context.Context, taskID string) (fleet.Route, error) {
	return r.Route(ctx, "task:"+taskID)
}

func (r *fakeRemote) Send(ctx context.Context, owner string, cmd fleet.Command) (fleet.Answer, error) {
	r.mu.Lock()
	r.sent = append(r.sent, cmd)
	err, peer := r.sendErr, r.peer
	r.mu.Unlock()
	if err != nil {
		return fleet.Answer{}, err
	}
	cmd.Origin, cmd.Target = "A", owner
	return peer.Execute(ctx, cmd), nil
}

func (r *fakeRemote) SubscribeRemote(_ context.Context, req orchestrator.SubscribeRequest, _ int) (orchestrator.SubscribeResult, Feed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := newFakeFeed()
	r.feeds = append(r.feeds, f)
	r.subs = append(r.subs, req)
	return orchestrator.SubscribeResult{Mode: "replay", Session: store.Session{ID: req.SessionID}, LastSeq: 9}, f, nil
}

// remoteEnv is daemon A (this test's client's) with s2 run by daemon B.
func remoteEnv(t *testing.T) (*testEnv, *testEnv, *fakeRemote) {
	t.Helper()
	b := newTestEnv(t, nil)
	r := &fakeRemote{routes: map[string]fleet.Route{"s1": {Here: true}, "s2": {Owner: "B"}, "task:t2": {Owner: "B"}, "gone": {Owner: "B", Gone: true}}, peer: b.srv}
	// B routes s2 elsewhere too: a forwarded command must still run on B.
	b.srv.cfg.Remote = &fakeRemote{routes: map[string]fleet.Route{"s2": {Owner: "C"}, "task:t2": {Owner: "C"}}}
	a := newTestEnv(t, func(c *Config) { c.Remote = r })
	return a, b, r
}

// Commands for a session another daemon runs go there and come back with
// its answer or its typed error; this daemon's own sessions stay here.
func TestCommandsForAnotherDaemonsSessionAreForwarded(t *testing.T) {
	t.Parallel()
	a, b, r := remoteEnv(t)
	c := a.dial(t)

	c.ok(c.call(ActionSessionPrompt, map[string]any{"session_id": "s2", "text": "hello B"}), nil)
	b.svc.mu.Lock()
	require.Len(t, b.svc.prompts, 1, "B got the prompt")
	assert.Equal(t, "hello B", b.svc.prompts[0].Text)
	b.svc.mu.Unlock()
	a.svc.mu.Lock()
	assert.Empty(t, a.svc.prompts, "A did not run it")
	a.svc.mu.Unlock()

	// B's typed errors, as B gave them.
	e := c.errorOf(c.call(ActionSessionStop, map[string]any{"task_id": "t1", "session_id": "s2"}), CodeForbidden)
	assert.Contains(t, e.Message, "does not belong")
	b.svc.mu.Lock()
	b.svc.err = fmt.Errorf("%w: nothing to recover", orchestrator.ErrConflict)
	b.svc.mu.Unlock()
	c.errorOf(c.call(ActionSessionRecover, map[string]any{"task_id": "t2", "session_id": "s2", "action": "resume"}), CodeConflict)
	// B's validation too (the payload goes as the client sent it).
	e = c.errorOf(c.call(ActionSessionRecover, map[string]any{"task_id": "t2", "session_id": "s2", "action": "explode"}), CodeValidationError)
	assert.Equal(t, "action", e.Details["field"])

	// A session of A's own is A's.
	c.ok(c.call(ActionSessionPrompt, map[string]any{"session_id": "s1", "text": "hello A"}), nil)
	a.svc.mu.Lock()
	require.Len(t, a.svc.prompts, 1)
	a.svc.mu.Unlock()
	// A change of a task goes where its session runs.
	c.ok(c.call(ActionTaskUpdate, map[string]any{"task_id": "t2", "title": "renamed on B"}), nil)
	b.svc.mu.Lock()
	assert.Equal(t, "renamed on B", b.svc.tasks["t2"].Title)
	b.svc.mu.Unlock()
	a.svc.mu.Lock()
	assert.Equal(t, "second", a.svc.tasks["t2"].Title)
	a.svc.mu.Unlock()
	c.ok(c.call(ActionTaskUpdate, map[string]any{"task_id": "t1", "title": "renamed on A"}), nil)
	a.svc.mu.Lock()
	assert.Equal(t, "renamed on A", a.svc.tasks["t1"].Title)
	a.svc.mu.Unlock()

	r.mu.Lock()
	assert.Len(t, r.sent, 5, "s1's prompt and t1's update were not forwarded")
	assert.Equal(t, ActionSessionPrompt, r.sent[0].Action)
	assert.Equal(t, "s2", r.sent[0].SessionID)
	r.mu.Unlock()
	c.healthy()
}

// No answer from the owner is UNAVAILABLE, saying whether anything was
// done; so is an owner that is gone, or a route that cannot be read.
func TestForwardedCommandsWithoutAnAnswerAreUnavailable(t *testing.T) {
	t.Parallel()
	a, b, r := remoteEnv(t)
	c := a.dial(t)
	prompt := map[string]any{"session_id": "s2", "text": "are you there?"}

	r.mu.Lock()
	r.sendErr = fmt.Errorf("%w: it did not take the command within 10s", fleet.ErrOwnerUnavailable)
	r.mu.Unlock()
	e := c.errorOf(c.call(ActionSessionPrompt, prompt), CodeUnavailable)
	assert.Equal(t, false, e.Details["applied"])
	assert.Equal(t, "B", e.Details["owner"])

	r.mu.Lock()
	r.sendErr = fmt.Errorf("%w within 15s", fleet.ErrNoAnswer)
	r.mu.Unlock()
	e = c.errorOf(c.call(ActionSessionPrompt, prompt), CodeUnavailable)
	assert.Equal(t, true, e.Details["maybe_applied"])

	r.mu.Lock()
	r.sendErr, r.sent = nil, nil
	r.mu.Unlock()
	e = c.errorOf(c.call(ActionSessionPrompt, map[string]any{"session_id": "gone", "text": "x"}), CodeUnavailable)
	assert.Contains(t, e.Message, "gone")
	c.errorOf(c.call(ActionSessionStop, map[string]any{"session_id": "broken"}), CodeUnavailable)
	r.mu.Lock()
	assert.Empty(t, r.sent, "nothing is sent to a gone owner")
	r.mu.Unlock()
	b.svc.mu.Lock()
	assert.Empty(t, b.svc.prompts)
	b.svc.mu.Unlock()
	c.healthy()
}

// Subscribing to another daemon's session takes the relay's feed, and its
// events reach the client as the local ones do.
func TestSubscribeToAnotherDaemonsSessionStreamsTheRelay(t *testing.T) {
	t.Parallel()
	a, _, r := remoteEnv(t)
	c := a.dial(t)
	var res orchestrator.SubscribeResult
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s2", "after_seq": 3}), &res)
	assert.Equal(t, "replay", res.Mode)
	assert.Equal(t, int64(9), res.LastSeq)
	r.mu.Lock()
	require.Len(t, r.feeds, 1)
	f := r.feeds[0]
	require.Equal(t, int64(3), *r.subs[0].AfterSeq)
	r.mu.Unlock()
	a.svc.mu.Lock()
	assert.Empty(t, a.svc.sessionFeeds["s2"], "not subscribed locally")
	a.svc.mu.Unlock()

	f.publish(orchestrator.Notification{Action: "session.message.updated", Seq: 10, Payload: json.RawMessage(`{"session_id":"s2","seq":10,"delta":"hi"}`)})
	n := c.read()
	assert.Equal(t, TypeNotification, n.Type)
	assert.Equal(t, "session.message.updated", n.Action)
	assert.JSONEq(t, `{"session_id":"s2","seq":10,"delta":"hi"}`, string(n.Payload))

	var u unsubscribeResponse
	c.ok(c.call(ActionSessionUnsubscribe, map[string]any{"session_id": "s2"}), &u)
	assert.True(t, u.Unsubscribed)
	assert.True(t, f.closed(), "the relay's watch ends with the subscription")

	c.errorOf(c.call(ActionSessionSubscribe, map[string]any{"session_id": "broken"}), CodeUnavailable)

	// This daemon's own session: here. One nobody runs yet: the relay,
	// which sees its events whichever daemon starts it.
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s1"}), nil)
	a.svc.mu.Lock()
	assert.Len(t, a.svc.sessionFeeds["s1"], 1)
	a.svc.mu.Unlock()
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "unowned"}), nil)
	r.mu.Lock()
	assert.Len(t, r.feeds, 2)
	r.mu.Unlock()
	c.healthy()
}

// Execute refuses what is not a session command.
func TestExecuteOnlyRunsSessionCommands(t *testing.T) {
	t.Parallel()
	b := newTestEnv(t, nil)
	ans := b.srv.Execute(t.Context(), fleet.Command{Action: ActionSessionSubscribe, Payload: json.RawMessage(`{"session_id":"s1"}`)})
	var e Error
	require.NoError(t, json.Unmarshal(ans.Error, &e))
	assert.Equal(t, CodeUnknownAction, e.Code)
	b.svc.mu.Lock()
	defer b.svc.mu.Unlock()
	assert.Empty(t, b.svc.sessionFeeds["s1"])
}
