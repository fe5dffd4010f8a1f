package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// maxGroup bounds how many writes share one commit, so the first of a
// group never waits long for the last.
const maxGroup = 256

// writeReq is one write waiting for the committer.
type writeReq struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx *sql.Tx) error
	done chan error // buffered: the committer never blocks on a reply
}

// The committer is the only user of the writer connection after Open. It
// takes every write queued while the previous commit ran and applies them
// in one transaction. Most of a small write's cost is the commit itself
// (the WAL frames of every page it touched), so when a thousand sessions
// write at once — the overload gate releasing its waiters — they share
// commits instead of queueing for one each. A lone write is a plain
// transaction, as before.
//
// A group runs optimistically first, the writes one after the other with
// nothing between them; if one fails, the transaction is rolled back and
// the group runs again with each write inside its own SAVEPOINT: the one
// that fails rolls back to its savepoint and alone reports the error; the
// others commit together. Savepoints on every group cost a sub-journal
// copy of each page a write touches and its release (13% of the CPU of
// a gate release), for writes that almost never fail.
func (db *DB) startCommitter() {
	db.writes = make(chan *writeReq)
	db.stopCommit = make(chan struct{})
	db.commitDone = make(chan struct{})
	go db.commitLoop()
}

// stopCommitter lets the group in flight finish, then stops the committer;
// writers still queued get ErrClosed.
func (db *DB) stopCommitter() {
	if db.stopCommit == nil {
		return // Open failed before it started
	}
	close(db.stopCommit)
	<-db.commitDone
}

func (db *DB) commitLoop() {
	defer close(db.commitDone)
	group := make([]*writeReq, 0, maxGroup)
	for {
		select {
		case <-db.stopCommit:
			return
		case r := <-db.writes:
			group = append(group[:0], r)
		}
	collect:
		for len(group) < maxGroup {
			select {
			case r := <-db.writes:
				group = append(group, r)
			default:
				break collect
			}
		}
		db.commitGroup(group)
		clear(group)
	}
}

// commitGroup answers every request of group exactly once.
func (db *DB) commitGroup(group []*writeReq) {
	live := group[:0:0]
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.done <- err // gave up before its turn; nothing ran
			continue
		}
		live = append(live, r)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		live[0].done <- db.runAlone(live[0])
		return
	}
	errs, err := db.runOptimistic(live)
	if errors.Is(err, errGroupFailed) {
		errs, err = db.runGroup(live)
	}
	if be, ok := err.(beginError); ok {
		// No transaction at all (the file is locked by another process past
		// busy_timeout, or gone): running each alone would wait as long again
		// for every write; they all get the answer.
		for _, r := range live {
			r.done <- be.error
		}
		return
	}
	if err != nil {
		// The group as a whole failed (a savepoint or the commit itself):
		// nothing of it is in the file, so each write runs again alone and
		// gets its own answer.
		for _, r := range live {
			r.done <- db.runAlone(r)
		}
		return
	}
	for i, r := range live {
		r.done <- errs[i]
	}
}

// runAlone runs one write in its own transaction.
func (db *DB) runAlone(r *writeReq) error {
	ctx := context.WithoutCancel(r.ctx)
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := r.fn(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// errGroupFailed: a write of an optimistic group failed; nothing of the
// group was committed.
var errGroupFailed = errors.New("store: a write of the group failed")

// runOptimistic runs the writes in one transaction without savepoints. A
// write that fails makes it roll back everything (errGroupFailed). While
// the writes run, the commit hook (Open) refuses every commit, so a write
// that ended the transaction cannot have the writes after it commit on
// their own: they fail, and the group runs again with savepoints.
func (db *DB) runOptimistic(live []*writeReq) (errs []error, err error) {
	ctx := context.Background()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, beginError{err}
	}
	db.inGroup.Store(true)
	for _, r := range live {
		if err := r.fn(context.WithoutCancel(r.ctx), tx); err != nil {
			db.inGroup.Store(false)
			_ = tx.Rollback()
			return nil, errGroupFailed
		}
	}
	db.inGroup.Store(false)
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return make([]error, len(live)), nil
}

// runGroup runs the writes in one transaction, each in a savepoint; errs[i]
// is write i's own error. A non-nil error means the transaction was rolled
// back and none of the writes happened.
func (db *DB) runGroup(live []*writeReq) (errs []error, err error) {
	ctx := context.Background()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, beginError{err}
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	errs = make([]error, len(live))
	savepoint, rollbackTo, release := tx.StmtContext(ctx, db.hot.savepoint), tx.StmtContext(ctx, db.hot.rollbackTo), tx.StmtContext(ctx, db.hot.release)
	for i, r := range live {
		if _, err := savepoint.ExecContext(ctx); err != nil {
			return nil, fmt.Errorf("store: savepoint: %w", err)
		}
		// A started write is not interrupted: it is short, and SQLite
		// would roll back the whole group's transaction on an interrupt.
		if errs[i] = r.fn(context.WithoutCancel(r.ctx), tx); errs[i] != nil {
			if _, err := rollbackTo.ExecContext(ctx); err != nil {
				return nil, fmt.Errorf("store: rollback to savepoint: %w", err)
			}
		}
		if _, err := release.ExecContext(ctx); err != nil {
			return nil, fmt.Errorf("store: release savepoint: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return errs, nil
}

// beginError: a group could not even begin its transaction.
type beginError struct{ error }

// write runs fn as one atomic unit on the writer connection: any error from
// fn undoes everything fn did. fn may share its transaction's commit with
// other writes (see the committer) and must not commit or roll back tx.
// ctx bounds the wait for the writer; once fn starts it is not cancelled.
func (db *DB) write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if err := db.usable(); err != nil {
		return err
	}
	r := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case db.writes <- r:
	case <-db.stopCommit:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return db.fail(db.note(<-r.done))
}

// exec runs one statement as a write, prepared (stmts.go).
func (db *DB) exec(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	if err := db.usable(); err != nil {
		return nil, err
	}
	stmt, err := db.writeStmt(ctx, query)
	if err != nil {
		return nil, db.fail(err)
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err = tx.StmtContext(ctx, stmt).ExecContext(ctx, args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
