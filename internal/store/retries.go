package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

const retryColumns = `session_id, task_id, generation, attempt, max_attempts, code, rule_id, retry_at,
	prompt, resume, notice_id, state, extra, created_at`

func scanRetry(s scanner) (PendingRetry, error) {
	var r PendingRetry
	var retryAt, created string
	var extra sql.NullString
	if err := s.Scan(&r.SessionID, &r.TaskID, &r.Generation, &r.Attempt, &r.MaxAttempts, &r.Code, &r.RuleID, &retryAt,
		&r.Prompt, &r.Resume, &r.NoticeID, &r.State, &extra, &created); err != nil {
		return PendingRetry{}, err
	}
	var err error
	if r.RetryAt, err = parseTime(retryAt); err != nil {
		return PendingRetry{}, err
	}
	if r.CreatedAt, err = parseTime(created); err != nil {
		return PendingRetry{}, err
	}
	if err := decodeJSON(extra, &r.Extra, "pending retry extra"); err != nil {
		return PendingRetry{}, err
	}
	return r, nil
}

// SavePendingRetry inserts the session's pending retry or replaces every
// field of the one it has (at most one per session). An empty State means
// RetryPending. ErrNotFound for an unknown session or task.
func (db *DB) SavePendingRetry(ctx context.Context, r PendingRetry) error {
	args, err := savePendingRetryArgs(r)
	if err != nil {
		return err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, db.hot.saveRetry).ExecContext(ctx, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: save pending retry of %s: %w", r.SessionID, mapConstraint(err, "pending retry"))
	}
	return nil
}

const savePendingRetrySQL = `INSERT INTO pending_retries (` + retryColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (session_id) DO UPDATE SET task_id = excluded.task_id, generation = excluded.generation,
		attempt = excluded.attempt, max_attempts = excluded.max_attempts, code = excluded.code,
		rule_id = excluded.rule_id, retry_at = excluded.retry_at, prompt = excluded.prompt,
		resume = excluded.resume, notice_id = excluded.notice_id, state = excluded.state,
		extra = excluded.extra, created_at = excluded.created_at`

// savePendingRetryArgs validates r and builds the arguments of its upsert,
// shared by SavePendingRetry and AppendEvent.
func savePendingRetryArgs(r PendingRetry) ([]any, error) {
	if r.SessionID == "" || r.TaskID == "" {
		return nil, fmt.Errorf("store: save pending retry: %w: retry needs a session id and a task id", ErrInvalid)
	}
	if r.State == "" {
		r.State = RetryPending
	}
	if r.State != RetryPending && r.State != RetryDispatching {
		return nil, fmt.Errorf("store: save pending retry: %w: state %q", ErrInvalid, r.State)
	}
	extra, err := encodeJSON(r.Extra, r.Extra == nil, "pending retry extra")
	if err != nil {
		return nil, fmt.Errorf("store: save pending retry of %s: %w", r.SessionID, err)
	}
	return []any{r.SessionID, r.TaskID, r.Generation, r.Attempt, r.MaxAttempts, r.Code, r.RuleID, fmtTime(r.RetryAt),
		r.Prompt, r.Resume, r.NoticeID, r.State, extra, fmtTime(r.CreatedAt)}, nil
}

// GetPendingRetry returns the session's pending retry, or ErrNotFound.
func (db *DB) GetPendingRetry(ctx context.Context, sessionID string) (PendingRetry, error) {
	var r PendingRetry
	err := db.getRow(ctx, func(s scanner) (err error) {
		r, err = scanRetry(s)
		return err
	}, "pending retry of session "+sessionID, `SELECT `+retryColumns+` FROM pending_retries WHERE session_id = ?`, sessionID)
	if err != nil {
		return PendingRetry{}, fmt.Errorf("store: get pending retry: %w", err)
	}
	return r, nil
}

// ClaimPendingRetry moves pending→dispatching iff generation and attempt match; false when not claimable.
//
// It is one conditional UPDATE, so among any number of concurrent callers
// (a timer firing while a cancel or a late timer of an old generation
// races it) exactly one gets true. A missing retry is false, not an error.
func (db *DB) ClaimPendingRetry(ctx context.Context, sessionID string, generation int64, attempt int) (bool, error) {
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, db.hot.claimRetry).ExecContext(ctx, sessionID, generation, attempt)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: claim pending retry of %s: %w", sessionID, err)
	}
	return n == 1, nil
}

// RetryClaim names one pending retry to claim: the generation and attempt
// it was parked with.
type RetryClaim struct {
	SessionID  string
	Generation int64
	Attempt    int
}

// maxClaimBatch bounds one statement of ClaimPendingRetries.
const maxClaimBatch = 1000

// ClaimPendingRetries is ClaimPendingRetry for many retries in one
// transaction (a few statements, however many are due): claimed[i] reports
// claims[i]. Retries due at the same instant share it instead of queueing
// for a commit each.
func (db *DB) ClaimPendingRetries(ctx context.Context, claims []RetryClaim) (claimed []bool, err error) {
	if len(claims) == 0 {
		return nil, nil
	}
	got := make(map[string]bool, len(claims))
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		clear(got)
		stmt := tx.StmtContext(ctx, db.hot.claimRetries)
		for start := 0; start < len(claims); start += maxClaimBatch {
			batch := claims[start:min(start+maxClaimBatch, len(claims))]
			keys := make([][3]any, len(batch))
			for i, c := range batch {
				keys[i] = [3]any{c.SessionID, c.Generation, c.Attempt}
			}
			arg, err := json.Marshal(keys)
			if err != nil {
				return err
			}
			rows, err := stmt.QueryContext(ctx, string(arg))
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				got[id] = true
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim %d pending retries: %w", len(claims), err)
	}
	claimed = make([]bool, len(claims))
	for i, c := range claims {
		// One session has one row: a second claim of it in the same batch
		// (never sent by the orchestrator) must not also win.
		claimed[i] = got[c.SessionID]
		delete(got, c.SessionID)
	}
	return claimed, nil
}

// DeletePendingRetry removes the session's pending retry, in any state.
// Deleting a missing one is not an error (disarming is idempotent).
func (db *DB) DeletePendingRetry(ctx context.Context, sessionID string) error {
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, db.hot.deleteRetry).ExecContext(ctx, sessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete pending retry of %s: %w", sessionID, err)
	}
	return nil
}

// ListPendingRetries returns every pending retry, pending or dispatching,
// soonest RetryAt first: start-up re-arms the pending ones and turns the
// dispatching ones (a crash mid-dispatch) into manual recovery. The result
// is never nil.
func (db *DB) ListPendingRetries(ctx context.Context) ([]PendingRetry, error) {
	out := []PendingRetry{}
	err := db.query(ctx, func(s scanner) error {
		r, err := scanRetry(s)
		out = append(out, r)
		return err
	}, `SELECT `+retryColumns+` FROM pending_retries ORDER BY retry_at, session_id`)
	if err != nil {
		return nil, fmt.Errorf("store: list pending retries: %w", err)
	}
	return out, nil
}
