package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrLeaseLost: the lease expired, was taken over or released; its holder
// must stop acting on it.
var ErrLeaseLost = errors.New("fleet: lease lost")

// Lease is a held row lease. Fence grows on every change of holder and is
// never reused, so a write that carries it can be refused once the lease
// has passed on (WHERE fence = $fence).
type Lease struct {
	Kind      string
	Key       string
	Holder    string
	Fence     int64
	ExpiresAt time.Time // by the database's clock
}

// Leases are row leases on fleet_leases: one holder per (kind, key) at a
// time, each lease ending at expires_at by the database's clock unless
// renewed. They are the primitive of session ownership (kind "session")
// and of a fleet-wide probe (kind "gate").
type Leases struct {
	pool *pgxpool.Pool
}

// NewLeases uses pool (the store's).
func NewLeases(pool *pgxpool.Pool) *Leases { return &Leases{pool: pool} }

func micros(ttl time.Duration) (int64, error) {
	if ttl < time.Millisecond {
		return 0, fmt.Errorf("fleet: lease ttl must be at least 1ms, got %v", ttl)
	}
	return ttl.Microseconds(), nil
}

func validKey(kind, key, holder string) error {
	if kind == "" || key == "" || holder == "" {
		return fmt.Errorf("fleet: lease needs a kind, a key and a holder (got %q, %q, %q)", kind, key, holder)
	}
	return nil
}

// Acquire takes (kind, key) for holder for ttl when it is free, expired,
// or already holder's (then it is renewed with the same fence). ok is
// false when another holder's lease is current. Of any number of racers
// for a free or expired lease exactly one gets ok: the insert or update
// locks the row and the others, re-checking after it commits, find it
// held.
func (l *Leases) Acquire(ctx context.Context, kind, key, holder string, ttl time.Duration) (lease Lease, ok bool, err error) {
	if err := validKey(kind, key, holder); err != nil {
		return Lease{}, false, err
	}
	us, err := micros(ttl)
	if err != nil {
		return Lease{}, false, err
	}
	lease = Lease{Kind: kind, Key: key, Holder: holder}
	err = l.pool.QueryRow(ctx, `INSERT INTO fleet_leases AS l (kind, key, holder, fence, acquired_at, expires_at)
		VALUES ($1, $2, $3, 1, now(), now() + $4::bigint * interval '1 microsecond')
		ON CONFLICT (kind, key) DO UPDATE SET
			fence = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > now() THEN l.fence ELSE l.fence + 1 END,
			acquired_at = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > now() THEN l.acquired_at ELSE now() END,
			holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
		WHERE l.expires_at <= now() OR l.holder = EXCLUDED.holder
		RETURNING fence, expires_at`, kind, key, holder, us).Scan(&lease.Fence, &lease.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, fmt.Errorf("%w: acquire lease %s/%s: %w", ErrUnavailable, kind, key, err)
	}
	lease.ExpiresAt = lease.ExpiresAt.UTC()
	return lease, true, nil
}

// Renew extends a current lease by ttl from now. A lease that expired,
// even one nobody has taken yet, is not renewed: its holder may already
// have been judged dead. ErrLeaseLost then.
func (l *Leases) Renew(ctx context.Context, lease Lease, ttl time.Duration) (Lease, error) {
	us, err := micros(ttl)
	if err != nil {
		return lease, err
	}
	err = l.pool.QueryRow(ctx, `UPDATE fleet_leases SET expires_at = now() + $5::bigint * interval '1 microsecond'
		WHERE kind = $1 AND key = $2 AND holder = $3 AND fence = $4 AND expires_at > now()
		RETURNING expires_at`, lease.Kind, lease.Key, lease.Holder, lease.Fence, us).Scan(&lease.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return lease, fmt.Errorf("%w: %s/%s (fence %d)", ErrLeaseLost, lease.Kind, lease.Key, lease.Fence)
	}
	if err != nil {
		return lease, fmt.Errorf("%w: renew lease %s/%s: %w", ErrUnavailable, lease.Kind, lease.Key, err)
	}
	lease.ExpiresAt = lease.ExpiresAt.UTC()
	return lease, nil
}

// Release ends a lease now, so another holder may take it at once. The
// row stays (its fence keeps counting). Releasing a lease already lost is
// ErrLeaseLost.
func (l *Leases) Release(ctx context.Context, lease Lease) error {
	tag, err := l.pool.Exec(ctx, `UPDATE fleet_leases SET holder = '', expires_at = now()
		WHERE kind = $1 AND key = $2 AND holder = $3 AND fence = $4 AND expires_at > now()`,
		lease.Kind, lease.Key, lease.Holder, lease.Fence)
	if err != nil {
		return fmt.Errorf("%w: release lease %s/%s: %w", ErrUnavailable, lease.Kind, lease.Key, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %s/%s (fence %d)", ErrLeaseLost, lease.Kind, lease.Key, lease.Fence)
	}
	return nil
}

// TakeExpiredShare takes over up to limit expired leases of kind for
// holder, oldest expiry first: the failover of a dead daemon's work. It
// takes holder's share of them, so that the live daemons of the fleet
// split a dead one's work between them instead of the first to look
// taking it all. Each lease's key hashes to one live member, members
// weighted by their room (max_agents - load, at least 1). Liveness is the
// heartbeat lease in fleet_members and nothing else: a live daemon that
// let one of its own leases run out (a renewal lost to a database hiccup)
// is still live and still takes only its share, and a dead one whose
// heartbeat has not run out yet keeps its share for a moment. A lease
// still expired grace after its expiry is anyone's (its taker died too,
// or the members disagreed for a moment), as is every lease when holder
// is not a live member itself.
//
// Rows another taker is taking at the same moment are skipped (FOR UPDATE
// SKIP LOCKED), so any number of takers share the expired leases without
// waiting for each other and none is taken twice. A released lease (no
// holder) is nobody's work and is left for whoever needs it next
// (Acquire).
func (l *Leases) TakeExpiredShare(ctx context.Context, kind, holder string, ttl, grace time.Duration, limit int) ([]Lease, error) {
	if grace <= 0 {
		return nil, fmt.Errorf("fleet: take grace must be positive, got %v", grace)
	}
	if err := validKey(kind, "-", holder); err != nil {
		return nil, err
	}
	us, err := micros(ttl)
	if err != nil {
		return nil, err
	}
	if limit < 1 {
		return nil, fmt.Errorf("fleet: take limit must be at least 1, got %d", limit)
	}
	rows, err := l.pool.Query(ctx, shareSQL, kind, holder, us, limit, grace.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("%w: take expired %s leases: %w", ErrUnavailable, kind, err)
	}
	defer rows.Close()
	var out []Lease
	for rows.Next() {
		ls := Lease{Kind: kind, Holder: holder}
		if err := rows.Scan(&ls.Key, &ls.Fence, &ls.ExpiresAt); err != nil {
			return nil, fmt.Errorf("%w: take expired %s leases: %w", ErrUnavailable, kind, err)
		}
		ls.ExpiresAt = ls.ExpiresAt.UTC()
		out = append(out, ls)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: take expired %s leases: %w", ErrUnavailable, kind, err)
	}
	return out, nil
}

// shareSQL selects the expired leases of $1 that are $2's to take, those
// expired $5 µs (the grace) ago being anyone's.
const shareSQL = `WITH live AS (
		SELECT id, greatest(max_agents - load, 1)::bigint AS w FROM fleet_members
		WHERE NOT stopped AND expires_at > now()),
	me AS (
		SELECT coalesce(sum(w), 0) AS total, coalesce(sum(w) FILTER (WHERE id < $2), 0) AS lo,
			coalesce(sum(w) FILTER (WHERE id = $2), 0) AS w FROM live),
	expired AS (
		SELECT l.kind, l.key FROM fleet_leases l, me
		WHERE l.kind = $1 AND l.expires_at <= now() AND l.holder <> ''
			AND (me.w = 0 OR l.expires_at <= now() - $5::bigint * interval '1 microsecond'
				OR (hashtext(l.key)::bigint & 2147483647) % me.total BETWEEN me.lo AND me.lo + me.w - 1)
		ORDER BY l.expires_at, l.key LIMIT $4
		FOR UPDATE OF l SKIP LOCKED)
	UPDATE fleet_leases l SET holder = $2, fence = l.fence + 1, acquired_at = now(),
		expires_at = now() + $3::bigint * interval '1 microsecond'
	FROM expired WHERE l.kind = expired.kind AND l.key = expired.key
	RETURNING l.key, l.fence, l.expires_at`

// NextExpiry is how long until the first current lease of kind held by
// another daemon than holder runs out, by the database's clock; ok false
// when there is none.
func (l *Leases) NextExpiry(ctx context.Context, kind, holder string) (in time.Duration, ok bool, err error) {
	var us *int64
	err = l.pool.QueryRow(ctx, `SELECT (extract(epoch FROM min(expires_at) - now()) * 1000000)::bigint FROM fleet_leases
		WHERE kind = $1 AND holder <> '' AND holder <> $2 AND expires_at > now()`, kind, holder).Scan(&us)
	if err != nil {
		return 0, false, fmt.Errorf("%w: next %s lease expiry: %w", ErrUnavailable, kind, err)
	}
	if us == nil {
		return 0, false, nil
	}
	return time.Duration(max(*us, 0)) * time.Microsecond, true, nil
}
