package orchestrator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session queued twice (its own timer and a release, say) is started
// once, both in one batch: the second finds it on its way, and nothing
// waits for a lock the drainer holds itself. The retry runs once and succeeds.
func TestDueRoundTakesASessionQueuedTwiceOnce(t *testing.T) {
	h := newHarness(t)
	trap := h.clock.Trap().AfterFunc("retry")
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
