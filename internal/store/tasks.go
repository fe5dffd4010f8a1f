package store

import (
	"context"
	"database/sql"
	"fmt"
)

const taskColumns = `id, title, agent, workdir, max_attempts, state, created_at, updated_at, gate_deadline_ns, archived_at, on_usage_limit`

func scanTask(s scanner) (Task, error) {
	var t Task
	var created, updated string
	var archived sql.NullString
	if err := s.Scan(&t.ID, &t.Title, &t.Agent, &t.Workdir, &t.MaxAttempts, &t.State, &created, &updated, &t.GateDeadline, &archived, &t.OnUsageLimit); err != nil {
		return Task{}, err
	}
	var err error
	if t.ArchivedAt, err = parseNullTime(archived); err != nil {
		return Task{}, err
	}
	if t.CreatedAt, err = parseTime(created); err != nil {
		return Task{}, err
	}
	if t.UpdatedAt, err = parseTime(updated); err != nil {
		return Task{}, err
	}
	return t, nil
}

// CreateTask inserts a task and its first session in one transaction, so
// no task is ever visible without its session. A zero Session (empty ID)
// creates the task alone; an empty s.TaskID means t.ID. ErrExists for a
// duplicate ID. Later changes to the task go through AppendEvent
// (EventWrite.Task).
func (db *DB) CreateTask(ctx context.Context, t Task, s Session) error {
	if t.ID == "" {
		return fmt.Errorf("store: create task: %w: task without id", ErrInvalid)
	}
	if t.GateDeadline < 0 {
		return fmt.Errorf("store: create task %s: %w: negative gate deadline %s", t.ID, ErrInvalid, t.GateDeadline)
	}
	if s.ID != "" {
		if s.TaskID == "" {
			s.TaskID = t.ID
		}
		if s.TaskID != t.ID {
			return fmt.Errorf("store: create task %s: %w: its session belongs to task %q", t.ID, ErrInvalid, s.TaskID)
		}
	}
	if err := db.usable(); err != nil {
		return err
	}
	insTask, err := db.writeStmt(ctx, insertTaskSQL)
	if err != nil {
		return fmt.Errorf("store: create task %s: %w", t.ID, db.fail(err))
	}
	insSess, err := db.writeStmt(ctx, insertSessionSQL)
	if err != nil {
		return fmt.Errorf("store: create task %s: %w", t.ID, db.fail(err))
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.StmtContext(ctx, insTask).ExecContext(ctx,
			t.ID, t.Title, t.Agent, t.Workdir, t.MaxAttempts, t.State, fmtTime(t.CreatedAt), fmtTime(t.UpdatedAt), t.GateDeadline, fmtNullTime(t.ArchivedAt), t.OnUsageLimit); err != nil {
			return mapConstraint(err, "task "+t.ID)
		}
		if s.ID == "" {
			return nil
		}
		if _, err := tx.StmtContext(ctx, insSess).ExecContext(ctx, sessionArgs(s)...); err != nil {
			return mapConstraint(err, "session "+s.ID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: create task %s: %w", t.ID, err)
	}
	return nil
}

const insertTaskSQL = `INSERT INTO tasks (` + taskColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// GetTask returns one task, or ErrNotFound.
func (db *DB) GetTask(ctx context.Context, id string) (Task, error) {
	var t Task
	err := db.getRow(ctx, func(s scanner) (err error) {
		t, err = scanTask(s)
		return err
	}, "task "+id, `SELECT `+taskColumns+` FROM tasks WHERE id = ?`, id)
	if err != nil {
		return Task{}, fmt.Errorf("store: get task: %w", err)
	}
	return t, nil
}

// ListTasks returns every task, newest first (ties: last created first).
// The result is never nil.
func (db *DB) ListTasks(ctx context.Context) ([]Task, error) {
	out := []Task{}
	err := db.query(ctx, func(s scanner) error {
		t, err := scanTask(s)
		out = append(out, t)
		return err
	}, `SELECT `+taskColumns+` FROM tasks ORDER BY created_at DESC, rowid DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return out, nil
}
