package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// One overload gate per provider key for the whole fleet (issue 17). Each
// daemon keeps an overload.Gate for its own sessions; the database holds
// what they share:
//
//   - fleet_gates: one row per open gate — when it opened (identifying
//     this opening) and its probe schedule;
//   - the probe right: the lease (GateLeaseKind, key) in fleet_leases. Its
//     holder sends the probes and writes the schedule, fenced by the
//     lease; when it dies the lease expires and a daemon with waiting
//     sessions takes it over, schedule and all;
//   - fleet_gate_waiters: how many sessions wait on each daemon, so the
//     probe cadence counts the whole fleet's;
//   - a NOTIFY on GateChannel (payload: the key) when a gate opens or
//     closes, so every daemon releases its waiters as soon as the probe
//     succeeded anywhere.

// GateLeaseKind is the lease kind of a gate's probe right; its key is the
// gate key.
const GateLeaseKind = "gate"

// GateChannel is the NOTIFY channel of gate openings and closings.
const GateChannel = "orchestratord_gates"

// DefaultGateTTL is how long the probe right and a daemon's waiting count
// last without renewal.
const DefaultGateTTL = 6 * time.Second

// GateRow is a fleet gate as stored.
type GateRow struct {
	Key          string
	OpenedAt     time.Time // identifies this opening
	NextProbeAt  time.Time
	FailedProbes int
	ProbesSent   int
	Code         string // routing code of the failure that opened it
	// PeersWaiting is read, never written: the sessions waiting on it on
	// the other live daemons.
	PeersWaiting int
}

// Gates is this daemon's view of the fleet's gates.
type Gates struct {
	pool   *pgxpool.Pool
	leases *Leases
	self   string
	ttl    time.Duration
}

// NewGates uses pool (the store's) for daemon self; ttl 0 means
// DefaultGateTTL.
func NewGates(pool *pgxpool.Pool, self string, ttl time.Duration) (*Gates, error) {
	if pool == nil || self == "" {
		return nil, errors.New("fleet: gates need a pool and a daemon id")
	}
	if ttl == 0 {
		ttl = DefaultGateTTL
	}
	if ttl < 10*time.Millisecond {
		return nil, fmt.Errorf("fleet: gate ttl must be at least 10ms, got %v", ttl)
	}
	return &Gates{pool: pool, leases: NewLeases(pool), self: self, ttl: ttl}, nil
}

// Self is this daemon's id.
func (g *Gates) Self() string { return g.self }

// TTL is how long the probe right and a waiting count last unrenewed.
func (g *Gates) TTL() time.Duration { return g.ttl }

// micro is t as timestamptz keeps it, so that a time read back compares
// equal to the one written.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

const gateRowColumns = `g.key, g.opened_at, g.next_probe_at, g.failed_probes, g.probes_sent, g.code,
	coalesce((SELECT sum(w.waiting) FROM fleet_gate_waiters w
		WHERE w.key = g.key AND w.daemon <> $1 AND w.opened_at = g.opened_at AND w.expires_at > now()), 0)`

func scanGateRow(r pgx.Row) (GateRow, error) {
	var row GateRow
	var peers int64
	if err := r.Scan(&row.Key, &row.OpenedAt, &row.NextProbeAt, &row.FailedProbes, &row.ProbesSent, &row.Code, &peers); err != nil {
		return GateRow{}, err
	}
	row.OpenedAt, row.NextProbeAt, row.PeersWaiting = row.OpenedAt.UTC(), row.NextProbeAt.UTC(), int(peers)
	return row, nil
}

// List returns every open fleet gate by key, with the sessions waiting on
// it on the other live daemons.
func (g *Gates) List(ctx context.Context) ([]GateRow, error) {
	rows, err := g.pool.Query(ctx, `SELECT `+gateRowColumns+` FROM fleet_gates g ORDER BY g.key`, g.self)
	if err != nil {
		return nil, fmt.Errorf("%w: list gates: %w", ErrUnavailable, err)
	}
	defer rows.Close()
	out := []GateRow{}
	for rows.Next() {
		row, err := scanGateRow(rows)
		if err != nil {
			return nil, fmt.Errorf("%w: list gates: %w", ErrUnavailable, err)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: list gates: %w", ErrUnavailable, err)
	}
	return out, nil
}

// Open opens key's fleet gate with row's opening time and schedule unless
// it is open already, and returns the fleet's gate: row, or the one some
// daemon opened first (then opened is false).
func (g *Gates) Open(ctx context.Context, row GateRow) (fleetRow GateRow, opened bool, err error) {
	if row.Key == "" {
		return GateRow{}, false, errors.New("fleet: open gate: no key")
	}
	for range 3 { // a gate closed between the insert and the read is opened again
		tag, err := g.pool.Exec(ctx, `WITH ins AS (
				INSERT INTO fleet_gates (key, opened_at, next_probe_at, failed_probes, probes_sent, code)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key) DO NOTHING RETURNING key)
			SELECT pg_notify($7, key) FROM ins`,
			row.Key, micro(row.OpenedAt), micro(row.NextProbeAt), row.FailedProbes, row.ProbesSent, row.Code, GateChannel)
		if err != nil {
			return GateRow{}, false, fmt.Errorf("%w: open gate %s: %w", ErrUnavailable, row.Key, err)
		}
		fleetRow, err = scanGateRow(g.pool.QueryRow(ctx, `SELECT `+gateRowColumns+` FROM fleet_gates g WHERE g.key = $2`, g.self, row.Key))
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return GateRow{}, false, fmt.Errorf("%w: open gate %s: %w", ErrUnavailable, row.Key, err)
		}
		return fleetRow, tag.RowsAffected() == 1, nil
	}
	return GateRow{}, false, fmt.Errorf("%w: open gate %s: it keeps closing", ErrUnavailable, row.Key)
}

// Report says that waiting sessions of this daemon wait on the opening
// openedAt of key's gate, for TTL (renew it sooner). 0 waiting is kept:
// it says this daemon follows the gate with nobody waiting.
func (g *Gates) Report(ctx context.Context, key string, openedAt time.Time, waiting int) error {
	_, err := g.pool.Exec(ctx, `INSERT INTO fleet_gate_waiters (key, daemon, opened_at, waiting, expires_at)
		VALUES ($1, $2, $3, $4, now() + $5::bigint * interval '1 microsecond')
		ON CONFLICT (key, daemon) DO UPDATE SET opened_at = EXCLUDED.opened_at, waiting = EXCLUDED.waiting,
			expires_at = EXCLUDED.expires_at`,
		key, g.self, micro(openedAt), max(waiting, 0), g.ttl.Microseconds())
	if err != nil {
		return fmt.Errorf("%w: report gate %s: %w", ErrUnavailable, key, err)
	}
	return nil
}

// Leave drops this daemon's waiting count of key.
func (g *Gates) Leave(ctx context.Context, key string) error {
	if _, err := g.pool.Exec(ctx, `DELETE FROM fleet_gate_waiters WHERE key = $1 AND daemon = $2`, key, g.self); err != nil {
		return fmt.Errorf("%w: leave gate %s: %w", ErrUnavailable, key, err)
	}
	return nil
}

// Schedule writes the probe schedule of the opening row.OpenedAt of the
// gate, as the holder of lease (its probe right). ErrLeaseLost when the
// lease has passed on or the gate has closed: the caller stops probing.
func (g *Gates) Schedule(ctx context.Context, lease Lease, row GateRow) error {
	tag, err := g.pool.Exec(ctx, `UPDATE fleet_gates SET next_probe_at = $3, failed_probes = $4, probes_sent = $5, updated_at = now()
		WHERE key = $1 AND opened_at = $2 AND EXISTS (SELECT 1 FROM fleet_leases l
			WHERE l.kind = $6 AND l.key = $1 AND l.holder = $7 AND l.fence = $8 AND l.expires_at > now())`,
		row.Key, micro(row.OpenedAt), micro(row.NextProbeAt), row.FailedProbes, row.ProbesSent,
		GateLeaseKind, lease.Holder, lease.Fence)
	if err != nil {
		return fmt.Errorf("%w: schedule gate %s: %w", ErrUnavailable, row.Key, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: gate %s (fence %d)", ErrLeaseLost, row.Key, lease.Fence)
	}
	return nil
}

// Close closes the opening openedAt of key's gate — its probe succeeded
// here, or nobody in the fleet waits on it any more — and tells every
// daemon. closed is false when that opening had closed already.
func (g *Gates) Close(ctx context.Context, key string, openedAt time.Time) (closed bool, err error) {
	err = pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM fleet_gates WHERE key = $1 AND opened_at = $2`, key, micro(openedAt))
		if err != nil {
			return err
		}
		closed = tag.RowsAffected() == 1
		if _, err := tx.Exec(ctx, `DELETE FROM fleet_gate_waiters WHERE key = $1 AND (daemon = $2 OR opened_at = $3)`,
			key, g.self, micro(openedAt)); err != nil {
			return err
		}
		if closed {
			_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, GateChannel, key)
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("%w: close gate %s: %w", ErrUnavailable, key, err)
	}
	return closed, nil
}

// AcquireProbe takes key's probe right for TTL, when nobody else holds it.
func (g *Gates) AcquireProbe(ctx context.Context, key string) (Lease, bool, error) {
	return g.leases.Acquire(ctx, GateLeaseKind, key, g.self, g.ttl)
}

// RenewProbe extends the probe right by TTL; ErrLeaseLost when it is gone.
func (g *Gates) RenewProbe(ctx context.Context, lease Lease) (Lease, error) {
	return g.leases.Renew(ctx, lease, g.ttl)
}

// ReleaseProbe gives the probe right up at once (nobody waits here any
// more, or the gate closed), so a daemon with waiting sessions takes it.
func (g *Gates) ReleaseProbe(ctx context.Context, lease Lease) error {
	err := g.leases.Release(ctx, lease)
	if errors.Is(err, ErrLeaseLost) {
		return nil // it is not ours any more either way
	}
	return err
}
