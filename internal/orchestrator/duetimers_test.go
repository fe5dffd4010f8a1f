package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orchestratord/orchestratord/internal/store"
)

// dueRig is a dueTimers on a mock clock, noting each callback's retries.
type dueRig struct {
	t     *testing.T
	ctx   context.Context
	clock *quartz.Mock
	d     *dueTimers
	fired chan []string
	t0    time.Time
}

func newDueRig(t *testing.T) *dueRig {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	r := &dueRig{t: t, ctx: ctx, clock: quartz.NewMock(t), fired: make(chan []string, 16)}
	r.t0 = r.clock.Now()
	r.d = newDueTimers(r.clock, func(due []*parkedRetry) {
		ids := make([]string, len(due))
		for i, p := range due {
			ids[i] = p.rec.SessionID
		}
		r.fired <- ids
	})
	return r
}

func (r *dueRig) arm(id string, in time.Duration) *parkedRetry {
	p := &parkedRetry{rec: store.PendingRetry{SessionID: id}}
	r.d.arm(p, r.t0.Add(in))
	return p
}

// advanceTo moves the clock to t0+at, running the timers due.
func (r *dueRig) advanceTo(at time.Duration) {
	r.t.Helper()
	_, w := r.clock.AdvanceNext()
	w.MustWait(r.ctx)
	require.Equal(r.t, r.t0.Add(at), r.clock.Now(), "the timer was set for the earliest retry_at")
}

func (r *dueRig) nextFired() []string {
	r.t.Helper()
	select {
	case ids := <-r.fired:
		return ids
	case <-r.ctx.Done():
		r.t.Fatal("no retry fired")
		return nil
	}
}

func TestRetriesDueAtOneInstantFireTogetherAtIt(t *testing.T) {
	r := newDueRig(t)
	r.arm("late", 10*time.Second)
	r.arm("a", 5*time.Second)
	r.arm("b", 5*time.Second)
	r.advanceTo(5 * time.Second)
	assert.ElementsMatch(t, []string{"a", "b"}, r.nextFired())
	r.advanceTo(10 * time.Second)
	assert.Equal(t, []string{"late"}, r.nextFired())
	_, ok := r.clock.Peek()
	assert.False(t, ok, "no timer is left once nothing is armed")
}

func TestAStoppedRetryDoesNotFireAndTheNextOneStillDoes(t *testing.T) {
	r := newDueRig(t)
	first := r.arm("first", 3*time.Second)
	r.arm("second", 8*time.Second)
	require.True(t, r.d.stop(first))
	require.False(t, r.d.stop(first), "stopped once")
	r.advanceTo(8 * time.Second)
	assert.Equal(t, []string{"second"}, r.nextFired())
	assert.Empty(t, r.fired)
}

func TestARetryArmedAgainMovesToItsNewTime(t *testing.T) {
	r := newDueRig(t)
	p := r.arm("moved", 9*time.Second)
	r.d.arm(p, r.t0.Add(2*time.Second))
	r.advanceTo(2 * time.Second)
	assert.Equal(t, []string{"moved"}, r.nextFired())
	assert.False(t, r.d.stop(p), "it fired")
	_, ok := r.clock.Peek()
	assert.False(t, ok, "armed once, fired once")
}

func TestARetryWhoseTimeHasPassedFiresAtOnce(t *testing.T) {
	r := newDueRig(t)
	r.arm("overdue", -time.Minute)
	assert.Equal(t, []string{"overdue"}, r.nextFired())
}

func TestRetriesLateTogetherAreLoggedOnceNotOnceEach(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	clock := quartz.NewMock(t)
	s := &Service{cfg: Config{Clock: clock}, log: zap.New(core)}
	due := clock.Now().Add(-time.Second) // woke a second late
	late := &lateStarts{of: 3}
	for _, id := range []string{"a", "b", "c"} {
		rt := &sessionRT{sess: store.Session{ID: id}}
		s.noteLateTimerLocked(rt, &parkedRetry{rec: store.PendingRetry{SessionID: id, RetryAt: due}}, clock.Now(), late)
	}
	assert.Zero(t, logs.Len(), "nothing until the burst has started")
	late.log(s.log)
	require.Equal(t, 1, logs.Len())
	e := logs.All()[0]
	assert.Equal(t, "retry timers late", e.Message)
	assert.Equal(t, map[string]any{"late": int64(3), "due_together": int64(3), "most_woke_late": time.Second, "most_lock_wait": time.Duration(0)},
		e.ContextMap())

	alone := &sessionRT{sess: store.Session{ID: "alone"}}
	s.noteLateTimerLocked(alone, &parkedRetry{rec: store.PendingRetry{SessionID: "alone", RetryAt: due}}, clock.Now(), nil)
	require.Equal(t, 2, logs.Len())
	assert.Equal(t, "retry timer late", logs.All()[1].Message)
}
