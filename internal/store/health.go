package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// ErrUnwritable wraps every write error that says the file cannot be
// written — disk full, read-only file or file system, I/O error, the file
// locked or gone — as opposed to a write the store refused (ErrSeqConflict,
// ErrNotFound…). Nothing of the failed write is in the file.
var ErrUnwritable = errors.New("store: cannot write the data file")

// WriteHealth is whether the store can write, for /healthz and logs.
type WriteHealth struct {
	Writable  bool
	LastError error     // the last failed write (kept after recovery, for the record); nil if none
	ErrorAt   time.Time // when it failed
	// Failures counts failed writes since the last successful one.
	Failures int64
}

// health tracks WriteHealth. The maintenance loop (Maintain) probes and
// checkpoints; every write reports its outcome through note.
type health struct {
	mu       sync.Mutex // guards every field below
	state    WriteHealth
	dirty    bool      // writes since the last TRUNCATE checkpoint
	lastOK   time.Time // last successful write
	kick     chan struct{}
	maintain *sql.DB // its own connection: checkpoints and probes, never a transaction of the committer's
	now      func() time.Time
}

// Maintenance cadence.
const (
	// maintainEvery is how often the loop looks; a failure kicks it at once.
	maintainEvery = 5 * time.Second
	// idleCheckpointAfter: a WAL written to and then quiet this long is
	// checkpointed with TRUNCATE, so its file shrinks to nothing between
	// bursts instead of staying at its largest (up to journal_size_limit).
	idleCheckpointAfter = 5 * time.Second
)

// isStorageFault reports whether err says the file cannot be written.
func isStorageFault(err error) bool {
	switch sqliteCode(err) & 0xff {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN,
		sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_PERM,
		sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// note records a write's outcome and returns err, wrapped with
// ErrUnwritable when it is a storage fault.
func (db *DB) note(err error) error {
	h := &db.health
	switch {
	case err == nil:
		h.mu.Lock()
		h.state.Writable, h.state.Failures = true, 0
		h.dirty, h.lastOK = true, h.now()
		h.mu.Unlock()
		return nil
	case !isStorageFault(err):
		return err
	}
	h.mu.Lock()
	h.state.Writable = false
	h.state.LastError, h.state.ErrorAt = err, h.now()
	h.state.Failures++
	h.mu.Unlock()
	select { // checkpoint and probe soon: a full WAL may be what fills the disk
	case h.kick <- struct{}{}:
	default:
	}
	return fmt.Errorf("%w: %w", ErrUnwritable, err)
}

// WriteHealth reports whether the last write succeeded, and the last error.
func (db *DB) WriteHealth() WriteHealth {
	db.health.mu.Lock()
	defer db.health.mu.Unlock()
	return db.health.state
}

// startMaintenance opens the maintenance connection and starts the loop.
func (db *DB) startMaintenance() error {
	m, err := sql.Open("sqlite", dsn(db.path, maintainParams()))
	if err != nil {
		return fmt.Errorf("store: open %s: %w", db.path, err)
	}
	m.SetMaxOpenConns(1)
	m.SetMaxIdleConns(1)
	db.health.maintain = m
	if db.opts.ManualMaintenance {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	db.stopMaintain = cancel
	db.maintainDone = make(chan struct{})
	go db.maintainLoop(ctx) // stopMaintenance cancels and waits
	return nil
}

func maintainParams() url.Values {
	return url.Values{"_pragma": {"busy_timeout(" + busyTimeoutMS + ")", "foreign_keys(1)"}}
}

// stopMaintenance stops the loop (cancelling a checkpoint that waits) and
// closes its connection.
func (db *DB) stopMaintenance() error {
	if db.stopMaintain != nil {
		db.stopMaintain()
		<-db.maintainDone
		db.stopMaintain = nil
	}
	if db.health.maintain != nil {
		err := db.health.maintain.Close()
		db.health.maintain = nil
		return err
	}
	return nil
}

func (db *DB) maintainLoop(ctx context.Context) {
	defer close(db.maintainDone)
	t := time.NewTicker(maintainEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-db.health.kick:
		}
		_ = db.Maintain(ctx)
	}
}

// Maintain is one step of the maintenance loop, exported for tests:
//   - after a failed write it checkpoints the WAL with TRUNCATE (a WAL that
//     filled a small disk gives its space back) and probes with a tiny
//     write, so WriteHealth recovers once space is freed even when nothing
//     else writes;
//   - when writes have been quiet for idleCheckpointAfter it checkpoints
//     with TRUNCATE, so the WAL never sits at its largest on disk.
func (db *DB) Maintain(ctx context.Context) error {
	if err := db.usable(); err != nil {
		return err
	}
	h := &db.health
	h.mu.Lock()
	failing := !h.state.Writable
	idle := h.dirty && h.now().Sub(h.lastOK) >= idleCheckpointAfter
	h.mu.Unlock()
	if !failing && !idle {
		return nil
	}
	ckErr := db.Checkpoint(ctx)
	if !failing {
		return ckErr
	}
	return db.note(db.probe(ctx))
}

// Checkpoint copies the WAL into the database file and truncates the WAL
// to zero bytes. It waits (busy_timeout) for readers and for a write in
// flight; writes queue meanwhile.
func (db *DB) Checkpoint(ctx context.Context) error {
	if err := db.usable(); err != nil {
		return err
	}
	var busy, logFrames, done int
	if err := db.health.maintain.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("store: checkpoint: %w", errCheckpointBusy)
	}
	db.health.mu.Lock()
	db.health.dirty = false
	db.health.mu.Unlock()
	return nil
}

var errCheckpointBusy = errors.New("the database stayed busy")

// probe writes the schema version back unchanged: a real write transaction
// (the header page goes through the WAL) that changes nothing.
func (db *DB) probe(ctx context.Context) error {
	var v int
	if err := db.health.maintain.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	_, err := db.health.maintain.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// FaultReason names, in a few plain words, why a write with ErrUnwritable
// failed: "the disk is full", "the data file is read-only"… For messages.
func FaultReason(err error) string {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_IOERR_SHMSIZE, sqlite3.SQLITE_IOERR_SHMOPEN, sqlite3.SQLITE_IOERR_SHMMAP:
		return "the disk is full or the data dir is not writable (no room for the database's shared-memory file)"
	}
	switch sqliteCode(err) & 0xff {
	case sqlite3.SQLITE_FULL:
		return "the disk is full"
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
		return "the data file is read-only"
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return "the data file is locked by another process"
	case sqlite3.SQLITE_CANTOPEN:
		return "the data file cannot be opened"
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return "the data file is damaged"
	case sqlite3.SQLITE_NOMEM:
		return "the system is out of memory"
	}
	return "the disk reported an I/O error"
}

// openFault explains a storage fault met while opening the file, or
// returns nil for any other error.
func openFault(path string, err error) error {
	if !isStorageFault(err) || isCorruption(err) {
		return nil
	}
	return fmt.Errorf("%w: cannot open %s: %s (%w); free space or fix the data dir, then start again",
		ErrUnwritable, path, FaultReason(err), err)
}
