package orchestrator

// Overload gates across a restart: open gates are stored (store.Gate),
// their waiting sessions keep the gate key in their pending retries.

import (
	"context"
	"fmt"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/store"
)

// gateOfRetry reads the gate coordination state kept in a pending retry.
func gateOfRetry(rec store.PendingRetry) (key string, since, deadline time.Time) {
	key, _ = rec.Extra[extraGate].(string)
	since = extraTime(rec.Extra, extraGateSince)
	deadline = extraTime(rec.Extra, extraGateDeadline)
	return key, since, deadline
}

// sessionGateOfRetry is the gate a parked session's outcomes count on (see
// gateKey): the one it waits on, else the one its last failure counted on;
// "" for a retry parked before either was recorded.
func sessionGateOfRetry(rec store.PendingRetry) string {
	if key, _ := rec.Extra[extraGate].(string); key != "" {
		return key
	}
	key, _ := rec.Extra[extraLastGate].(string)
	return key
}

func extraTime(extra map[string]any, k string) time.Time {
	v, _ := extra[k].(string)
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// restoreGates re-opens the gates that were open at shutdown with the
// sessions still waiting on them, and arms their timers: an overdue probe
// is sent at once, by the session that has waited longest. Sessions whose
// gate is gone (it closed, or the gate is now off) are released over the
// release window rather than all at once.
func (s *Service) restoreGates(ctx context.Context, waiting map[string][]*sessionRT) error {
	stored, err := s.store.ListGates(ctx)
	if err != nil {
		return fmt.Errorf("list overload gates: %w", err)
	}
	rows := make(map[string]store.Gate, len(stored))
	for _, g := range stored {
		rows[g.Key] = g
	}
	// In a fleet the gates are the fleet's: open ones are followed (an
	// overload_gates row is one this database held before it had a fleet,
	// e.g. copied by migrate-store, and opens the fleet's gate).
	fleetOpen := map[string]time.Time{}
	if s.fleetMode() {
		frs, err := s.cfg.FleetGates.List(ctx)
		if err != nil {
			return fmt.Errorf("list the fleet's overload gates: %w", err)
		}
		for _, r := range frs {
			rows[r.Key] = store.Gate{Key: r.Key, State: store.GateOpen, OpenedAt: r.OpenedAt, NextProbeAt: r.NextProbeAt,
				FailedProbes: r.FailedProbes, ProbesSent: r.ProbesSent}
			fleetOpen[r.Key] = r.OpenedAt
		}
	}
	now := s.now()
	keys := make([]string, 0, len(waiting))
	for k := range waiting {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		rts := waiting[key]
		row, open := rows[key]
		if open && s.gateEnabled() {
			ws := make([]overload.Waiter, 0, len(rts))
			for _, rt := range rts {
				rt.mu.Lock()
				_, since, deadline := gateOfRetry(rt.retry.rec)
				ws = append(ws, overload.Waiter{Session: rt.sess.ID, Since: since, Deadline: deadline})
				rt.retry.gate = key
				s.armDeadlineLocked(rt, rt.retry, deadline)
				rt.mu.Unlock()
			}
			g := overload.Restore(overload.Persisted{Key: key, State: overload.Open, OpenedAt: row.OpenedAt,
				NextProbe: row.NextProbeAt, FailedProbes: row.FailedProbes, ProbesSent: row.ProbesSent}, ws, s.gate.cfg, s.gate.rand)
			if s.fleetMode() {
				g.SetFleet() // the probe right is taken by the sync, schedule and all
			}
			s.gate.mu.Lock()
			gr := s.gateLocked(key)
			gr.g = g
			gr.fleet.joined = fleetOpen[key] // zero for a row of its own: the sync opens the fleet's
			gr.savedRev = g.DurableRev()
			gr.pub = overload.Snapshot{Key: key, State: overload.Closed}
			gr.code, gr.ruleID = rts[0].retry.rec.Code, rts[0].retry.rec.RuleID
			s.afterGateLocked(gr, now)
			s.gate.mu.Unlock()
			delete(rows, key)
			s.log.Info("overload gate restored", zap.String("gate", key), zap.Int("waiting", len(ws)),
				zap.Time("next_probe_at", row.NextProbeAt))
			continue
		}
		sort.Slice(rts, func(i, j int) bool {
			_, a, _ := gateOfRetry(rts[i].retry.rec)
			_, b, _ := gateOfRetry(rts[j].retry.rec)
			return a.Before(b)
		})
		offsets := overload.Spread(len(rts), s.gate.cfg.ReleaseWindowFor(len(rts)), s.gate.rand)
		for i, rt := range rts {
			rt.mu.Lock()
			s.armLocked(rt, now.Add(offsets[i]))
			rt.mu.Unlock()
		}
	}
	if s.fleetMode() {
		// Rows of its own are the fleet's from now on (the sync opens
		// them there); kept, they would come back at every start.
		for _, g := range stored {
			rows[g.Key] = g
			delete(fleetOpen, g.Key)
		}
	}
	for key := range rows {
		if _, ok := fleetOpen[key]; ok {
			continue // the fleet's, followed by the sync
		}
		if err := s.store.DeleteGate(ctx, key); err != nil {
			return fmt.Errorf("drop stale overload gate: %w", err)
		}
	}
	return nil
}
