package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// slowNoticeStore takes 300ms (on the mock clock) to save a retry notice,
// as a loaded disk does.
type slowNoticeStore struct {
	Store
	clock *quartz.Mock
}

func (s slowNoticeStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	err := s.Store.AppendEvent(ctx, w)
	if w.SaveRetry != nil {
		s.clock.Advance(300 * time.Millisecond)
	}
	return err
}

// The timer counts to retry_at, not the delay from whenever the writes
// that park the retry are done: found by the fault suite (test/chaos),
// where every retry fired as late as its notice took to save.
func TestRetryTimerCountsToRetryAtNotFromTheEndOfItsWrites(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = slowNoticeStore{Store: h.db, clock: h.clock} })
	trap := h.clock.Trap().AfterFunc("retry")
	defer trap.Close()
	failedAt := h.clock.Now()
	v, f := h.create("/overloaded:1 on time", nil)
	call, err := trap.Wait(h.ctx)
	require.NoError(t, err)
	n := f.until(isNotice)
	retryAt, err := time.Parse(time.RFC3339Nano, n.Message.Metadata["retry_at"].(string))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second-300*time.Millisecond, call.Duration, "armed for what is left until retry_at")
	assert.Equal(t, failedAt.Add(5*time.Second).UTC(), retryAt.UTC(), "retry_at is the failure plus the delay")
	call.MustRelease(h.ctx)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	done := f.until(func(n note) bool { return isTurnDone(n) && n.StopReason != "retry_scheduled" })
	assert.Equal(t, "end_turn", done.StopReason)
	assert.Len(t, byRole(h.messages(v.Sessions[0].ID), "user"), 1)
}
