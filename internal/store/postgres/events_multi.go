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
		// A sender each: the committers group what is queued while they
		// commit, which one sender queueing in turn would not fill.
		wg.Go(func() { errs[i] = db.appendBatch(ctx, b) })
	}
	wg.Wait()
	return errs
}

// appendBatch plans and writes one batch of AppendEvents.
func (db *DB) appendBatch(ctx context.Context, b []store.EventWrite) error {
	for _, w := range b {
		if err := validateEventWrite(&w); err != nil {
			return fmt.Errorf("store: append event %s/%d: %w", w.Event.SessionID, w.Event.Seq, err)
		}
	}
	ws, scs, err := db.prepareScrubs(ctx, b)
	if err != nil {
		return db.explainBatch(ctx, b, err)
	}
	var stmts []*stmt
	if oneRun(ws) {
		stmts, err = planRun(ws, scs)
	} else {
		for k, w := range ws {
			p, err := planEvent(w, false, scrubOf(scs, k))
			if err != nil {
				return fmt.Errorf("store: append event %s/%d: %w", w.Event.SessionID, w.Event.Seq, err)
			}
			stmts = append(stmts, p.stmts...)
		}
	}
	if err != nil {
		return db.explainBatch(ctx, b, err)
	}
	return db.explainBatch(ctx, b, db.submit(ctx, false, stmts...))
}

// oneRun: several events of one session with consecutive seqs (a turn's
// start, a turn's end).
func oneRun(ws []store.EventWrite) bool {
	if len(ws) < 2 {
		return false
	}
	first := ws[0].Event
	for i, w := range ws {
		if w.Event.SessionID != first.SessionID || w.Event.Seq != first.Seq+int64(i) {
			return false
		}
	}
	return true
}

// The statement of a run of one session's events: the session's row
// advanced once, from the first event's seq-1 to the last's ($3 → $1), to
// where the last event with a session change leaves it ($8…$11), and every
// event inserted ($4…$7, arrays), raising unless all of them were. One
// statement, one update of the session row and one statement trigger
// (the fleet's NOTIFY) for the run instead of one of each per event.
var runSQL = [2]string{
	runStmt(`UPDATE sessions SET last_seq = $1 WHERE id = $2 AND last_seq = $3`),
	runStmt(`UPDATE sessions SET last_seq = $1, state = $8, agent_session_id = $9, generation = $10, updated_at = $11
		WHERE id = $2 AND last_seq = $3`),
}

func runStmt(adv string) string {
	return `WITH adv AS (` + adv + ` RETURNING id),
		ev AS (INSERT INTO events (session_id, seq, type, payload, at)
			SELECT $2::text, u.seq, u.type, u.payload::json, u.at
			FROM adv, unnest($4::bigint[], $5::text[], $6::text[], $7::text[]) AS u(seq, type, payload, at) RETURNING 1)
		SELECT orchestratord_assert(count(*) = cardinality($4::bigint[]), 'seq conflict') FROM ev`
}

// planRun plans a run of one session's events (oneRun) as one statement for
// all the events (runSQL) and a statement per other change, in order: the
// first write's claim before anything, so that a retry that is not
// claimable writes nothing, then the events, then each write's claim (after
// the first) and changes. All in one transaction: a check that fails rolls
// all of it back.
func planRun(ws []store.EventWrite, scs []*scrubbing) ([]*stmt, error) {
	n := len(ws)
	seqs, types, payloads, ats := make([]int64, n), make([]string, n), make([]*string, n), make([]string, n)
	var row *store.EventWrite // the last write with a session change
	for k := range ws {
		w := &ws[k]
		p, err := encodeRaw(w.Event.Payload, "event payload")
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", w.Event.Seq, err)
		}
		if p != nil {
			s := p.(string)
			payloads[k] = &s
		}
		seqs[k], types[k], ats[k] = w.Event.Seq, w.Event.Type, fmtTime(w.Event.At)
		if w.Session != nil {
			row = w
		}
	}
	first, last := ws[0].Event, ws[n-1].Event
	args := []any{last.Seq, first.SessionID, first.Seq - 1, seqs, types, payloads, ats}
	if row != nil {
		s := row.Session
		args = append(args, s.State, s.AgentSessionID, s.Generation, fmtTime(orTime(s.UpdatedAt, row.Event.At)))
	}
	var stmts []*stmt
	if c := ws[0].ClaimRetry; c != nil {
		stmts = append(stmts, claimStmt(c))
	}
	stmts = append(stmts, check("events", runSQL[btoi(row != nil)], errSeq, args...))
	for k, w := range ws {
		if c := w.ClaimRetry; c != nil && k > 0 {
			stmts = append(stmts, claimStmt(c))
		}
		rest, err := changeStmts(w, scrubOf(scs, k))
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", w.Event.Seq, err)
		}
		stmts = append(stmts, rest...)
	}
	return stmts, nil
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
