package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ownLock is the key of the advisory lock a daemon holds on its database
// for its whole life ("orche" in ASCII).
const ownLock = 0x6f72636865

// ErrInUse: another orchestratord holds the database.
var ErrInUse = errors.New("store: the database is in use by another orchestratord")

// OwnMode says how a daemon holds its database.
type OwnMode int

const (
	// OwnAlone: the database's only daemon (an exclusive advisory lock).
	OwnAlone OwnMode = iota
	// OwnShared: one daemon of a fleet (--fleet): the lock is shared, so
	// the fleet's daemons run side by side, each session owned by lease
	// (internal/fleet), while a daemon that wants the database alone, and
	// migrate-store, are still refused.
	OwnShared
)

// Own holds the database for this daemon until Close: a session advisory
// lock, held on a connection of its own. With OwnAlone a second daemon on
// the same database — from another data dir or another machine — is
// refused with ErrInUse naming the holder, as the data dir's lock refuses
// a second daemon on one data dir; with OwnShared only a daemon that holds
// it alone is. (Tools that only copy, like migrate-store, take it for
// their transaction.)
func (db *DB) Own(ctx context.Context, mode OwnMode) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return db.fail(ctx, err)
	}
	conn := c.Hijack() // out of the pool: it lives as long as the lock
	var got bool
	lock := "SELECT pg_try_advisory_lock($1)"
	if mode == OwnShared {
		lock = "SELECT pg_try_advisory_lock_shared($1)"
	}
	if err := conn.QueryRow(ctx, lock, int64(ownLock)).Scan(&got); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return db.fail(ctx, err)
	}
	if !got {
		holder := db.holder(ctx, conn)
		_ = conn.Close(context.WithoutCancel(ctx))
		if mode == OwnShared {
			return fmt.Errorf("%w (%s), which holds it alone: %s; stop it, or start every daemon of the fleet with --fleet", ErrInUse, holder, db.name)
		}
		return fmt.Errorf("%w (%s): %s; stop it first, give this one a database of its own, or run them all as one fleet (--fleet)", ErrInUse, holder, db.name)
	}
	db.ownMu.Lock()
	db.owner = conn
	db.ownMu.Unlock()
	return nil
}

// holder describes the session that holds the lock, for the refusal.
func (db *DB) holder(ctx context.Context, conn *pgx.Conn) string {
	var app, addr string
	var since time.Time
	err := conn.QueryRow(ctx, `SELECT a.application_name, coalesce(host(a.client_addr), 'local socket'), a.backend_start
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND ((l.classid::bigint << 32) | l.objid::bigint) = $1
		LIMIT 1`, int64(ownLock)).Scan(&app, &addr, &since)
	if err != nil {
		return "holder unknown"
	}
	return fmt.Sprintf("%s from %s, connected %s", app, addr, since.UTC().Format(time.RFC3339))
}

// release drops the lock, then closes the owner connection. The explicit
// unlock makes the lock free when Close returns: closing alone frees it
// only once the server's backend has exited, which a daemon started right
// after this one could still find held.
func (db *DB) release() {
	db.ownMu.Lock()
	defer db.ownMu.Unlock()
	if db.owner != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = db.owner.Exec(ctx, "SELECT pg_advisory_unlock_all()")
		cancel()
		_ = db.owner.Close(context.Background())
		db.owner = nil
	}
}
