package orchestrator

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/store"
)

// A session queued twice (its own timer and a release, say) is started
// once, both in one batch: the second finds it on its way, and nothing
// waits for a lock the drainer holds itself. The retry runs once and succeeds.
func TestDueRoundTakesASessionQueuedTwiceOnce(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 queued twice", nil)
	sid := v.Sessions[0].ID
	call, err := trap.Wait(h.ctx)
	require.NoError(t, err)
	call.MustRelease(h.ctx)
	f.until(isNotice)
	rt := h.svc.loaded(sid)
	require.NotNil(t, rt)
	rt.mu.Lock()
	p := rt.retry
	rt.mu.Unlock()
	require.NotNil(t, p)

	require.True(t, h.svc.enter())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer h.svc.leave()
		// Both in one batch: the first queued as if by a callback that came
		// while another was starting, the second by this call.
		it := dueItem{sid: sid, p: p, woke: h.clock.Now()}
		h.svc.due.mu.Lock()
		h.svc.due.due = append(h.svc.due.due, it)
		h.svc.due.mu.Unlock()
		h.svc.queueDue(it)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the second queueing waits for the first")
	}
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	evs, err := h.db.ListEvents(h.ctx, sid, 0, 0)
	require.NoError(t, err)
	started := 0
	for _, e := range evs {
		if e.Type == "session.turn.started" {
			started++
		}
	}
	assert.Equal(t, 2, started, "the first attempt and one retry")
	_, pending := h.pending(sid)
	assert.False(t, pending)
}

// Many retries due together are marked by one goroutine per core: each
// session exactly once (one queued twice too), each told STARTING once.
func TestManyDueTogetherAreEachMarkedOnce(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(t.Context(), dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	svc, err := New(Config{Store: db, Agents: noAgents{}, DataDir: dir, Clock: quartz.NewMock(t),
		Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: "true"}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	feed := svc.SubscribeTasks(4096)
	defer feed.Close()
	const n = 3 * markParallelFrom
	var due []dueItem
	for i := range n {
		id := fmt.Sprintf("s-%04d", i)
		rt := &sessionRT{task: store.Task{ID: "t-" + id, Agent: "mock"}, sess: store.Session{ID: id, TaskID: "t-" + id, Generation: 1}}
		rt.retry = &parkedRetry{rec: store.PendingRetry{SessionID: id, TaskID: rt.task.ID, Generation: 1, Attempt: 1, MaxAttempts: 3}}
		svc.sessions[id] = rt
		due = append(due, dueItem{sid: id, p: rt.retry})
	}
	due = append(due, due[7]) // queued twice
	marked := svc.markDue(due)
	require.Len(t, marked, n)
	seen := map[string]bool{}
	for _, m := range marked {
		assert.False(t, seen[m.rt.sess.ID], "marked once")
		seen[m.rt.sess.ID] = true
		assert.True(t, m.p.dispatching)
	}
	starting := map[string]int{}
	for len(feed.C()) > 0 {
		var x struct{ Task TaskView }
		note := <-feed.C()
		require.NoError(t, json.Unmarshal(note.Payload, &x))
		starting[x.Task.Sessions[0].ID]++
	}
	assert.Len(t, starting, n)
	for id, c := range starting {
		assert.Equal(t, 1, c, id)
	}
}
