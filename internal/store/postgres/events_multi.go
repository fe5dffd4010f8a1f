package postgres

// AppendEvents, in a file of its own while events.go's write path is
// reworked (group commit): applyEventTx is appendTx's transaction body.

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// AppendEvents appends several batches of events in one transaction, each
// batch atomic on its own (a savepoint): see store.DB.AppendEvents.
func (db *DB) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	errs := make([]error, len(batches))
	prepared := make([][]preparedWrite, len(batches))
	live := 0
	for i, b := range batches {
		for _, w := range b {
			p, err := prepareEventWrite(w)
			if err != nil {
				errs[i], prepared[i] = err, nil
				break
			}
			prepared[i] = append(prepared[i], p)
		}
		if errs[i] == nil && len(prepared[i]) > 0 {
			live++
		}
	}
	if live == 0 {
		return errs
	}
	batchErrs := make([]error, len(batches))
	err := db.write(ctx, func(tx pgx.Tx) error {
		clear(batchErrs) // a retried transaction starts over
		for i, ps := range prepared {
			if len(ps) == 0 {
				continue
			}
			sp, err := tx.Begin(ctx) // a savepoint
			if err != nil {
				return err
			}
			for _, p := range ps {
				if err := applyEventTx(ctx, sp, p); err != nil {
					batchErrs[i] = fmt.Errorf("store: append event %s/%d: %w", p.w.Event.SessionID, p.w.Event.Seq, fenced(err))
					break
				}
			}
			if batchErrs[i] != nil {
				err = sp.Rollback(ctx)
			} else {
				err = sp.Commit(ctx)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	for i, ps := range prepared {
		switch {
		case len(ps) == 0:
		case err != nil:
			errs[i] = fmt.Errorf("store: append events: %w", err)
		default:
			errs[i] = batchErrs[i]
		}
	}
	return errs
}

// preparedWrite is an EventWrite validated and encoded.
type preparedWrite struct {
	w                        store.EventWrite
	args, msgArgs, retryArgs []any
}

func prepareEventWrite(w store.EventWrite) (preparedWrite, error) {
	ev := w.Event
	if err := validateEventWrite(&w); err != nil {
		return preparedWrite{}, err
	}
	payload, err := encodeRaw(ev.Payload, "event payload")
	if err != nil {
		return preparedWrite{}, err
	}
	p := preparedWrite{w: w, args: []any{ev.Seq, ev.SessionID, ev.Type, payload, fmtTime(ev.At)}}
	if s := w.Session; s != nil {
		p.args = append(p.args, s.State, s.AgentSessionID, s.Generation, fmtTime(orTime(s.UpdatedAt, ev.At)))
	}
	if m := w.UpsertMessage; m != nil {
		if p.msgArgs, err = upsertArgs(m, ev); err != nil {
			return preparedWrite{}, err
		}
	}
	if r := w.SaveRetry; r != nil {
		if r.SessionID != ev.SessionID {
			return preparedWrite{}, fmt.Errorf("%w: retry of session %s in an event of %s", store.ErrInvalid, r.SessionID, ev.SessionID)
		}
		if p.retryArgs, err = savePendingRetryArgs(*r); err != nil {
			return preparedWrite{}, err
		}
	}
	return p, nil
}

// applyEventTx runs one prepared write's statements in tx (appendTx's).
func applyEventTx(ctx context.Context, tx pgx.Tx, p preparedWrite) error {
	w, ev, args, msgArgs, retryArgs := p.w, p.w.Event, p.args, p.msgArgs, p.retryArgs
	if c := w.ClaimRetry; c != nil {
		// First, so that a retry that is not claimable writes nothing.
		tag, err := tx.Exec(ctx, claimPendingRetrySQL, c.SessionID, c.Generation, c.Attempt)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return store.ErrNotClaimed
		}
	}
	adv := advanceSQL
	if w.Session != nil {
		adv = advanceSessionSQL
	}
	// One statement: the advance and the event, so a seq conflict is
	// a row count and not an aborted transaction.
	tag, err := tx.Exec(ctx, `WITH adv AS (`+adv+` RETURNING id)
		INSERT INTO events (session_id, seq, type, payload, at) SELECT $2::text, $1::bigint, $3::text, $4::json, $5::text FROM adv`, args...)
	if err != nil {
		return mapConstraint(err, "event")
	}
	if tag.RowsAffected() != 1 {
		return orConflict(seqErrorOn(ctx, tx, ev), ev)
	}

	if msgArgs != nil {
		tag, err := tx.Exec(ctx, `INSERT INTO messages (id, session_id, turn_id, seq, role, variant, text, metadata, actions, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (id) DO UPDATE SET turn_id = excluded.turn_id, role = excluded.role, variant = excluded.variant,
				text = excluded.text, metadata = excluded.metadata, actions = excluded.actions, updated_at = excluded.updated_at
			WHERE messages.session_id = excluded.session_id`, msgArgs...)
		if err != nil {
			return mapConstraint(err, "message "+w.UpsertMessage.ID)
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("%w: message %s belongs to another session", store.ErrExists, w.UpsertMessage.ID)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM message_chunks WHERE message_id = $1`, w.UpsertMessage.ID); err != nil {
			return err
		}
	}

	if a := w.AppendText; a != nil {
		tag, err := tx.Exec(ctx, `UPDATE messages SET updated_at = $1 WHERE id = $2 AND session_id = $3`, args[4], a.MessageID, ev.SessionID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("%w: message %s in session %s", store.ErrNotFound, a.MessageID, ev.SessionID)
		}
		if a.Delta != "" {
			if _, err := tx.Exec(ctx, `INSERT INTO message_chunks (message_id, seq, text) VALUES ($1, $2, $3)`,
				a.MessageID, ev.Seq, a.Delta); err != nil {
				return mapConstraint(err, "chunk of message "+a.MessageID)
			}
		}
	}

	if retryArgs != nil {
		if _, err := tx.Exec(ctx, savePendingRetrySQL, retryArgs...); err != nil {
			return mapConstraint(err, "pending retry")
		}
	}

	if w.DeleteRetry {
		if _, err := tx.Exec(ctx, `DELETE FROM pending_retries WHERE session_id = $1`, ev.SessionID); err != nil {
			return err
		}
	}

	if id := w.DeleteMessage; id != "" {
		// Blank the message's text in the earlier events that carried
		// it (see store.EventWrite.DeleteMessage), then delete it and
		// its chunks; a message of another session is left alone.
		if err := scrubEvents(ctx, tx, ev.SessionID, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `WITH m AS (DELETE FROM messages WHERE id = $1 AND session_id = $2 RETURNING id)
			DELETE FROM message_chunks WHERE message_id IN (SELECT id FROM m)`, id, ev.SessionID); err != nil {
			return err
		}
	}

	if t := w.Task; t != nil {
		tag, err := tx.Exec(ctx, `UPDATE tasks SET title = $1, agent = $2, workdir = $3, max_attempts = $4, state = $5,
			updated_at = $6, gate_deadline_ns = $7, archived_at = $8, on_usage_limit = $9 WHERE id = $10`,
			t.Title, t.Agent, t.Workdir, t.MaxAttempts, t.State, fmtTime(orTime(t.UpdatedAt, ev.At)), int64(t.GateDeadline), fmtNullTime(t.ArchivedAt), t.OnUsageLimit, t.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("%w: task %s", store.ErrNotFound, t.ID)
		}
	}
	return nil
}
