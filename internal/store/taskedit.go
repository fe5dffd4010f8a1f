package store

import (
	"context"
	"database/sql"
	"fmt"
)

// UpdateTask replaces what a user may change of a task outside a turn:
// its title, state and archived_at, and its updated_at. The orchestrator
// calls it under the lock of the task's session, so it never races the
// task row an event writes (EventWrite.Task). ErrNotFound when missing.
func (db *DB) UpdateTask(ctx context.Context, t Task) error {
	if t.ID == "" {
		return fmt.Errorf("store: update task: %w: task without id", ErrInvalid)
	}
	res, err := db.exec(ctx, `UPDATE tasks SET title = ?, state = ?, archived_at = ?, updated_at = ? WHERE id = ?`,
		t.Title, t.State, fmtNullTime(t.ArchivedAt), fmtTime(t.UpdatedAt), t.ID)
	if err != nil {
		return fmt.Errorf("store: update task %s: %w", t.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: update task %s: %w", t.ID, err)
	} else if n != 1 {
		return fmt.Errorf("store: update task: %w: task %s", ErrNotFound, t.ID)
	}
	return nil
}

// deleteTaskSQL removes a task and everything that points at it, children
// first (nothing cascades, migration 0001). ?1 is the task id.
var deleteTaskSQL = []string{
	`DELETE FROM message_chunks WHERE message_id IN
		(SELECT m.id FROM messages m JOIN sessions s ON m.session_id = s.id WHERE s.task_id = ?1)`,
	`DELETE FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE task_id = ?1)`,
	`DELETE FROM events WHERE session_id IN (SELECT id FROM sessions WHERE task_id = ?1)`,
	`DELETE FROM executions WHERE session_id IN (SELECT id FROM sessions WHERE task_id = ?1)`,
	`DELETE FROM pending_retries WHERE task_id = ?1 OR session_id IN (SELECT id FROM sessions WHERE task_id = ?1)`,
	`DELETE FROM sessions WHERE task_id = ?1`,
}

// DeleteTask removes a task with its sessions, messages, events,
// executions and pending retry in one transaction: all of it or, on any
// failure, nothing. ErrNotFound when the task does not exist. Files are
// not the store's business: the caller decides about the work directory.
func (db *DB) DeleteTask(ctx context.Context, id string) error {
	if id == "" {
		return fmt.Errorf("store: delete task: %w: task without id", ErrInvalid)
	}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range deleteTaskSQL {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("%w: task %s", ErrNotFound, id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	return nil
}
