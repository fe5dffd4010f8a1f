package store

import (
	"context"
	"database/sql"
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
	q, args, err := savePendingRetryQuery(r)
	if err != nil {
		return err
	}
	if _, err = db.exec(ctx, q, args...); err != nil {
		return fmt.Errorf("store: save pending retry of %s: %w", r.SessionID, mapConstraint(err, "pending retry"))
	}
	return nil
}

// savePendingRetryQuery validates r and builds its upsert, shared by
// SavePendingRetry and AppendEvent.
func savePendingRetryQuery(r PendingRetry) (string, []any, error) {
	if r.SessionID == "" || r.TaskID == "" {
		return "", nil, fmt.Errorf("store: save pending retry: %w: retry needs a session id and a task id", ErrInvalid)
	}
	if r.State == "" {
		r.State = RetryPending
	}
	if r.State != RetryPending && r.State != RetryDispatching {
		return "", nil, fmt.Errorf("store: save pending retry: %w: state %q", ErrInvalid, r.State)
	}
	extra, err := encodeJSON(r.Extra, r.Extra == nil, "pending retry extra")
	if err != nil {
		return "", nil, fmt.Errorf("store: save pending retry of %s: %w", r.SessionID, err)
	}
	return `INSERT INTO pending_retries (` + retryColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET task_id = excluded.task_id, generation = excluded.generation,
			attempt = excluded.attempt, max_attempts = excluded.max_attempts, code = excluded.code,
			rule_id = excluded.rule_id, retry_at = excluded.retry_at, prompt = excluded.prompt,
			resume = excluded.resume, notice_id = excluded.notice_id, state = excluded.state,
			extra = excluded.extra, created_at = excluded.created_at`,
		[]any{r.SessionID, r.TaskID, r.Generation, r.Attempt, r.MaxAttempts, r.Code, r.RuleID, fmtTime(r.RetryAt),
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
	res, err := db.exec(ctx, `UPDATE pending_retries SET state = 'dispatching'
		WHERE session_id = ? AND generation = ? AND attempt = ? AND state = 'pending'`,
		sessionID, generation, attempt)
	if err != nil {
		return false, fmt.Errorf("store: claim pending retry of %s: %w", sessionID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: claim pending retry of %s: %w", sessionID, err)
	}
	return n == 1, nil
}

// DeletePendingRetry removes the session's pending retry, in any state.
// Deleting a missing one is not an error (disarming is idempotent).
func (db *DB) DeletePendingRetry(ctx context.Context, sessionID string) error {
	if _, err := db.exec(ctx, `DELETE FROM pending_retries WHERE session_id = ?`, sessionID); err != nil {
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
