package orchestrator

import (
	"time"

	"go.uber.org/zap"
)

// claimUnsavedLocked ends a due retry whose claim the store refuses (a
// full disk, a read-only data dir). Without its durable "dispatching" mark
// the attempt cannot go safely (a crash mid-attempt would replay it
// blindly), and holding it behind the notice that promised it left the chat
// saying "retrying" with nothing happening for as long as the disk stayed
// full, and nothing to show for it once the user moved on (test/chaos seeds
// 5000 and 5024). It fails visibly instead, like every other write the
// store refuses: the could-not-save banner with Resume, held in memory and
// published when the store takes no banner either, and saved with the
// retry row's deletion at reconcile (storefault.go).
func (s *Service) claimUnsavedLocked(rt *sessionRT, p *parkedRetry, err error) {
	s.log.Error("a due retry could not be claimed; it ends with the could-not-save banner",
		zap.String("session_id", rt.sess.ID), zap.Int("attempt", p.rec.Attempt),
		zap.Time("retry_at", p.rec.RetryAt), zap.Error(err))
	s.storeFailedLocked(rt, nil, err)
}

// lateTimerAfter: a retry timer whose callback runs, or gets the session,
// this much after retry_at is logged with where the time went.
const lateTimerAfter = 20 * time.Millisecond

// noteLateTimerLocked logs a retry timer that woke late (the Go runtime or
// the machine) or waited for the session's lock (other work of the
// session), so lateness at "retry firing" can be told apart from a slow
// claim (its "claim" field). Retries due together are noted in late and
// logged once (lateStarts), not a line each.
func (s *Service) noteLateTimerLocked(rt *sessionRT, p *parkedRetry, woke time.Time, late *lateStarts) {
	if p.gate != "" {
		return // a gate's schedule, not retry_at
	}
	locked := s.now()
	wokeLate, wait := woke.Sub(p.rec.RetryAt), locked.Sub(woke)
	if wokeLate < lateTimerAfter && wait < lateTimerAfter {
		return
	}
	if late != nil {
		late.n++
		late.wokeLate, late.wait = max(late.wokeLate, wokeLate), max(late.wait, wait)
		return
	}
	s.log.Warn("retry timer late", zap.String("session_id", rt.sess.ID), zap.Int("attempt", p.rec.Attempt),
		zap.Duration("woke_late", wokeLate), zap.Duration("lock_wait", wait))
}

// lateStarts sums up the late ones of retries due together: logging a
// line for each of ten thousand would make the last ones later still.
type lateStarts struct {
	n, of          int
	wokeLate, wait time.Duration // the most of any
}

func (l *lateStarts) log(log *zap.Logger) {
	if l.n == 0 {
		return
	}
	log.Warn("retry timers late", zap.Int("late", l.n), zap.Int("due_together", l.of),
		zap.Duration("most_woke_late", l.wokeLate), zap.Duration("most_lock_wait", l.wait))
}
