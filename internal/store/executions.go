package store

import (
	"context"
	"database/sql"
	"fmt"
)

const executionColumns = `id, session_id, generation, attempt, started_at, ended_at, outcome, evidence, classification`

// SaveExecution inserts the execution or replaces every field of the one
// with the same ID (the lifecycle saves it at start and again at the end).
// ErrNotFound for an unknown session.
func (db *DB) SaveExecution(ctx context.Context, e Execution) error {
	if e.ID == "" || e.SessionID == "" {
		return fmt.Errorf("store: save execution: %w: execution needs an id and a session id", ErrInvalid)
	}
	evidence, err := encodeRaw(e.Evidence, "execution evidence")
	if err != nil {
		return fmt.Errorf("store: save execution %s: %w", e.ID, err)
	}
	class, err := encodeRaw(e.Classification, "execution classification")
	if err != nil {
		return fmt.Errorf("store: save execution %s: %w", e.ID, err)
	}
	var ended any
	if e.EndedAt != nil {
		ended = fmtTime(*e.EndedAt)
	}
	_, err = db.exec(ctx, `INSERT INTO executions (`+executionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, generation = excluded.generation,
			attempt = excluded.attempt, started_at = excluded.started_at, ended_at = excluded.ended_at,
			outcome = excluded.outcome, evidence = excluded.evidence, classification = excluded.classification`,
		e.ID, e.SessionID, e.Generation, e.Attempt, fmtTime(e.StartedAt), ended, e.Outcome, evidence, class)
	if err != nil {
		return fmt.Errorf("store: save execution %s: %w", e.ID, mapConstraint(err, "execution "+e.ID))
	}
	return nil
}

// ListExecutions returns the session's executions, oldest first (history,
// debugging, and start-up clean-up of runs a crash left "running"). The
// result is never nil.
func (db *DB) ListExecutions(ctx context.Context, sessionID string) ([]Execution, error) {
	out := []Execution{}
	err := db.query(ctx, func(s scanner) error {
		var e Execution
		var started string
		var ended, evidence, class sql.NullString
		if err := s.Scan(&e.ID, &e.SessionID, &e.Generation, &e.Attempt, &started, &ended, &e.Outcome, &evidence, &class); err != nil {
			return err
		}
		var err error
		if e.StartedAt, err = parseTime(started); err != nil {
			return err
		}
		if ended.Valid {
			t, err := parseTime(ended.String)
			if err != nil {
				return err
			}
			e.EndedAt = &t
		}
		e.Evidence, e.Classification = decodeRaw(evidence), decodeRaw(class)
		out = append(out, e)
		return nil
	}, `SELECT `+executionColumns+` FROM executions WHERE session_id = ? ORDER BY started_at, rowid`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list executions of %s: %w", sessionID, err)
	}
	return out, nil
}
