package orchestrator

// Releasing the lease of a session that has nothing running here (issue
// 17): a daemon of a fleet owns a session while it runs, parks or waits
// for something of it; once the session is idle, its lease is given up,
// so the next command for it is served by whichever daemon gets it (which
// claims the lease, fleet.go owned) instead of being forwarded to this
// one forever.

import (
	"context"
	"sync"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// remoteFeeds is the fleet's relay, which a released session's local
// subscribers are handed to (SetRemoteSessions).
type remoteFeeds struct {
	mu  sync.Mutex // guards src
	src RemoteSessions
}

// SetRemoteSessions gives the service the fleet's relay: a session whose
// lease is released keeps its subscribers here fed, from the store, by
// whichever daemon runs it next. Without it a session that has
// subscribers keeps its lease.
func (s *Service) SetRemoteSessions(src RemoteSessions) {
	s.remote.mu.Lock()
	defer s.remote.mu.Unlock()
	s.remote.src = src
}

func (s *Service) remoteSessions() RemoteSessions {
	s.remote.mu.Lock()
	defer s.remote.mu.Unlock()
	return s.remote.src
}

// idleLocked: nothing of the session lives here but its copy of the
// store's rows — no turn, no place in the agents' line, no parked retry
// (an overload gate's or a usage window's wait is one), no agent process
// kept for the next prompt, nothing held in memory for the store, no pause
// the user chose (a mark only memory holds; marks.go).
func idleLocked(rt *sessionRT) bool {
	if pausedLocked(rt) {
		return false
	}
	switch rt.sess.State {
	case store.SessionStarting, store.SessionRunning, store.SessionQueued:
		return false
	}
	return rt.turn == nil && rt.retry == nil && rt.exec == nil && rt.stream == nil &&
		rt.unsaved == nil && !rt.dirty && !rt.staleRow && len(rt.deletes) == 0 && rt.reconcile == nil
}

// ReleaseIdle releases the leases of those of sessionIDs (held here) that
// are idle: fleet.Owner calls it before each renewal. A session not in
// memory has nothing here. The check and the release are one hold of the
// session's lock, so nothing starts in between; a command that claimed the
// session pins its lease (Fleet.Claim) and keeps it. The released runtime
// is dropped (its copy goes stale once another daemon runs the session)
// and its subscribers are fed by the relay from then on.
func (s *Service) ReleaseIdle(ctx context.Context, sessionIDs []string) {
	f := s.cfg.Fleet
	if f == nil {
		return
	}
	src := s.remoteSessions()
	n := 0
	var parked map[string]bool // sessions with a pending retry row, read once when needed
	for _, id := range sessionIDs {
		if ctx.Err() != nil {
			return
		}
		rt := s.loaded(id)
		if rt == nil {
			// Not in memory, but its retry may still be parked in the
			// store (an adoption that failed): a released lease is nobody's
			// work, so that retry would never fire.
			if parked == nil {
				parked = map[string]bool{}
				pending, err := s.store.ListPendingRetries(ctx)
				if err != nil {
					s.log.Warn("listing parked retries before releasing leases failed; kept for now", zap.Error(err))
					return
				}
				for _, p := range pending {
					parked[p.SessionID] = true
				}
			}
			if parked[id] {
				continue
			}
			if ok, err := f.Release(ctx, id); err != nil {
				s.log.Warn("releasing an idle session's lease failed; kept for now", zap.String("session_id", id), zap.Error(err))
			} else if ok {
				n++
			}
			continue
		}
		rt.mu.Lock()
		if !idleLocked(rt) || rt.gone || src == nil && rt.subs.len() > 0 {
			rt.mu.Unlock()
			continue
		}
		ok, err := f.Release(ctx, id)
		if err != nil {
			rt.mu.Unlock()
			s.log.Warn("releasing an idle session's lease failed; kept for now", zap.String("session_id", id), zap.Error(err))
			continue
		}
		if !ok {
			rt.mu.Unlock()
			continue
		}
		n++
		rt.gone = true // nothing more is written through this copy
		s.stopIdleLocked(rt)
		for sub := range rt.subs.take() {
			watchRemote(src, sub, rt.task.ID, id, rt.sess.LastSeq)
		}
		rt.mu.Unlock()
		s.mu.Lock()
		if s.sessions[id] == rt {
			delete(s.sessions, id)
		}
		s.mu.Unlock()
	}
	if n > 0 {
		s.log.Debug("released the leases of idle sessions", zap.Int("sessions", n))
	}
}
