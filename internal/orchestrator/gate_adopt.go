package orchestrator

// A session taken over from a dead daemon while it waited on an overload
// gate (Adopt) rejoins the fleet's gate here instead of firing on its own
// timer: it waits with this daemon's waiters from when it began waiting,
// counts in the fleet's cadence at once, never probes on its own, and is
// released with the others; its waiting notice is written again with the
// gate's next check as this daemon has it. When the fleet's gate closed
// while its daemon was dead, it goes, staggered with the others adopted
// with it.

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// gateAdoption is what one Adopt knows of the fleet's gates.
type gateAdoption struct {
	rows     map[string]fleet.GateRow // the fleet's open gates, by key
	released []time.Duration          // release offsets of waiters whose gate closed
	next     int
}

// gateAdoptionFor reads the fleet's gates when some of the retries being
// adopted wait on one; nil outside fleet mode or when none does.
func (s *Service) gateAdoptionFor(ctx context.Context, parked map[string]store.PendingRetry) (*gateAdoption, error) {
	if !s.fleetMode() {
		return nil, nil
	}
	var keys []string
	for _, rec := range parked {
		if key, _, _ := gateOfRetry(rec); key != "" && rec.State != store.RetryDispatching {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	rows, err := s.cfg.FleetGates.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the fleet's overload gates: %w", err)
	}
	ga := &gateAdoption{rows: make(map[string]fleet.GateRow, len(rows))}
	for _, r := range rows {
		ga.rows[r.Key] = r
	}
	gone := 0
	for _, key := range keys {
		if _, open := ga.rows[key]; !open {
			gone++
		}
	}
	ga.released = overload.Spread(gone, s.gate.cfg.ReleaseWindowFor(gone), s.gate.rand)
	return ga, nil
}

// releaseOffset is the next staggered release of a waiter whose gate closed.
func (ga *gateAdoption) releaseOffset() time.Duration {
	if ga.next >= len(ga.released) {
		return 0
	}
	d := ga.released[ga.next]
	ga.next++
	return d
}

// rejoinGateLocked puts an adopted waiter of gate key back on this
// daemon's gate, following the fleet's when it is open here not yet.
// The session's mutex is held; rt.retry is the adopted retry.
func (s *Service) rejoinGateLocked(rt *sessionRT, ga *gateAdoption, key string) {
	p := rt.retry
	rec := p.rec
	_, since, deadline := gateOfRetry(rec)
	now := s.now()
	if deadline.IsZero() {
		deadline = s.chainDeadline(rt, now)
	}
	if since.IsZero() {
		since = now
	}
	rt.chain = chainOf(rec.Attempt, rec.MaxAttempts, deadline)
	s.gate.mu.Lock()
	gr := s.gateLocked(key)
	if row, open := ga.rows[key]; open && gr.g.State() != overload.Open {
		s.followFleetGateLocked(gr, row)
	}
	v := gr.g.Rejoin(overload.Waiter{Session: rt.sess.ID, Since: since, Deadline: deadline}, now)
	s.afterGateLocked(gr, now)
	s.gate.mu.Unlock()
	switch v {
	case overload.Wait:
		p.gate = key
		s.armDeadlineLocked(rt, p, deadline)
		// Its notice is the dead daemon's: the next check it names may be
		// long past (the fleet's probe failed since and moved it on), and
		// those who watch it from another daemon read it from the store.
		// What it says now is not known here (p.noticeSaid is unset), so
		// it is written once, with this daemon's view of the fleet's gate.
		s.refreshGateNoticeLocked(rt)
		s.log.Info("adopted session waits on the fleet's overload gate", zap.String("session_id", rt.sess.ID),
			zap.String("gate", key), zap.Time("since", since))
	case overload.Expired:
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindGateDeadline, wait: s.gateDeadline(rt),
			class: routingerr.Classification{Code: rec.Code, RuleID: rec.RuleID, Class: routingerr.ClassTransient}})
	default:
		// The fleet's gate closed while its daemon was dead: it goes.
		d := ga.releaseOffset()
		s.armLocked(rt, s.now().Add(d))
		s.log.Info("adopted session's overload gate closed meanwhile; released", zap.String("session_id", rt.sess.ID),
			zap.String("gate", key), zap.Duration("in", d))
	}
}
