package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

// FileName is the data file inside the data directory.
const FileName = "orchestratord.db"

// busyTimeoutMS bounds how long a connection waits for a lock held by
// another connection (a checkpoint, a reader during WAL recovery, or a
// second process) before SQLITE_BUSY. Writers inside this process never
// reach it: they queue for the single writer connection instead.
const busyTimeoutMS = "10000"

// readerConns is the size of the read pool. WAL readers run concurrently
// with the writer and with each other; a few are plenty for snapshots and
// replays.
const readerConns = 4

// DB is the SQLite store. Every method is safe for concurrent use.
type DB struct {
	path string
	opts Options

	// w holds exactly one connection and is the only one that writes.
	// Writers queue for it inside database/sql (honouring their contexts)
	// instead of racing for SQLite's write lock, so concurrent goroutines
	// never see SQLITE_BUSY from each other.
	w *sql.DB
	// r is the read pool (query_only). In WAL mode a reader sees the last
	// committed state and never blocks the writer.
	r *sql.DB
	// hot are the statements AppendEvent runs for every streamed chunk,
	// prepared once on the writer connection.
	hot hotStmts
	// readStmts and writeStmts hold every other statement, prepared on first use
	// (stmts.go).
	readStmts, writeStmts stmtCache
	// writes feeds the committer (commit.go), the writer connection's
	// only user once Open returns.
	writes     chan *writeReq
	stopCommit chan struct{}
	commitDone chan struct{}

	// health is the write health and the maintenance loop's state
	// (health.go): WAL checkpoints when idle or after a failed write.
	health       health
	stopMaintain context.CancelFunc
	maintainDone chan struct{}

	// inGroup is set while the committer runs an optimistic group; the
	// writer's commit hook refuses every commit meanwhile (commit.go).
	inGroup atomic.Bool

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error // result of the first Close
}

// Open opens (creating if needed) dir/orchestratord.db, applies embedded
// migrations, and refuses a corrupt file or a newer schema with a clear error.
//
// dir is created with mode 0700 if missing, the data file with 0600. A file
// that is not an SQLite database or fails PRAGMA quick_check yields an error
// wrapping ErrCorrupt; a file whose schema is newer than this binary yields
// a *SchemaTooNewError (errors.Is ErrSchemaTooNew). In both cases nothing
// is written to the file: no migration, no journal-mode change, no repair.
func Open(ctx context.Context, dir string) (*DB, error) {
	return OpenWith(ctx, dir, Options{})
}

// Options of OpenWith. The zero value is what Open uses.
type Options struct {
	// ManualMaintenance turns the maintenance loop off: WAL checkpoints and
	// write-health probes happen only when the caller runs Maintain. For
	// tests, which step it themselves.
	ManualMaintenance bool
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dir string, opts Options) (*DB, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: empty data directory", ErrInvalid)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store: data directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)

	ms, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	version, err := probe(ctx, path)
	if err != nil {
		return nil, err
	}
	if version > len(ms) {
		return nil, &SchemaTooNewError{Path: path, Found: version, Known: len(ms)}
	}

	db := &DB{path: path, opts: opts, health: health{state: WriteHealth{Writable: true}, kick: make(chan struct{}, 1), now: time.Now}}
	if err := db.open(ctx, ms); err != nil {
		db.closeAll()
		return nil, err
	}
	return db, nil
}

func (db *DB) open(ctx context.Context, ms []migration) error {
	var err error
	db.w, err = sql.Open("sqlite", dsn(db.path, writerParams()))
	if err != nil {
		return fmt.Errorf("store: open %s: %w", db.path, err)
	}
	db.w.SetMaxOpenConns(1)
	db.w.SetMaxIdleConns(1)

	var mode string
	if err := db.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return db.openErr(err)
	}
	// synchronous=NORMAL is only corruption-safe in WAL mode; SQLite falls
	// back silently where WAL is unavailable (some network file systems).
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("store: %s: journal_mode is %q, want wal (is the data dir on a network file system?)", db.path, mode)
	}
	if err := db.migrate(ctx, ms); err != nil {
		return err
	}

	db.r, err = sql.Open("sqlite", dsn(db.path, readerParams()))
	if err != nil {
		return fmt.Errorf("store: open %s: %w", db.path, err)
	}
	db.r.SetMaxOpenConns(readerConns)
	db.r.SetMaxIdleConns(readerConns)
	if err := db.r.PingContext(ctx); err != nil {
		return db.openErr(err)
	}
	if err := db.hot.prepare(ctx, db.w); err != nil {
		return err
	}
	if err := db.guardCommits(ctx); err != nil {
		return err
	}
	db.startCommitter()
	return db.startMaintenance()
}

// commitHooker is the writer connection of the sqlite driver.
type commitHooker interface {
	RegisterCommitHook(sqlite.CommitHookFn)
}

// guardCommits installs the writer connection's commit hook: no commit
// while an optimistic group runs, but the group's own (commit.go). The
// pool holds that one connection for good (SetMaxIdleConns(1)).
func (db *DB) guardCommits(ctx context.Context) error {
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return db.openErr(err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		h, ok := dc.(commitHooker)
		if !ok {
			return fmt.Errorf("store: the sqlite driver's connection (%T) has no commit hook", dc)
		}
		h.RegisterCommitHook(func() int32 {
			if db.inGroup.Load() {
				return 1 // turns the commit into a rollback
			}
			return 0
		})
		return nil
	})
}

func (db *DB) openErr(err error) error {
	if fe := openFault(db.path, err); fe != nil {
		return fe
	}
	if isCorruption(err) {
		return fmt.Errorf("%w: %s: %w; the file was left untouched", ErrCorrupt, db.path, err)
	}
	return fmt.Errorf("store: open %s: %w", db.path, err)
}

// Close releases the database. It waits for statements in flight, and is
// safe to call more than once; later calls return the first call's result.
// Every other method returns ErrClosed afterwards.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.closed.Store(true)
		db.closeErr = db.closeAll()
	})
	return db.closeErr
}

func (db *DB) closeAll() error {
	errs := []error{db.stopMaintenance()}
	db.stopCommitter()
	errs = append(errs, db.hot.close(), db.readStmts.close(), db.writeStmts.close())
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		// The last connection to close checkpoints the WAL into the file.
		errs = append(errs, db.w.Close())
	}
	return errors.Join(errs...)
}

// Path is the data file's absolute path (for logs and diagnostics).
func (db *DB) Path() string { return db.path }

// dsn builds a file: URI so that any path (spaces, '?', '#') survives; the
// driver reads the _pragma/_txlock parameters, SQLite ignores them.
func dsn(path string, params url.Values) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path}
	return u.String() + "?" + params.Encode()
}

func writerParams() url.Values {
	return url.Values{
		"_pragma": {
			"busy_timeout(" + busyTimeoutMS + ")",
			"foreign_keys(1)",
			"journal_mode(WAL)",
			// NORMAL in WAL mode fsyncs only at checkpoints, not at every
			// commit. It cannot corrupt the database, and a process crash
			// (SIGKILL, panic) loses nothing committed: the WAL is already
			// in the OS. Only an OS crash or power cut can roll back the
			// last few commits. AppendEvent runs for every streamed chunk,
			// and an fsync per chunk (FULL) would cost milliseconds each.
			"synchronous(NORMAL)",
			// Checkpoints every 128 MiB of WAL instead of every 4 MiB: when
			// thousands of sessions write at once (the overload gate
			// releasing them), each of their random pages is checkpointed
			// once, not once per few commits; the checkpoint runs on the
			// committer's path. Measured (10,000 sessions released): 5.4-5.8s
			// and 630 CPU-µs/session instead of 6.1-6.9s and 660-770. An idle
			// WAL is checkpointed to nothing anyway (health.go).
			//
			// The page cache is 8 MiB, not more: a b-tree split that swaps
			// two pages parks one at a temporary page number past 1 GiB, and
			// the commit then scans the cache's whole hash table (SQLite's
			// pcache1TruncateUnsafe), whose size follows the cache's. At
			// 64 MiB that scan was 18% of a gate release's CPU; at 8 MiB the
			// release takes 460-540 CPU-µs/session instead of 520-580, the
			// WAL and the OS cache serving the pages it no longer holds.
			"cache_size(-8192)",
			"wal_autocheckpoint(32768)",
			// A checkpoint leaves the WAL file at its largest; truncate it
			// back to this size.
			"journal_size_limit(67108864)",
			// The committer runs each write of a group in a savepoint (and
			// AppendEvents each batch), and SQLite keeps what a savepoint
			// would roll back in a sub-journal that spills to a temporary
			// file past 64 KiB: two write syscalls per page for a group's
			// transaction, 18% of the CPU of a gate release. In memory
			// instead (a few MiB at most: a group is bounded, maxGroup).
			"temp_store(MEMORY)",
		},
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// never fails half-way with SQLITE_BUSY on lock upgrade when
		// another process holds the file.
		"_txlock": {"immediate"},
	}
}

func readerParams() url.Values {
	return url.Values{
		"_pragma": {
			"busy_timeout(" + busyTimeoutMS + ")",
			"foreign_keys(1)",
			"query_only(1)",
		},
	}
}

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// checkHeader creates a missing data file (empty, 0600: SQLite treats an
// empty file as a new database and gives its -wal/-shm the same mode) and
// refuses an existing one that does not start with the SQLite magic, before
// any SQLite code touches it.
func checkHeader(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return nil // new or empty: a fresh database
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("store: read %s: %w", path, err)
	case !bytes.Equal(head[:n], sqliteMagic):
		return fmt.Errorf("%w: %s is not an SQLite database (bad header); the file was left untouched", ErrCorrupt, path)
	}
	return nil
}

// probe checks the file's integrity and reads its schema version through a
// query_only connection that sets no persistent pragma, so a file we refuse
// is never written to.
func probe(ctx context.Context, path string) (version int, err error) {
	p, err := sql.Open("sqlite", dsn(path, url.Values{
		"_pragma": {"busy_timeout(" + busyTimeoutMS + ")", "query_only(1)"},
	}))
	if err != nil {
		return 0, fmt.Errorf("store: open %s: %w", path, err)
	}
	defer p.Close()
	p.SetMaxOpenConns(1)

	corrupt := func(err error) error {
		if fe := openFault(path, err); fe != nil {
			return fe
		}
		if isCorruption(err) {
			return fmt.Errorf("%w: %s: %w; the file was left untouched", ErrCorrupt, path, err)
		}
		return fmt.Errorf("store: check %s: %w", path, err)
	}
	rows, err := p.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return 0, corrupt(err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return 0, corrupt(err)
		}
		problems = append(problems, line)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, corrupt(err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		if len(problems) > 5 {
			problems = append(problems[:5], "…")
		}
		return 0, fmt.Errorf("%w: %s: quick_check: %s; the file was left untouched",
			ErrCorrupt, path, strings.Join(problems, "; "))
	}
	if err := p.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, corrupt(err)
	}
	return version, nil
}

// usable fails fast after Close.
func (db *DB) usable() error {
	if db.closed.Load() {
		return ErrClosed
	}
	return nil
}

// fail adds ErrClosed to an error caused by a concurrent Close.
func (db *DB) fail(err error) error {
	if err != nil && db.closed.Load() && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}

// read runs fn in one read transaction, so it sees a single snapshot.
func (db *DB) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := db.usable(); err != nil {
		return err
	}
	tx, err := db.r.BeginTx(ctx, nil)
	if err != nil {
		return db.fail(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only; nothing to undo
	return db.fail(fn(tx))
}

// query runs a multi-row read and calls each for every row.
func (db *DB) query(ctx context.Context, each func(scanner) error, query string, args ...any) error {
	if err := db.usable(); err != nil {
		return err
	}
	stmt, err := db.readStmt(ctx, query)
	if err != nil {
		return db.fail(err)
	}
	return db.fail(queryRows(ctx, stmt, each, args...))
}

func queryRows(ctx context.Context, stmt *sql.Stmt, each func(scanner) error, args ...any) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// getRow reads one row; a missing row is ErrNotFound naming what.
func (db *DB) getRow(ctx context.Context, scan func(scanner) error, what, query string, args ...any) error {
	if err := db.usable(); err != nil {
		return err
	}
	stmt, err := db.readStmt(ctx, query)
	if err != nil {
		return db.fail(err)
	}
	err = scan(stmt.QueryRowContext(ctx, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %s", ErrNotFound, what)
	}
	return db.fail(err)
}
