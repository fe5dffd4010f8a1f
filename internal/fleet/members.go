package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// ErrUnavailable: the fleet's membership could not be read or written (the
// database is unreachable or refused the statement).
var ErrUnavailable = errors.New("fleet: membership unavailable")

// Health of a member.
const (
	HealthLive    = "live"    // its lease is current
	HealthExpired = "expired" // its lease ran out: it died or lost the database
	HealthStopped = "stopped" // it shut down cleanly
)

// Member is one daemon as the fleet sees it.
type Member struct {
	ID            string    `json:"id"`
	Addr          string    `json:"addr"`
	Hostname      string    `json:"hostname,omitempty"`
	Health        string    `json:"health"`
	Self          bool      `json:"self"`
	Load          int       `json:"load"`
	MaxAgents     int       `json:"max_agents"`
	Profiles      []string  `json:"profiles"`
	StartedAt     time.Time `json:"started_at"`
	LastHeartbeat time.Time `json:"last_heartbeat"`
	ExpiresAt     time.Time `json:"expires_at"`
}

// Lister lists the fleet's members: live first, then by id.
type Lister interface {
	Members(ctx context.Context) ([]Member, error)
}

// LoadFunc reports the daemon's current load: its live agent processes.
type LoadFunc func() int

// Local is the fleet of one daemon on the SQLite store: no table, no
// heartbeat; it is always live.
type Local struct {
	Self    Identity
	Load    LoadFunc
	Started time.Time
	Clock   quartz.Clock // default: the real clock
}

// Members returns just this daemon.
func (l *Local) Members(context.Context) ([]Member, error) {
	clk := l.Clock
	if clk == nil {
		clk = quartz.NewReal()
	}
	now := clk.Now().UTC()
	load := 0
	if l.Load != nil {
		load = l.Load()
	}
	return []Member{{
		ID: l.Self.ID, Addr: l.Self.Addr, Hostname: l.Self.Hostname, Health: HealthLive, Self: true,
		Load: load, MaxAgents: l.Self.MaxAgents, Profiles: nonNil(l.Self.Profiles),
		StartedAt: l.Started.UTC(), LastHeartbeat: now, ExpiresAt: now,
	}}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// DefaultLease is how long a heartbeat keeps a member live.
const DefaultLease = 15 * time.Second

// Config of a Registry.
type Config struct {
	Pool *pgxpool.Pool // the store's pool; required
	Self Identity      // required
	Load LoadFunc      // nil: always 0
	// Lease is how long one heartbeat keeps this daemon live; it is renewed
	// every Lease/3. Default DefaultLease; at least 1s.
	Lease  time.Duration
	Clock  quartz.Clock // paces the heartbeat only; expiries are the database's
	Logger *zap.Logger
}

// Registry is this daemon's membership of a PostgreSQL fleet: Start joins
// (the first heartbeat) and starts the heartbeat loop, Close stops it and
// marks the member stopped. Members lists everyone.
type Registry struct {
	cfg Config

	mu      sync.Mutex
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{}
	closed  bool
}

// New checks cfg. Nothing is written until Start.
func New(cfg Config) (*Registry, error) {
	if cfg.Pool == nil {
		return nil, errors.New("fleet: a pool is required")
	}
	if err := cfg.Self.validate(); err != nil {
		return nil, err
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Lease < time.Second {
		return nil, fmt.Errorf("fleet: lease must be at least 1s, got %v", cfg.Lease)
	}
	if cfg.Clock == nil {
		cfg.Clock = quartz.NewReal()
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return &Registry{cfg: cfg}, nil
}

// Start joins the fleet with a first heartbeat (its error is returned: a
// daemon that cannot join does not start) and then renews the lease every
// Lease/3 until Close. A failed renewal is logged and retried at the next
// tick; past Lease the fleet sees this daemon as expired.
func (r *Registry) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.done != nil {
		return errors.New("fleet: registry already started or closed")
	}
	r.started = r.cfg.Clock.Now()
	if err := r.heartbeat(ctx, true); err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel, r.done = cancel, make(chan struct{})
	go r.loop(lctx, r.done) // owned: Close cancels it and waits for done
	return nil
}

func (r *Registry) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := r.cfg.Clock.NewTicker(r.cfg.Lease/3, "fleet", "heartbeat")
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		hctx, cancel := context.WithTimeout(ctx, r.cfg.Lease/3)
		err := r.heartbeat(hctx, false)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil:
			if !failing {
				r.cfg.Logger.Warn("fleet heartbeat failed; retrying every lease/3", zap.Error(err), zap.Duration("lease", r.cfg.Lease))
			}
			failing = true
		case err == nil && failing:
			r.cfg.Logger.Info("fleet heartbeat recovered")
			failing = false
		}
	}
}

// heartbeat renews this daemon's row: expires_at = now() + lease, by the
// database's clock. join also resets started_at and stopped.
func (r *Registry) heartbeat(ctx context.Context, join bool) error {
	s := r.cfg.Self
	load := 0
	if r.cfg.Load != nil {
		load = max(r.cfg.Load(), 0)
	}
	_, err := r.cfg.Pool.Exec(ctx, `INSERT INTO fleet_members
			(id, addr, hostname, profiles, max_agents, load, started_at, heartbeat_at, expires_at, stopped)
		VALUES ($1, $2, $3, $4, $5, $6, now(), now(), now() + $7::bigint * interval '1 microsecond', false)
		ON CONFLICT (id) DO UPDATE SET addr = EXCLUDED.addr, hostname = EXCLUDED.hostname,
			profiles = EXCLUDED.profiles, max_agents = EXCLUDED.max_agents, load = EXCLUDED.load,
			started_at = CASE WHEN $8 THEN EXCLUDED.started_at ELSE fleet_members.started_at END,
			heartbeat_at = EXCLUDED.heartbeat_at, expires_at = EXCLUDED.expires_at, stopped = false`,
		s.ID, s.Addr, s.Hostname, nonNil(s.Profiles), s.MaxAgents, load, r.cfg.Lease.Microseconds(), join)
	if err != nil {
		return fmt.Errorf("%w: heartbeat: %w", ErrUnavailable, err)
	}
	return nil
}

// Close stops the heartbeat and marks this daemon stopped, its lease
// ended now, so the fleet need not wait for it to expire. Safe to call
// more than once.
func (r *Registry) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	cancel, done := r.cancel, r.done
	r.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	<-done
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_, err := r.cfg.Pool.Exec(ctx, `UPDATE fleet_members SET stopped = true, expires_at = least(expires_at, now()) WHERE id = $1`, r.cfg.Self.ID)
	if err != nil {
		return fmt.Errorf("%w: leave: %w", ErrUnavailable, err)
	}
	return nil
}

// Members lists every daemon that ever joined: live ones first, then by
// id. Health is judged by the database's clock.
func (r *Registry) Members(ctx context.Context) ([]Member, error) {
	rows, err := r.cfg.Pool.Query(ctx, `SELECT id, addr, hostname, profiles, max_agents, load,
			started_at, heartbeat_at, expires_at, stopped, expires_at > now()
		FROM fleet_members ORDER BY (NOT stopped AND expires_at > now()) DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		var stopped, live bool
		if err := rows.Scan(&m.ID, &m.Addr, &m.Hostname, &m.Profiles, &m.MaxAgents, &m.Load,
			&m.StartedAt, &m.LastHeartbeat, &m.ExpiresAt, &stopped, &live); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		switch {
		case stopped:
			m.Health = HealthStopped
		case live:
			m.Health = HealthLive
		default:
			m.Health = HealthExpired
		}
		m.Self = m.ID == r.cfg.Self.ID
		m.Profiles = nonNil(m.Profiles)
		m.StartedAt, m.LastHeartbeat, m.ExpiresAt = m.StartedAt.UTC(), m.LastHeartbeat.UTC(), m.ExpiresAt.UTC()
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if out == nil {
		out = []Member{}
	}
	return out, nil
}
