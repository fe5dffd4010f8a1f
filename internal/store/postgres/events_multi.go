package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/orchestratord/orchestratord/internal/store"
)

// AppendEvents appends several batches of events, each batch atomic on its
// own (see store.DB.AppendEvents). A batch is one committer job — its
// writes' statements in order, all checked — so the batches share group
// commits, and a batch whose check fails is rolled back alone while the
// others commit (commit.go).
func (db *DB) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		if len(b) == 0 {
			continue
		}
		var stmts []*stmt
		for _, w := range b {
			p, err := planEvent(w, false)
			if err != nil {
				errs[i] = fmt.Errorf("store: append event %s/%d: %w", w.Event.SessionID, w.Event.Seq, err)
				break
			}
			stmts = append(stmts, p.stmts...)
		}
		if errs[i] != nil {
			continue
		}
		// A sender each: the committers group what is queued while they
		// commit, which one sender queueing in turn would not fill.
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.explainBatch(ctx, b, db.submit(ctx, false, stmts...))
		}()
	}
	wg.Wait()
	return errs
}

// explainBatch names a failed batch by its events and says why a seq check
// failed.
func (db *DB) explainBatch(ctx context.Context, b []store.EventWrite, err error) error {
	if err == nil {
		return nil
	}
	first, last := b[0].Event, b[len(b)-1].Event
	if errors.Is(err, errSeq) {
		if err = db.seqError(ctx, first); err == nil {
			err = fmt.Errorf("%w: session %s: a seq of %d–%d was not the next one", store.ErrSeqConflict, first.SessionID, first.Seq, last.Seq)
		}
	}
	return fmt.Errorf("store: append events %s/%d–%d: %w", first.SessionID, first.Seq, last.Seq, err)
}
