package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
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

// SessionPageAsOf reads what PostgreSQL reads in one transaction; the
// SQLite store's session is written by this daemon alone, and the tests
// write nothing meanwhile. Its events are not bounded (remotefeed_test.go
// reads PostgreSQL's, which are).
func (r *fakeRelay) SessionPageAsOf(ctx context.Context, id string, p store.MessagePage, eventsAfter int64, _ int) (store.PageAsOf, error) {
	sess, err := r.db.GetSession(ctx, id)
	if err != nil {
		return store.PageAsOf{}, err
	}
	if p.MaxSeq < 0 {
		p.MaxSeq = sess.LastSeq
	}
	msgs, more, err := r.db.ListMessagesPage(ctx, id, p)
	if err != nil {
		return store.PageAsOf{}, err
	}
	out := store.PageAsOf{Session: sess, Messages: msgs, More: more}
	if eventsAfter >= 0 {
		evs, err := r.db.ListEvents(ctx, id, eventsAfter, 0)
		if err != nil {
			return store.PageAsOf{}, err
		}
		for _, e := range evs {
			if e.Seq <= sess.LastSeq {
				out.Events = append(out.Events, e)
			}
		}
	}
	return out, nil
}

func (r *fakeRelay) Marks(context.Context, []string) map[string]Marks { return nil }

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
	require.Empty(t, res.NextCursor, "one page holds it")
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

// scriptedRelay is a fakeRelay whose page read runs during a relay
// delivery, as the owner's writes race a page read on PostgreSQL.
type scriptedRelay struct {
	*fakeRelay
	during func(eventsAfter int64) store.PageAsOf
}

func (r *scriptedRelay) SessionPageAsOf(ctx context.Context, id string, p store.MessagePage, eventsAfter int64, eventsMaxBytes int) (store.PageAsOf, error) {
	if eventsAfter < 0 || r.during == nil {
		return r.fakeRelay.SessionPageAsOf(ctx, id, p, eventsAfter, eventsMaxBytes)
	}
	return r.during(eventsAfter), nil
}

// A relayed snapshot is paged as a local one: the first page and a cursor
// in the answer, the next page in the feed after the events it reflects
// (those the read found that the relay had not delivered yet) and before
// the later ones (delivered while it was read, held back until it came);
// no event twice.
func TestRemoteSnapshotPagesInOrderWithTheRelay(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SnapshotPageBytes = 200 })
	v, f := h.create("a prompt that is echoed back in a few chunks", nil)
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput))
	sid := v.Sessions[0].ID
	r := &scriptedRelay{fakeRelay: &fakeRelay{db: h.db}}
	res, sub, err := h.svc.SubscribeRemote(h.ctx, SubscribeRequest{TaskID: v.ID, SessionID: sid}, 64, r)
	require.NoError(t, err)
	defer sub.Close()
	require.Equal(t, "snapshot", res.Mode)
	require.NotEmpty(t, res.NextCursor, "more than a 200-byte page")
	last := res.LastSeq
	r.mu.Lock()
	deliver := r.deliver
	r.mu.Unlock()
	ev := func(seq int64) store.Event {
		return store.Event{SessionID: sid, Seq: seq, Type: "session.state_changed",
			Payload: json.RawMessage(fmt.Sprintf(`{"session_id":%q,"seq":%d}`, sid, seq))}
	}
	require.True(t, deliver(ev(last+1))) // delivered before the page is asked for
	var asked int64 = -1
	r.during = func(after int64) store.PageAsOf {
		asked = after
		require.True(t, deliver(ev(last+4)), "held while the page is read") // the owner wrote on
		require.True(t, deliver(ev(last+5)))
		sess, err := h.db.GetSession(h.ctx, sid)
		require.NoError(t, err)
		sess.LastSeq = last + 3 // the read saw up to last+3
		return store.PageAsOf{Session: sess, Messages: []store.Message{{ID: "m-page", SessionID: sid}},
			Events: []store.Event{ev(last + 2), ev(last + 3)}}
	}
	require.NoError(t, h.svc.SnapshotPage(h.ctx, PageRequest{TaskID: v.ID, SessionID: sid, Cursor: res.NextCursor}, sub))
	require.Equal(t, last+1, asked, "the read catches up from what the feed has")
	require.True(t, deliver(ev(last+4)), "a late duplicate is dropped")
	require.True(t, deliver(ev(last+6)))
	var got []string
	for len(got) < 7 {
		select {
		case n := <-sub.C():
			if n.Action == "session.page" {
				var p Page
				require.NoError(t, json.Unmarshal(n.Payload, &p))
				require.Equal(t, last+3, p.AsOfSeq)
				got = append(got, "page")
				continue
			}
			got = append(got, fmt.Sprint(n.Seq-last))
		case <-time.After(waitLong):
			t.Fatalf("the feed stopped at %v", got)
		}
	}
	require.Equal(t, []string{"1", "2", "3", "page", "4", "5", "6"}, got)
	select {
	case n := <-sub.C():
		t.Fatalf("more than each event once: %s %d", n.Action, n.Seq)
	default:
	}
	// A page of another session, or an unknown cursor, is refused.
	errIs(t, h.svc.SnapshotPage(h.ctx, PageRequest{SessionID: "other", Cursor: res.NextCursor}, sub), ErrConflict)
	errIs(t, h.svc.SnapshotPage(h.ctx, PageRequest{SessionID: sid, Cursor: "x"}, sub), ErrValidation)
}
