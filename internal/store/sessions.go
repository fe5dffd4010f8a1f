package store

import (
	"context"
	"fmt"
)

const sessionColumns = `id, task_id, state, agent_session_id, generation, last_seq, created_at, updated_at, model`

func scanSession(s scanner) (Session, error) {
	var x Session
	var created, updated string
	if err := s.Scan(&x.ID, &x.TaskID, &x.State, &x.AgentSessionID, &x.Generation, &x.LastSeq, &created, &updated, &x.Model); err != nil {
		return Session{}, err
	}
	var err error
	if x.CreatedAt, err = parseTime(created); err != nil {
		return Session{}, err
	}
	if x.UpdatedAt, err = parseTime(updated); err != nil {
		return Session{}, err
	}
	return x, nil
}

const insertSessionSQL = `INSERT INTO sessions (` + sessionColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func sessionArgs(s Session) []any {
	return []any{s.ID, s.TaskID, s.State, s.AgentSessionID, s.Generation, s.LastSeq, fmtTime(s.CreatedAt), fmtTime(s.UpdatedAt), s.Model}
}

// CreateSession inserts a session of an existing task: ErrNotFound for an
// unknown task, ErrExists for a duplicate ID. Later changes to the session
// go through AppendEvent (EventWrite.Session), which also owns LastSeq.
func (db *DB) CreateSession(ctx context.Context, s Session) error {
	if s.ID == "" || s.TaskID == "" {
		return fmt.Errorf("store: create session: %w: session needs an id and a task id", ErrInvalid)
	}
	if _, err := db.exec(ctx, insertSessionSQL, sessionArgs(s)...); err != nil {
		return fmt.Errorf("store: create session %s: %w", s.ID, mapConstraint(err, "session "+s.ID))
	}
	return nil
}

const getSessionSQL = `SELECT ` + sessionColumns + ` FROM sessions WHERE id = ?`

// GetSession returns one session, or ErrNotFound.
func (db *DB) GetSession(ctx context.Context, id string) (Session, error) {
	var s Session
	err := db.getRow(ctx, func(sc scanner) (err error) {
		s, err = scanSession(sc)
		return err
	}, "session "+id, getSessionSQL, id)
	if err != nil {
		return Session{}, fmt.Errorf("store: get session: %w", err)
	}
	return s, nil
}

// ListSessions returns the task's sessions, oldest first. The result is
// never nil.
func (db *DB) ListSessions(ctx context.Context, taskID string) ([]Session, error) {
	return db.listSessions(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE task_id = ? ORDER BY created_at, rowid`, taskID)
}

// ListAllSessions returns every session, oldest first (start-up recovery
// walks them). The result is never nil.
func (db *DB) ListAllSessions(ctx context.Context) ([]Session, error) {
	return db.listSessions(ctx, `SELECT `+sessionColumns+` FROM sessions ORDER BY created_at, rowid`)
}

func (db *DB) listSessions(ctx context.Context, query string, args ...any) ([]Session, error) {
	out := []Session{}
	err := db.query(ctx, func(sc scanner) error {
		s, err := scanSession(sc)
		out = append(out, s)
		return err
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return out, nil
}
