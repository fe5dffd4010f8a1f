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

// Own makes this store the database's only daemon until Close: a session
// advisory lock, held on a connection of its own. A second daemon on the
// same database — from another data dir or another machine — is refused
// with ErrInUse naming the holder, as the data dir's lock refuses a second
// daemon on one data dir. (Tools that only copy, like migrate-store, do
// not take it.)
func (db *DB) Own(ctx context.Context) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return db.fail(ctx, err)
	}
	conn := c.Hijack() // out of the pool: it lives as long as the lock
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", int64(ownLock)).Scan(&got); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return db.fail(ctx, err)
	}
	if !got {
		holder := db.holder(ctx, conn)
		_ = conn.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("%w (%s): %s; stop it first, or give this one a database of its own", ErrInUse, holder, db.name)
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

// release closes the owner connection, which drops the lock.
func (db *DB) release() {
	db.ownMu.Lock()
	defer db.ownMu.Unlock()
	if db.owner != nil {
		_ = db.owner.Close(context.Background())
		db.owner = nil
	}
}
