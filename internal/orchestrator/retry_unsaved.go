package orchestrator

import "go.uber.org/zap"

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
