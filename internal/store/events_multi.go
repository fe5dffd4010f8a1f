package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// errDirtyBatch: a batch failed after it wrote something; AppendEvents
// runs again with savepoints.
var errDirtyBatch = errors.New("store: a batch failed part-way")

// AppendEvents appends several batches of events in one transaction. Each
// batch is atomic on its own: its writes are applied in order as
// AppendEvent applies one (each Seq the session's last_seq+1 at its turn,
// so one session's events in a batch have consecutive seqs), and either
// all of them are written or none. errs[i] is batch i's outcome (nil:
// written; ErrNotClaimed, ErrSeqConflict, ErrNotFound, …: nothing of it
// is), one entry per batch. A failure of the transaction itself (the
// commit) is every batch's error.
//
// The events of one turn's start or end go in one batch: one commit
// instead of one per event. Retries due together go as one batch each in
// one call: one transaction for all their claims.
func (db *DB) AppendEvents(ctx context.Context, batches ...[]EventWrite) []error {
	errs := make([]error, len(batches))
	prepared := make([][]*preparedWrite, len(batches))
	live := 0
	for i, b := range batches {
		for _, w := range b {
			p, err := prepareEventWrite(w)
			if err != nil {
				errs[i] = err
				prepared[i] = nil
				break
			}
			prepared[i] = append(prepared[i], p)
		}
		if errs[i] == nil && len(prepared[i]) > 0 {
			live++
		}
	}
	if live == 0 {
		return errs
	}
	batchErrs := make([]error, len(batches))
	// Optimistic first: no savepoints (each costs a copy of every page it
	// touches in the sub-journal), since a batch that fails mostly fails
	// at its claim, before it wrote anything. A batch that fails once it
	// wrote something makes the whole transaction run again, each batch in
	// a savepoint.
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		clear(batchErrs) // the committer may run this again, alone
		for i, ps := range prepared {
			if k, err := db.applyEvents(ctx, tx, ps); err != nil {
				if k > 0 || !errors.Is(err, ErrNotClaimed) || live == 1 {
					if live == 1 {
						return ps[k].wrap(err) // alone: the transaction is the batch
					}
					return errDirtyBatch
				}
				batchErrs[i] = ps[k].wrap(err) // nothing of it was written
			}
		}
		return nil
	})
	if errors.Is(err, errDirtyBatch) {
		err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			clear(batchErrs)
			save, rollback, release := tx.StmtContext(ctx, db.hot.batchSave), tx.StmtContext(ctx, db.hot.batchRollback), tx.StmtContext(ctx, db.hot.batchRelease)
			for i, ps := range prepared {
				if len(ps) == 0 {
					continue
				}
				if _, err := save.ExecContext(ctx); err != nil {
					return fmt.Errorf("store: savepoint: %w", err)
				}
				if k, err := db.applyEvents(ctx, tx, ps); err != nil {
					batchErrs[i] = ps[k].wrap(err)
				}
				if batchErrs[i] != nil {
					if _, err := rollback.ExecContext(ctx); err != nil {
						return fmt.Errorf("store: rollback to savepoint: %w", err)
					}
				}
				if _, err := release.ExecContext(ctx); err != nil {
					return fmt.Errorf("store: release savepoint: %w", err)
				}
			}
			return nil
		})
	}
	if live == 1 && err != nil {
		for i, ps := range prepared {
			if len(ps) > 0 {
				errs[i] = err // the batch's own error (db.write noted a fault)
			}
		}
		return errs
	}
	for i, ps := range prepared {
		switch {
		case len(ps) == 0:
		case err != nil:
			errs[i] = fmt.Errorf("store: append events: %w", err)
		case batchErrs[i] != nil:
			errs[i] = db.fail(db.note(batchErrs[i]))
		}
	}
	return errs
}

// applyEvents runs a batch's writes in order, as applyEventWrite runs
// each; k is the one that failed. One session's consecutive events (a
// turn's start, a turn's end) advance its row once, to where the last of
// them leaves it: one UPDATE of the session for the batch, not one per
// event (6% of the CPU of a gate release).
func (db *DB) applyEvents(ctx context.Context, tx *sql.Tx, ps []*preparedWrite) (k int, err error) {
	if !oneRun(ps) {
		for k, p := range ps {
			if err := db.applyEventWrite(ctx, tx, p); err != nil {
				return k, err
			}
		}
		return 0, nil
	}
	row := ps[0] // the last that carries the session row
	for _, p := range ps {
		if p.w.Session != nil {
			row = p
		}
	}
	if err := db.claim(ctx, tx, ps[0]); err != nil {
		return 0, err
	}
	if err := db.advance(ctx, tx, ps[0].w.Event, row, ps[len(ps)-1].w.Event.Seq); err != nil {
		return 0, err
	}
	for k, p := range ps {
		if k > 0 {
			if err := db.claim(ctx, tx, p); err != nil {
				return k, err
			}
		}
		if err := db.applyRest(ctx, tx, p); err != nil {
			return k, err
		}
	}
	return 0, nil
}

// oneRun: several events of one session with consecutive seqs.
func oneRun(ps []*preparedWrite) bool {
	if len(ps) < 2 {
		return false
	}
	first := ps[0].w.Event
	for i, p := range ps {
		if p.w.Event.SessionID != first.SessionID || p.w.Event.Seq != first.Seq+int64(i) {
			return false
		}
	}
	return true
}
