package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

const retryColumns = `session_id, task_id, generation, attempt, max_attempts, code, rule_id, retry_at,
	prompt, resume, notice_id, state, extra, created_at`

func scanRetry(s scanner) (store.PendingRetry, error) {
	var r store.PendingRetry
	var retryAt, created string
	var extra []byte
	if err := s.Scan(&r.SessionID, &r.TaskID, &r.Generation, &r.Attempt, &r.MaxAttempts, &r.Code, &r.RuleID, &retryAt,
		&r.Prompt, &r.Resume, &r.NoticeID, &r.State, &extra, &created); err != nil {
		return store.PendingRetry{}, err
	}
	var err error
	if r.RetryAt, err = parseTime(retryAt); err != nil {
		return store.PendingRetry{}, err
	}
	if r.CreatedAt, err = parseTime(created); err != nil {
		return store.PendingRetry{}, err
	}
	if err := decodeJSON(extra, &r.Extra, "pending retry extra"); err != nil {
		return store.PendingRetry{}, err
	}
	return r, nil
}

const savePendingRetrySQL = `INSERT INTO pending_retries (` + retryColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
	ON CONFLICT (session_id) DO UPDATE SET task_id = excluded.task_id, generation = excluded.generation,
		attempt = excluded.attempt, max_attempts = excluded.max_attempts, code = excluded.code,
		rule_id = excluded.rule_id, retry_at = excluded.retry_at, prompt = excluded.prompt,
		resume = excluded.resume, notice_id = excluded.notice_id, state = excluded.state,
		extra = excluded.extra, created_at = excluded.created_at`

func savePendingRetryArgs(r store.PendingRetry) ([]any, error) {
	if r.SessionID == "" || r.TaskID == "" {
		return nil, fmt.Errorf("store: save pending retry: %w: retry needs a session id and a task id", store.ErrInvalid)
	}
	if r.State == "" {
		r.State = store.RetryPending
	}
	if r.State != store.RetryPending && r.State != store.RetryDispatching {
		return nil, fmt.Errorf("store: save pending retry: %w: state %q", store.ErrInvalid, r.State)
	}
	extra, err := encodeJSON(r.Extra, r.Extra == nil, "pending retry extra")
	if err != nil {
		return nil, fmt.Errorf("store: save pending retry of %s: %w", r.SessionID, err)
	}
	return []any{r.SessionID, r.TaskID, r.Generation, r.Attempt, r.MaxAttempts, r.Code, r.RuleID, fmtTime(r.RetryAt),
		r.Prompt, r.Resume, r.NoticeID, r.State, extra, fmtTime(r.CreatedAt)}, nil
}

// SavePendingRetry inserts or replaces the session's pending retry.
func (db *DB) SavePendingRetry(ctx context.Context, r store.PendingRetry) error {
	args, err := savePendingRetryArgs(r)
	if err != nil {
		return err
	}
	if _, err := db.exec(ctx, savePendingRetrySQL, args...); err != nil {
		return fmt.Errorf("store: save pending retry of %s: %w", r.SessionID, mapConstraint(err, "pending retry"))
	}
	return nil
}

// GetPendingRetry returns the session's pending retry, or ErrNotFound.
func (db *DB) GetPendingRetry(ctx context.Context, sessionID string) (store.PendingRetry, error) {
	var r store.PendingRetry
	err := db.getRow(ctx, func(row pgx.Row) (err error) {
		r, err = scanRetry(row)
		return err
	}, "pending retry of session "+sessionID, `SELECT `+retryColumns+` FROM pending_retries WHERE session_id = $1`, sessionID)
	if err != nil {
		return store.PendingRetry{}, fmt.Errorf("store: get pending retry: %w", err)
	}
	return r, nil
}

// claimPendingRetrySQL is ClaimPendingRetry's, also run by AppendEvent
// for EventWrite.ClaimRetry.
const claimPendingRetrySQL = `UPDATE pending_retries SET state = 'dispatching'
	WHERE session_id = $1 AND generation = $2 AND attempt = $3 AND state = 'pending'`

// ClaimPendingRetry moves pending→dispatching iff generation and attempt
// match: one conditional UPDATE. A racer that finds the row locked waits,
// then re-checks the condition on the committed row and matches nothing,
// so exactly one caller gets true.
//
// A lone claim is the one figure of `make bench-stores` far above SQLite's
// (about 40× durable): it waits for its WAL flush, an fdatasync of about
// 4.4 ms on the project VM's disk (pg_test_fsync), where SQLite's
// synchronous=NORMAL does not sync at commit. That is the price of a claim
// that survives a crash of the machine; claims that arrive together share
// one flush (group commit), and the daemon claims inside the event that
// starts the turn, so a dispatch pays no flush of its own for it.
func (db *DB) ClaimPendingRetry(ctx context.Context, sessionID string, generation int64, attempt int) (bool, error) {
	tag, err := db.exec(ctx, claimPendingRetrySQL, sessionID, generation, attempt)
	if err != nil {
		return false, fmt.Errorf("store: claim pending retry of %s: %w", sessionID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// ClaimPendingRetries claims many retries in one statement (the keys as
// three arrays): claimed[i] reports claims[i].
func (db *DB) ClaimPendingRetries(ctx context.Context, claims []store.RetryClaim) ([]bool, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	ids := make([]string, len(claims))
	gens := make([]int64, len(claims))
	atts := make([]int64, len(claims))
	for i, c := range claims {
		ids[i], gens[i], atts[i] = c.SessionID, c.Generation, int64(c.Attempt)
	}
	got := make(map[string]bool, len(claims))
	// Locks are taken in session order, so two batches never deadlock.
	err := db.query(ctx, func(r pgx.Rows) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		got[id] = true
		return nil
	}, `WITH k AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS k (sid, gen, att)),
		c AS (SELECT p.session_id FROM pending_retries p JOIN k ON p.session_id = k.sid AND p.generation = k.gen
			AND p.attempt = k.att WHERE p.state = 'pending' ORDER BY p.session_id FOR UPDATE OF p)
		UPDATE pending_retries p SET state = 'dispatching' FROM c
		WHERE p.session_id = c.session_id AND p.state = 'pending'
		RETURNING p.session_id`, ids, gens, atts)
	if err = db.note(err); err != nil {
		return nil, fmt.Errorf("store: claim %d pending retries: %w", len(claims), err)
	}
	claimed := make([]bool, len(claims))
	for i, c := range claims {
		claimed[i] = got[c.SessionID]
		delete(got, c.SessionID)
	}
	return claimed, nil
}

// DeletePendingRetry removes the session's pending retry; a missing one is
// not an error.
func (db *DB) DeletePendingRetry(ctx context.Context, sessionID string) error {
	if _, err := db.exec(ctx, `DELETE FROM pending_retries WHERE session_id = $1`, sessionID); err != nil {
		return fmt.Errorf("store: delete pending retry of %s: %w", sessionID, err)
	}
	return nil
}

// ListPendingRetries returns every pending retry, soonest RetryAt first.
func (db *DB) ListPendingRetries(ctx context.Context) ([]store.PendingRetry, error) {
	out := []store.PendingRetry{}
	err := db.query(ctx, func(r pgx.Rows) error {
		x, err := scanRetry(r)
		out = append(out, x)
		return err
	}, `SELECT `+retryColumns+` FROM pending_retries ORDER BY retry_at, session_id`)
	if err != nil {
		return nil, fmt.Errorf("store: list pending retries: %w", err)
	}
	return out, nil
}
