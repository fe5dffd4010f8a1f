package orchestrator

// A task's own overload gate deadline. Waiting on a gate spends none of a
// session's retry budget; what bounds the wait is the chain's deadline,
// counted from its first gated failure: the daemon's (overload.Config
// Deadline, 30 minutes by default) or, when the task sets one, the task's —
// an unattended task may wait for hours, an interactive one give up sooner.

import (
	"fmt"
	"time"
)

// MaxGateDeadline is the longest gate deadline a task may set: a week
// covers any unattended run; a longer one is almost certainly a unit
// mistake (milliseconds sent as seconds).
const MaxGateDeadline = 7 * 24 * time.Hour

// validateGateDeadline checks CreateTaskRequest.GateDeadline (0: the
// daemon's default).
func validateGateDeadline(d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("%w: gate deadline must not be negative, got %s (leave it unset for the daemon's default)", ErrValidation, d)
	case d > MaxGateDeadline:
		return fmt.Errorf("%w: gate deadline is %s; the longest a task may wait is 7 days", ErrValidation, d)
	}
	return nil
}

// gateDeadline is how long a retry chain of rt's task may wait on gates.
// --retry-scale (overload.Config.Scale) scales a task's own deadline as it
// scales the daemon's, so a demo keeps their proportions.
func (s *Service) gateDeadline(rt *sessionRT) time.Duration {
	d := rt.task.GateDeadline
	if d <= 0 {
		return s.gate.cfg.Deadline // defaults and scale already applied
	}
	if sc := s.cfg.Overload.Scale; sc > 0 { // New validated it
		d = time.Duration(float64(d) * sc)
	}
	return d
}

// chainDeadline is when rt's current retry chain stops waiting on gates:
// the one it has, or — for a chain that has not waited yet — now plus the
// task's gate deadline.
func (s *Service) chainDeadline(rt *sessionRT, now time.Time) time.Time {
	if d := rt.chain.deadline(); !d.IsZero() {
		return d
	}
	return now.Add(s.gateDeadline(rt))
}
