package orchestrator

// Retry now (issue 14): every waiting notice — a retry on its own
// schedule, a session waiting on an overload gate, a usage window — has a
// button that sends the prompt at once. Through an open overload gate the
// session becomes the gate's probe (a free slot), or goes past it when a
// probe is already in flight; its outcome counts on the gate as any other.

import (
	"fmt"

	"go.uber.org/zap"
)

// RecoverRetryNow sends a waiting retry at once.
const RecoverRetryNow = "retry_now"

// retryNowLocked dispatches the session's parked retry now. Idempotent: a
// retry already on its way is left alone.
func (s *Service) retryNowLocked(rt *sessionRT) error {
	p := rt.retry
	if p == nil {
		return fmt.Errorf("%w: session %q has no retry waiting", ErrConflict, rt.sess.ID)
	}
	if p.dispatching || rt.turn != nil {
		return nil // already sent
	}
	s.stopTimersLocked(p)
	now := s.now()
	sid := rt.sess.ID
	if p.gate != "" {
		key := p.gate
		s.gate.mu.Lock()
		probe := false
		if gr := s.gate.gates[key]; gr != nil {
			probe = gr.g.ProbeNow(sid, now)
			if probe {
				s.cfg.Metrics.gateProbes.WithLabelValues(key).Inc()
			}
			s.afterGateLocked(gr, now)
		}
		s.gate.releases.cancel(sid, "")
		s.gate.mu.Unlock()
		if probe {
			p.probe = true
		} else {
			s.gateLeaveLocked(sid, key, now)
			p.gate = ""
		}
	}
	if key := usageKeyOf(p); key != "" {
		s.usage.mu.Lock()
		if w := s.usage.windows[key]; w != nil && w.leader == "" && !w.open {
			w.leader = sid // it goes first: the others follow its verdict
		}
		s.usage.releases.cancel(sid, "")
		s.usage.mu.Unlock()
	}
	s.log.Info("retry now", zap.String("session_id", sid), zap.Bool("probe", p.probe), zap.String("code", p.rec.Code))
	s.dispatchLocked(rt, p)
	return nil
}
