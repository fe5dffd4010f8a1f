package orchestrator

// One overload gate per provider for the whole fleet (issue 17). With
// Config.FleetGates (PostgreSQL: several daemons share the database), each
// gate of this daemon is in fleet mode (overload/fleet.go) and this file
// keeps it in step with the fleet's gate in the database:
//
//   - a gate that opens here opens the fleet's (or joins the one another
//     daemon opened first, taking its schedule), and a gate open anywhere
//     opens here too, so this daemon's failing sessions wait at once;
//   - the probe right is the lease ("gate", key): a daemon with waiting
//     sessions takes it when it is free, probes on the gate's schedule
//     from its own waiters, writes the schedule after every probe (fenced
//     by the lease), renews it on every sync and gives it up when nobody
//     waits here any more; when it dies the lease expires and another
//     daemon takes over, schedule included;
//   - each daemon reports how many of its sessions wait, and the prober's
//     cadence counts the fleet's;
//   - a probe that succeeds here closes the fleet's gate (a NOTIFY tells
//     everyone); a daemon that hears of it, or finds the gate gone on its
//     next sync, releases its waiters at once over the release window.
//
// The sync is one step (SyncFleetGates), run when something changed here,
// when another daemon notifies, and every FleetGateSync. Database work is
// done without gate.mu; what it found is applied under it, checked again.

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/overload"
)

// FleetGates is the fleet's shared overload gates; *fleet.Gates satisfies
// it. Nil (SQLite): every gate is this daemon's own.
type FleetGates interface {
	List(ctx context.Context) ([]fleet.GateRow, error)
	Open(ctx context.Context, row fleet.GateRow) (fleet.GateRow, bool, error)
	Report(ctx context.Context, key string, openedAt time.Time, waiting int) error
	Leave(ctx context.Context, key string) error
	Schedule(ctx context.Context, lease fleet.Lease, row fleet.GateRow) error
	Close(ctx context.Context, key string, openedAt time.Time) (bool, error)
	AcquireProbe(ctx context.Context, key string) (fleet.Lease, bool, error)
	RenewProbe(ctx context.Context, lease fleet.Lease) (fleet.Lease, error)
	ReleaseProbe(ctx context.Context, lease fleet.Lease) error
	ListenGates(ctx context.Context, retry time.Duration, wake func(key string))
	TTL() time.Duration
}

// DefaultFleetGateSync is Config.FleetGateSync's default.
const DefaultFleetGateSync = time.Second

// fleetGateRT is a gate's link to the fleet's (gateRT.fleet).
type fleetGateRT struct {
	joined     time.Time   // the opening of the fleet's gate this one follows; zero: none
	lease      fleet.Lease // the probe right, while gr.g.Prober()
	schedRev   uint64      // DurableRev when the schedule was last written
	reported   int         // waiting count last reported; -1: none
	reportedAt time.Time
	anyWaiting bool // sessions waited here at the last afterGateLocked
}

// fleetSync owns the sync loop.
type fleetSync struct {
	kick     chan struct{} // buffered 1: something changed, sync soon
	failing  bool          // the last sync failed (logged once)
	lastSync time.Time
}

func (s *Service) fleetMode() bool { return s.cfg.FleetGates != nil && s.gateEnabled() }

// kickFleetGates asks for a sync soon; it never blocks.
func (s *Service) kickFleetGates() {
	if s.fleet.kick == nil {
		return
	}
	select {
	case s.fleet.kick <- struct{}{}:
	default:
	}
}

// fleetGateChangedLocked is afterGateLocked's persistence in fleet mode:
// the sync writes the fleet's row. false outside fleet mode. gate.mu is held.
func (s *Service) fleetGateChangedLocked(gr *gateRT) bool {
	if !s.fleetMode() {
		return false
	}
	if gr.g.DurableRev() != gr.savedRev {
		gr.savedRev = gr.g.DurableRev()
		s.kickFleetGates()
	}
	return true
}

// fleetWaitingLocked tells the sync at once when sessions start waiting
// here, or nobody does any more: the fleet counts them (and the probe
// right goes to a daemon with waiting sessions). Other count changes wait
// for the next sync. gate.mu is held.
func (s *Service) fleetWaitingLocked(gr *gateRT) {
	if !s.fleetMode() {
		return
	}
	if w := gr.g.Waiting() > 0; w != gr.fleet.anyWaiting {
		gr.fleet.anyWaiting = w
		s.kickFleetGates()
	}
}

// startFleetGates starts the sync loop and the listener (Start).
func (s *Service) startFleetGates() {
	if !s.fleetMode() {
		return
	}
	s.fleet.kick = make(chan struct{}, 1)
	fg := s.cfg.FleetGates
	every := s.cfg.FleetGateSync
	if every <= 0 {
		every = DefaultFleetGateSync
	}
	s.goTurn(func() {
		fg.ListenGates(s.ctx, time.Second, func(string) { s.kickFleetGates() })
	})
	s.goTurn(func() {
		t := s.cfg.Clock.NewTicker(every, "gate-fleet")
		defer t.Stop()
		for {
			if err := s.SyncFleetGates(s.ctx); err != nil && s.ctx.Err() == nil {
				if !s.fleet.failing {
					s.log.Warn("overload gates: the fleet's state could not be read or written; retrying", zap.Error(err))
				}
				s.fleet.failing = true
			} else if s.fleet.failing {
				s.fleet.failing = false
				s.log.Info("overload gates: in step with the fleet again")
			}
			select {
			case <-s.ctx.Done():
				s.leaveFleetGates()
				return
			case <-s.fleet.kick:
			case <-t.C:
			}
		}
	})
	s.kickFleetGates()
}

// fleetItem is what one gate looked like when the sync began.
type fleetItem struct {
	key      string
	row      *fleet.GateRow // the fleet's open gate of key; nil: none
	open     bool
	joined   time.Time
	p        overload.Persisted
	waiting  int // here, the probe in flight included
	idle     bool
	prober   bool
	lease    fleet.Lease
	dirty    bool // the prober's schedule changed since written
	code     string
	reported int
	stale    bool // the report is due again
}

// SyncFleetGates brings this daemon's gates in step with the fleet's: the
// loop's step, exported for tests.
func (s *Service) SyncFleetGates(ctx context.Context) error {
	if !s.fleetMode() {
		return nil
	}
	fg := s.cfg.FleetGates
	rows, err := fg.List(ctx)
	if err != nil {
		return err
	}
	byKey := make(map[string]*fleet.GateRow, len(rows))
	for i := range rows {
		byKey[rows[i].Key] = &rows[i]
	}
	now := s.now()
	refresh := fg.TTL() / 3
	s.gate.mu.Lock()
	for key := range byKey {
		s.gateLocked(key) // a gate open anywhere is known here
	}
	items := make([]fleetItem, 0, len(s.gate.gates))
	for key, gr := range s.gate.gates {
		g := gr.g
		it := fleetItem{key: key, row: byKey[key], open: g.State() == overload.Open, joined: gr.fleet.joined,
			p: g.Persisted(), waiting: g.Waiting(), idle: g.Idle(), prober: g.Prober(), lease: gr.fleet.lease,
			dirty: g.DurableRev() != gr.fleet.schedRev, code: gr.code, reported: gr.fleet.reported,
			stale: now.Sub(gr.fleet.reportedAt) >= refresh}
		if g.Snapshot().Probing {
			it.waiting++
		}
		if !it.open && it.row == nil && it.joined.IsZero() && it.reported < 0 && it.lease.Fence == 0 {
			continue // nothing to do
		}
		items = append(items, it)
	}
	s.gate.mu.Unlock()
	var errs []error
	for _, it := range items {
		if err := s.syncFleetGate(ctx, fg, it); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func persistedOf(row fleet.GateRow) overload.Persisted {
	return overload.Persisted{Key: row.Key, State: overload.Open, OpenedAt: row.OpenedAt, NextProbe: row.NextProbeAt,
		FailedProbes: row.FailedProbes, ProbesSent: row.ProbesSent}
}

// withGate applies a sync's finding to key's gate under gate.mu, then
// lets the gate re-arm its timer and publish.
func (s *Service) withGate(key string, f func(gr *gateRT, now time.Time)) {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	gr := s.gate.gates[key]
	if gr == nil {
		return
	}
	now := s.now()
	f(gr, now)
	s.afterGateLocked(gr, now)
}

func (s *Service) syncFleetGate(ctx context.Context, fg FleetGates, it fleetItem) error {
	key := it.key
	switch {
	case it.open && it.joined.IsZero():
		// Opened here: open the fleet's gate, or join the one open already.
		row, opened, err := fg.Open(ctx, fleet.GateRow{Key: key, OpenedAt: it.p.OpenedAt, NextProbeAt: it.p.NextProbe,
			FailedProbes: it.p.FailedProbes, ProbesSent: it.p.ProbesSent, Code: it.code})
		if err != nil {
			return err
		}
		joined := false
		s.withGate(key, func(gr *gateRT, _ time.Time) {
			if gr.g.State() != overload.Open || !gr.fleet.joined.IsZero() {
				return
			}
			gr.fleet.joined = row.OpenedAt
			gr.g.Adopt(persistedOf(row))
			gr.g.SetPeers(row.PeersWaiting)
			gr.fleet.schedRev = gr.g.DurableRev()
			joined = true
		})
		if !joined {
			s.kickFleetGates()
			return nil
		}
		if opened {
			s.log.Info("overload gate opened for the fleet", zap.String("gate", key))
		}
		it.row, it.joined, it.dirty, it.stale = &row, row.OpenedAt, false, true
		return s.syncJoinedGate(ctx, fg, it)
	case it.open && (it.row == nil || !it.row.OpenedAt.Equal(it.joined)):
		// The fleet's gate closed (a probe succeeded somewhere, or nobody
		// waited any more): whoever waits here goes.
		released := 0
		s.withGate(key, func(gr *gateRT, now time.Time) {
			if !gr.fleet.joined.Equal(it.joined) || gr.g.State() != overload.Open {
				return
			}
			released = gr.g.Waiting()
			gr.fleet.joined = time.Time{}
			s.releaseGateLocked(gr, "", now)
		})
		s.log.Info("overload gate closed by the fleet; releasing the sessions waiting here", zap.String("gate", key), zap.Int("released", released))
		s.dropFleetGate(ctx, fg, it)
		if it.row != nil {
			s.kickFleetGates() // opened again since: follow it
		}
		return nil
	case it.open:
		return s.syncJoinedGate(ctx, fg, it)
	case !it.joined.IsZero():
		// Closed here while following the fleet's: a success on this key.
		if _, err := fg.Close(ctx, key, it.joined); err != nil {
			return err
		}
		s.log.Info("overload gate closed for the fleet", zap.String("gate", key))
		s.withGate(key, func(gr *gateRT, _ time.Time) {
			if gr.fleet.joined.Equal(it.joined) {
				gr.fleet.joined = time.Time{}
				gr.fleet.reported, gr.fleet.reportedAt = -1, time.Time{}
			}
		})
		s.releaseProbe(ctx, fg, key, it.lease)
		if it.row != nil && !it.row.OpenedAt.Equal(it.joined) {
			s.kickFleetGates()
		}
		return nil
	case it.row != nil:
		// Open elsewhere: follow it.
		s.withGate(key, func(gr *gateRT, _ time.Time) {
			if gr.g.State() != overload.Closed || !gr.fleet.joined.IsZero() {
				return
			}
			s.followFleetGateLocked(gr, *it.row)
		})
		return nil
	default:
		s.dropFleetGate(ctx, fg, it)
		return nil
	}
}

// followFleetGateLocked opens a closed gate because the fleet's, row, is
// open. gate.mu is held.
func (s *Service) followFleetGateLocked(gr *gateRT, row fleet.GateRow) {
	gr.g.Follow(persistedOf(row))
	gr.g.SetPeers(row.PeersWaiting)
	gr.fleet.joined = row.OpenedAt
	gr.fleet.schedRev = gr.g.DurableRev()
}

// dropFleetGate forgets this daemon's part in a fleet gate that closed.
func (s *Service) dropFleetGate(ctx context.Context, fg FleetGates, it fleetItem) {
	s.releaseProbe(ctx, fg, it.key, it.lease)
	if it.reported >= 0 {
		if err := fg.Leave(ctx, it.key); err != nil {
			return // reported again next time
		}
		s.withGate(it.key, func(gr *gateRT, _ time.Time) {
			if gr.fleet.joined.IsZero() {
				gr.fleet.reported, gr.fleet.reportedAt = -1, time.Time{}
			}
		})
	}
}

// syncJoinedGate: this gate follows the fleet's open gate it.row.
func (s *Service) syncJoinedGate(ctx context.Context, fg FleetGates, it fleetItem) error {
	key, row := it.key, *it.row
	if it.waiting != it.reported || it.stale {
		if err := fg.Report(ctx, key, it.joined, it.waiting); err != nil {
			return err
		}
		s.withGate(key, func(gr *gateRT, now time.Time) {
			gr.fleet.reported, gr.fleet.reportedAt = it.waiting, now
		})
	}
	if it.idle && row.PeersWaiting == 0 && (it.reported > 0 || it.lease.Fence != 0) {
		// Nobody waits on it anywhere any more: it closes. Only a daemon
		// whose sessions waited on it closes it so (a daemon that merely
		// follows may not have heard of another's waiters yet).
		if _, err := fg.Close(ctx, key, it.joined); err != nil {
			return err
		}
		s.releaseProbe(ctx, fg, key, it.lease)
		s.withGate(key, func(gr *gateRT, now time.Time) {
			if gr.fleet.joined.Equal(it.joined) && gr.g.Idle() {
				gr.fleet.joined = time.Time{}
				gr.fleet.reported, gr.fleet.reportedAt = -1, time.Time{}
				gr.g.Succeeded("", now) // closes; nobody to release
			}
		})
		s.log.Info("overload gate closed: nobody in the fleet waits on it", zap.String("gate", key))
		return nil
	}
	if it.prober {
		if it.idle {
			// Nobody waits here: a daemon whose sessions wait probes.
			s.releaseProbe(ctx, fg, key, it.lease)
			return nil
		}
		lease, err := fg.RenewProbe(ctx, it.lease)
		if err == nil && it.dirty {
			p := it.p
			err = fg.Schedule(ctx, lease, fleet.GateRow{Key: key, OpenedAt: it.joined, NextProbeAt: p.NextProbe,
				FailedProbes: p.FailedProbes, ProbesSent: p.ProbesSent})
		}
		lost := errors.Is(err, fleet.ErrLeaseLost)
		if err != nil && !lost {
			return err
		}
		s.withGate(key, func(gr *gateRT, _ time.Time) {
			if gr.fleet.lease.Fence != it.lease.Fence {
				return
			}
			gr.g.SetPeers(row.PeersWaiting)
			if lost {
				s.log.Warn("overload gate: the probe right passed to another daemon", zap.String("gate", key))
				gr.fleet.lease = fleet.Lease{}
				gr.g.SetProber(false)
				return
			}
			gr.fleet.lease = lease
			if it.dirty && gr.g.Persisted() == it.p {
				gr.fleet.schedRev = gr.g.DurableRev()
			} else if it.dirty {
				s.kickFleetGates() // changed meanwhile: write again
			}
		})
		return nil
	}
	took := false
	var lease fleet.Lease
	if it.waiting > 0 {
		var err error
		if lease, took, err = fg.AcquireProbe(ctx, key); err != nil {
			return err
		}
	}
	kept := false
	s.withGate(key, func(gr *gateRT, _ time.Time) {
		if !gr.fleet.joined.Equal(it.joined) || gr.g.State() != overload.Open {
			return
		}
		gr.g.Adopt(persistedOf(row)) // the prober's schedule
		gr.g.SetPeers(row.PeersWaiting)
		if took {
			kept = true
			gr.fleet.lease = lease
			gr.g.SetProber(true)
			s.log.Info("overload gate: this daemon probes for the fleet", zap.String("gate", key),
				zap.Time("next_probe_at", row.NextProbeAt), zap.Int("waiting_elsewhere", row.PeersWaiting))
		}
		gr.fleet.schedRev = gr.g.DurableRev()
	})
	if took && !kept {
		_ = fg.ReleaseProbe(ctx, lease) // the gate closed meanwhile
	}
	return nil
}

// releaseProbe gives up the probe right lease of key (held: its fence is
// set) and forgets it.
func (s *Service) releaseProbe(ctx context.Context, fg FleetGates, key string, lease fleet.Lease) {
	if lease.Fence == 0 {
		return
	}
	_ = fg.ReleaseProbe(ctx, lease)
	s.withGate(key, func(gr *gateRT, _ time.Time) {
		if gr.fleet.lease.Fence == lease.Fence {
			gr.fleet.lease = fleet.Lease{}
			gr.g.SetProber(false)
		}
	})
}

// leaveFleetGates gives up this daemon's probe rights and waiting counts
// as it shuts down, so that another daemon probes at once instead of after
// the lease expires. Its waiting sessions stay parked for its next start.
func (s *Service) leaveFleetGates() {
	type held struct {
		key   string
		lease fleet.Lease
	}
	var hs []held
	s.gate.mu.Lock()
	for key, gr := range s.gate.gates {
		if gr.fleet.lease.Fence != 0 || gr.fleet.reported >= 0 {
			hs = append(hs, held{key, gr.fleet.lease})
			gr.fleet.lease = fleet.Lease{}
			gr.g.SetProber(false)
		}
	}
	s.gate.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 2*time.Second)
	defer cancel()
	fg := s.cfg.FleetGates
	for _, h := range hs {
		if h.lease.Fence != 0 {
			_ = fg.ReleaseProbe(ctx, h.lease)
		}
		_ = fg.Leave(ctx, h.key)
	}
}
