package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// fakeRelay reads snapshots from the store and hands the test the watch's
// deliver, as internal/fleet's Relay would feed it.
type fakeRelay struct {
	db      *store.DB
	mu      sync.Mutex // guards the fields below
	after   int64
	deliver func(store.Event) bool
	stopped bool
}

func (r *fakeRelay) SessionSnapshot(ctx context.Context, id string) (store.Session, []store.Message, error) {
	return r.db.SessionSnapshot(ctx, id)
}

func (r *fakeRelay) Watch(_ string, after int64, deliver func(store.Event) bool) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.after, r.deliver = after, deliver
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.stopped = true
	}
}

// A session another daemon runs is answered from the store — a snapshot,
// or the replay after after_seq — and its feed goes on from exactly where
// the answer ends, with what the relay delivers.
func TestSubscribeRemoteAnswersFromTheStoreAndFollowsTheRelay(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("hello", nil)
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput)) // the turn's last event
	sid := v.Sessions[0].ID
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(t, err)
	r := &fakeRelay{db: h.db}

	res, sub, err := h.svc.SubscribeRemote(h.ctx, SubscribeRequest{TaskID: v.ID, SessionID: sid}, 16, r)
	require.NoError(t, err)
	require.Equal(t, "snapshot", res.Mode)
	require.Equal(t, sess.LastSeq, res.LastSeq)
	require.Equal(t, v.ID, res.Task.ID)
	require.Equal(t, h.messages(sid), res.Messages)
	require.Empty(t, res.NextCursor, "one consistent read, not paged")
	r.mu.Lock()
	require.Equal(t, sess.LastSeq, r.after, "the feed starts after the snapshot")
	deliver := r.deliver
	r.mu.Unlock()

	payload := json.RawMessage(`{"session_id":"` + sid + `","seq":99}`)
	require.True(t, deliver(store.Event{SessionID: sid, Seq: sess.LastSeq + 1, Type: "session.state_changed", Payload: payload, At: time.Unix(1, 0)}))
	select {
	case n := <-sub.C():
		require.Equal(t, "session.state_changed", n.Action)
		require.Equal(t, sess.LastSeq+1, n.Seq)
		require.JSONEq(t, string(payload), string(n.Payload))
	case <-time.After(waitLong):
		t.Fatal("the relayed event did not reach the subscription")
	}
	sub.Close()
	r.mu.Lock()
	require.True(t, r.stopped, "closing the subscription ends the watch")
	r.mu.Unlock()
	require.False(t, deliver(store.Event{SessionID: sid, Seq: sess.LastSeq + 2}), "nothing is delivered after Close")

	after := int64(2)
	res, sub, err = h.svc.SubscribeRemote(h.ctx, SubscribeRequest{SessionID: sid, AfterSeq: &after}, 16, r)
	require.NoError(t, err)
	defer sub.Close()
	require.Equal(t, "replay", res.Mode)
	require.Len(t, res.Events, int(sess.LastSeq-2))
	for i, e := range res.Events {
		require.Equal(t, int64(3+i), e.Seq)
	}
	require.Equal(t, sess.LastSeq, res.LastSeq)
	r.mu.Lock()
	require.Equal(t, sess.LastSeq, r.after)
	r.mu.Unlock()

	_, _, err = h.svc.SubscribeRemote(h.ctx, SubscribeRequest{TaskID: "other", SessionID: sid}, 16, r)
	errIs(t, err, ErrForbidden)
	_, _, err = h.svc.SubscribeRemote(h.ctx, SubscribeRequest{SessionID: "nope"}, 16, r)
	errIs(t, err, ErrNotFound)
}

// A task changed by another daemon is published from the store to this
// daemon's task feed; one deleted there, as deleted.
func TestPublishStoredTask(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("hello", nil)
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput))
	sub := h.svc.SubscribeTasks(16)
	defer sub.Close()
	task, err := h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	task.Title = "renamed elsewhere"
	require.NoError(t, h.db.UpdateTask(h.ctx, task)) // as another daemon would

	next := func(action string) Notification { // this daemon's own task.updated may come first
		for {
			select {
			case n := <-sub.C():
				if n.Action == action && (action != "task.updated" || strings.Contains(string(n.Payload), "renamed elsewhere")) {
					return n
				}
			case <-time.After(waitLong):
				t.Fatalf("no %s", action)
			}
		}
	}

	require.NoError(t, h.svc.PublishStoredTask(h.ctx, v.ID))
	var got struct{ Task TaskView }
	require.NoError(t, json.Unmarshal(next("task.updated").Payload, &got))
	require.Equal(t, "renamed elsewhere", got.Task.Title)
	require.Equal(t, v.ID, got.Task.ID)
	require.Len(t, got.Task.Sessions, 1)

	require.NoError(t, h.svc.PublishStoredTask(h.ctx, "gone-task"))
	require.JSONEq(t, `{"task_id":"gone-task"}`, string(next("task.deleted").Payload))
}
