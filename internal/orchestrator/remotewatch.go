package orchestrator

// A waiting session's notice (next check, sessions waiting) is rewritten
// when its gate changes only while someone watches the session: for
// thousands of waiting sessions nobody reads, that would be thousands of
// writes a minute (gate_notice.go). A client on another daemon of the
// fleet watches through the relay, which the owner does not see; so that
// daemon tells it, by asking for the session's marks (marks.go) when the
// client subscribes and again every remoteWatchRenew while the
// subscription lasts. The owner keeps the notice current, as for a client
// of its own, for remoteWatchFor after each ask, and brings it up to date
// at once (as a local subscribe does).

import (
	"context"
	"time"
)

const (
	remoteWatchFor   = 2 * time.Minute
	remoteWatchRenew = remoteWatchFor / 2
)

// remotelyWatchedLocked notes that another daemon shows rt to a client now.
func (s *Service) remotelyWatchedLocked(rt *sessionRT) {
	rt.remoteWatch = s.now().Add(remoteWatchFor).UnixNano()
	s.refreshGateNoticeLocked(rt)
}

// watchedRemotelyLocked: another daemon showed rt to a client lately.
func (s *Service) watchedRemotelyLocked(rt *sessionRT) bool {
	return rt.remoteWatch > s.now().UnixNano()
}

// keepRemoteWatch tells the daemon that owns sessionID that sub shows it,
// now and every remoteWatchRenew until sub ends or the service closes.
func (s *Service) keepRemoteWatch(src RemoteSessions, sub *Subscription, sessionID string) {
	s.goTurn(func() {
		for {
			select {
			case <-sub.Done(): // ended while its timer fired: nobody watches any more
				return
			default:
			}
			ctx, cancel := context.WithTimeout(s.ctx, marksTimeout)
			_ = src.Marks(ctx, []string{sessionID}) // best effort: an owner that does not answer keeps its notice as written
			cancel()
			t := s.cfg.Clock.NewTimer(remoteWatchRenew, "remote-watch")
			select {
			case <-t.C:
			case <-sub.Done():
				t.Stop()
				return
			case <-s.ctx.Done():
				t.Stop()
				return
			}
		}
	})
}
