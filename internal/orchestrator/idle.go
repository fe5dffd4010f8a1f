package orchestrator

import (
	"go.uber.org/zap"
)

// An agent process is kept between turns so a follow-up prompt starts at
// once; one that sits idle for Config.IdleTimeout is stopped, so a daemon
// with hundreds of finished tasks does not keep hundreds of agents (and
// their memory) alive. The next prompt starts a new process that resumes
// the agent session (session/load), as a retry does.

// resumer is an Execution that knows whether a new process could resume its
// agent session; one that cannot is never stopped for being idle (its
// agent would forget the conversation).
type resumer interface{ CanResume() bool }

// armIdleLocked starts (or restarts) the session's idle timer. rt.mu is held.
func (s *Service) armIdleLocked(rt *sessionRT) {
	s.stopIdleLocked(rt)
	if rt.exec == nil || s.cfg.IdleTimeout < 0 {
		return
	}
	if r, ok := rt.exec.(resumer); ok && !r.CanResume() {
		return
	}
	ex := rt.exec
	if s.slots.waiting() {
		// A task waits for an agent slot: this idle agent gives way now
		// rather than after IdleTimeout (queue.go).
		rt.exec = nil
		s.log.Info("agent process idle while tasks wait for a slot; stopped (the next prompt resumes its session)",
			zap.String("session_id", rt.sess.ID))
		if !s.goTurn(func() { _ = ex.Close() }) {
			_ = ex.Close()
		}
		return
	}
	rt.idle = s.cfg.Clock.AfterFunc(s.cfg.IdleTimeout, func() { s.onIdle(rt, ex) }, "agent-idle")
}

// stopIdleLocked disarms the idle timer. rt.mu is held.
func (s *Service) stopIdleLocked(rt *sessionRT) {
	if rt.idle != nil {
		rt.idle.Stop()
		rt.idle = nil
	}
}

// onIdle stops the agent process ex if it is still the session's and idle.
func (s *Service) onIdle(rt *sessionRT, ex Execution) {
	if !s.enter() {
		return
	}
	defer s.leave()
	rt.mu.Lock()
	if rt.exec != ex || rt.turn != nil {
		rt.mu.Unlock()
		return // a turn started, or the process was replaced
	}
	rt.exec, rt.idle = nil, nil
	sid := rt.sess.ID
	rt.mu.Unlock()
	s.log.Info("agent process idle; stopped (the next prompt resumes its session)",
		zap.String("session_id", sid), zap.Duration("idle", s.cfg.IdleTimeout))
	_ = ex.Close()
}
