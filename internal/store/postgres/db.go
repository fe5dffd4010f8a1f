// Package postgres is the PostgreSQL store of orchestratord: the same
// records, guarantees and errors as internal/store's SQLite store (the
// conformance suite in internal/store/storetest runs against both), in a
// server database that a team already operates, backs up and monitors.
//
// Open connects a pgx pool, applies the embedded migrations under an
// advisory lock (two daemons starting together migrate once) and refuses a
// database written by a newer orchestratord (store.ErrSchemaTooNew). Each
// guarantee has the PostgreSQL idiom:
//   - AppendEvent appends the event and applies its effect in one
//     transaction that first advances sessions.last_seq from Seq-1 to Seq;
//     a concurrent writer of the same seq waits for the row lock and then
//     matches nothing (store.ErrSeqConflict). A streamed chunk, the hot
//     path, is a single statement (data-modifying CTEs): one round trip.
//   - ClaimPendingRetry is one conditional UPDATE … RETURNING: exactly one
//     of any number of racers gets true.
//   - ClaimPendingRetries claims any number in one statement (arrays).
//
// Writes go through the committers (commit.go): the writes that arrive
// together are sent as one pgx.Batch, in one transaction and one round
// trip, and share one commit (group commit); each caller still gets its
// own answer, and one write's failure (a seq conflict, a claimed retry)
// fails no other. pgx prepares every statement once per connection and
// keeps it (its default statement cache), so a hot statement is not
// parsed or planned again.
//
// Durability: every write is durable when it returns, as the server's
// synchronous_commit says (on by default: the commit waits for its WAL
// flush), except streamed text. A chunk (AppendEvent with AppendText only)
// commits with synchronous_commit=off: it does not wait for the flush,
// which on a real disk costs milliseconds per chunk, and a crash of the
// server or the machine may lose the last few hundred milliseconds of
// streamed text — never a state change, a retry, a claim or consistency
// (WAL order is kept: a later durable commit flushes every earlier chunk).
// That is the SQLite store's promise (synchronous=NORMAL). A URL that sets
// synchronous_commit (…?synchronous_commit=on) applies it to chunks too.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orchestratord/orchestratord/internal/store"
)

// DefaultMaxConns is the pool size unless the URL sets pool_max_conns:
// enough for many sessions streaming at once, few enough for a shared
// server's max_connections.
const DefaultMaxConns = 16

// DB is the PostgreSQL store. Every method is safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool
	name string // the URL without its password, for errors and logs

	// asyncChunks: streamed chunks commit without waiting for their WAL
	// flush, unless the URL sets synchronous_commit itself.
	asyncChunks bool

	ownMu sync.Mutex
	owner *pgx.Conn // holds the advisory lock of Own

	// The committers (commit.go): writes queue on jobs.
	jobs       chan *job
	stopCommit chan struct{}
	commitWG   sync.WaitGroup

	health    health
	closed    atomic.Bool
	closeOnce sync.Once
}

// IsURL reports whether s names a PostgreSQL database (postgres:// or
// postgresql://).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database of dsn (a postgres:// URL or a libpq
// key=value string), migrates it to this binary's schema and returns the
// store. A database whose schema is newer than this binary is refused with
// a *store.SchemaTooNewError and left untouched.
func Open(ctx context.Context, dsn string, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: postgres url: %w", store.ErrInvalid, err)
	}
	for _, o := range opts {
		o(cfg)
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		host, _ := os.Hostname()
		cfg.ConnConfig.RuntimeParams["application_name"] = fmt.Sprintf("orchestratord pid %d on %.30s", os.Getpid(), host)
	}
	// Every statement's time zone and text comparison are ours, whatever
	// the server's defaults.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	_, syncSet := cfg.ConnConfig.RuntimeParams["synchronous_commit"]
	db := &DB{name: Redact(dsn), asyncChunks: !syncSet, health: health{state: store.WriteHealth{Writable: true}, now: time.Now}}
	db.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: postgres %s: %w", db.name, err)
	}
	if err := db.migrate(ctx); err != nil {
		db.pool.Close()
		return nil, err
	}
	db.startCommitter()
	return db, nil
}

// Redact drops the password of a URL (for logs).
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "(postgres)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Name is the database's URL without its password (for logs).
func (db *DB) Name() string { return db.name }

// Pool is the connection pool, for tools (migrate-store) and tests.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Close waits for writes and statements in flight and closes the pool; it is safe to
// call more than once. Every other method returns store.ErrClosed afterwards.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.closed.Store(true)
		db.stopCommitter()
		db.release()
		db.pool.Close()
	})
	return nil
}

// usable fails fast after Close or with a done context.
func (db *DB) usable(ctx context.Context) error {
	if db.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// fail adds store.ErrClosed to an error caused by a concurrent Close and
// the context's error to one it caused.
func (db *DB) fail(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	err = fenced(err)
	if db.closed.Load() && !errors.Is(err, store.ErrClosed) {
		return fmt.Errorf("%w: %w", store.ErrClosed, err)
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// write runs fn in one transaction (read committed) of its own, retrying a
// few times when the server reports a deadlock or a serialization failure;
// any error from fn rolls everything back. For a write that must read
// between its statements; the others go through the committers (exec,
// submit), which send them without waiting for each statement's answer.
func (db *DB) write(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	var err error
	for try := 0; ; try++ {
		err = pgx.BeginFunc(ctx, db.pool, fn)
		if try < 3 && retryable(err) {
			continue
		}
		break
	}
	return db.fail(ctx, db.note(err))
}

// exec runs one statement as a write, through the committers: it may
// share its transaction and its commit with other writes.
func (db *DB) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	s := &stmt{sql: sql, args: args}
	if err := db.submit(ctx, false, s); err != nil {
		return pgconn.CommandTag{}, err
	}
	return s.tag, nil
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// mapConstraint turns key violations into the store's sentinels.
func mapConstraint(err error, what string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23503": // foreign_key_violation
			return fmt.Errorf("%w: %s refers to a missing row: %w", store.ErrNotFound, what, err)
		case "23505": // unique_violation
			return fmt.Errorf("%w: %s: %w", store.ErrExists, what, err)
		}
	}
	return err
}

// query runs a multi-row read and calls each for every row; each may stop
// the scan early with an error (errStop ends it without one).
func (db *DB) query(ctx context.Context, each func(pgx.Rows) error, sql string, args ...any) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	return db.fail(ctx, queryRows(ctx, db.pool, each, sql, args...))
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

var errStop = errors.New("stop")

func queryRows(ctx context.Context, q querier, each func(pgx.Rows) error, sql string, args ...any) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return rows.Err()
}

// getRow reads one row; a missing row is store.ErrNotFound naming what.
func (db *DB) getRow(ctx context.Context, scan func(pgx.Row) error, what, sql string, args ...any) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	err := scan(db.pool.QueryRow(ctx, sql, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %s", store.ErrNotFound, what)
	}
	return db.fail(ctx, err)
}
