package main

import (
	"context"
	"net"
	"os"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// daemonIdentity is what this daemon advertises to its fleet: its stable
// id from the data dir, the address it is reached at (--advertise-addr, or
// the listener's), its agent profiles and --max-agents.
func daemonIdentity(dataDir, advertise string, ln net.Addr, profiles map[string]lifecycle.Profile, maxAgents int) (fleet.Identity, error) {
	id, err := fleet.LoadID(dataDir)
	if err != nil {
		return fleet.Identity{}, err
	}
	addr := advertise
	if addr == "" {
		addr = displayAddr(ln.String())
	}
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	host, _ := os.Hostname()
	return fleet.Identity{ID: id, Addr: addr, Hostname: host, Profiles: names, MaxAgents: maxAgents}, nil
}

// startFleet joins the fleet: on PostgreSQL a heartbeat lease in
// fleet_members (stopped by the returned func, which marks this daemon
// stopped), on SQLite a fleet of one.
func startFleet(ctx context.Context, db daemonStore, self fleet.Identity, lease time.Duration, load fleet.LoadFunc, log *zap.Logger) (fleet.Lister, func(), error) {
	pg, ok := db.(*postgres.DB)
	if !ok {
		return &fleet.Local{Self: self, Load: load, Started: time.Now()}, func() {}, nil
	}
	r, err := fleet.New(fleet.Config{Pool: pg.Pool(), Self: self, Load: load, Lease: lease, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	if err := r.Start(ctx); err != nil {
		return nil, nil, err
	}
	log.Info("joined the fleet", zap.String("daemon_id", self.ID), zap.String("addr", self.Addr), zap.Duration("lease", lease))
	return r, func() {
		if err := r.Close(); err != nil {
			log.Warn("leaving the fleet", zap.Error(err))
		}
	}, nil
}

// fleetGates makes the overload gates the fleet's with --fleet (one probe
// per provider key for every daemon on the database); nil otherwise: each
// gate is this daemon's own, as on SQLite.
func fleetGates(db daemonStore, dataDir string, inFleet bool) (orchestrator.FleetGates, error) {
	pg, ok := db.(*postgres.DB)
	if !ok || !inFleet {
		return nil, nil
	}
	id, err := fleet.LoadID(dataDir)
	if err != nil {
		return nil, err
	}
	return fleet.NewGates(pg.Pool(), id, 0)
}

// fleetOwner is the session ownership of a --fleet daemon (daemonID set),
// nil otherwise.
func fleetOwner(db daemonStore, daemonID string, lease time.Duration, log *zap.Logger) (*fleet.Owner, error) {
	pg, ok := db.(*postgres.DB)
	if daemonID == "" || !ok {
		return nil, nil
	}
	return fleet.NewOwner(fleet.OwnerConfig{Pool: pg.Pool(), Self: daemonID, Lease: lease, Logger: log})
}

// orchestratorFleet keeps a nil owner a nil interface.
func orchestratorFleet(o *fleet.Owner) orchestrator.Fleet {
	if o == nil {
		return nil
	}
	return o
}
