package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// UpdateTask is store.DB.UpdateTask: title, state, archived_at and
// updated_at of a task; ErrNotFound when missing.
func (db *DB) UpdateTask(ctx context.Context, t store.Task) error {
	if t.ID == "" {
		return fmt.Errorf("store: update task: %w: task without id", store.ErrInvalid)
	}
	tag, err := db.exec(ctx, `UPDATE tasks SET title = $1, state = $2, archived_at = $3, updated_at = $4 WHERE id = $5`,
		t.Title, t.State, fmtNullTime(t.ArchivedAt), fmtTime(t.UpdatedAt), t.ID)
	if err != nil {
		return fmt.Errorf("store: update task %s: %w", t.ID, err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("store: update task: %w: task %s", store.ErrNotFound, t.ID)
	}
	return nil
}

// deleteTaskSQL removes what points at a task, children first (nothing
// cascades). $1 is the task id.
var deleteTaskSQL = []string{
	`DELETE FROM message_chunks WHERE message_id IN
		(SELECT m.id FROM messages m JOIN sessions s ON m.session_id = s.id WHERE s.task_id = $1)`,
	`DELETE FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE task_id = $1)`,
	`DELETE FROM events WHERE session_id IN (SELECT id FROM sessions WHERE task_id = $1)`,
	`DELETE FROM executions WHERE session_id IN (SELECT id FROM sessions WHERE task_id = $1)`,
	`DELETE FROM pending_retries WHERE task_id = $1 OR session_id IN (SELECT id FROM sessions WHERE task_id = $1)`,
	// A fleet's session leases (internal/fleet) go with their sessions.
	`DELETE FROM fleet_leases WHERE kind = 'session' AND key IN (SELECT id FROM sessions WHERE task_id = $1)`,
	`DELETE FROM sessions WHERE task_id = $1`,
}

// DeleteTask is store.DB.DeleteTask: the task and everything of its
// sessions in one transaction; ErrNotFound when the task does not exist.
func (db *DB) DeleteTask(ctx context.Context, id string) error {
	if id == "" {
		return fmt.Errorf("store: delete task: %w: task without id", store.ErrInvalid)
	}
	err := db.write(ctx, func(tx pgx.Tx) error {
		for _, q := range deleteTaskSQL {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, `DELETE FROM tasks WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("%w: task %s", store.ErrNotFound, id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	return nil
}
