package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// advanceSQL advances last_seq from $1-1 to $1 (the seq check and the
// advance are one statement); with a session, it replaces the session's
// mutable fields too ($6…$9).
const (
	advanceSQL        = `UPDATE sessions SET last_seq = $1 WHERE id = $2 AND last_seq = $1 - 1`
	advanceSessionSQL = `UPDATE sessions SET last_seq = $1, state = $6, agent_session_id = $7, generation = $8, updated_at = $9
		WHERE id = $2 AND last_seq = $1 - 1`
	insertEventSQL = `INSERT INTO events (session_id, seq, type, payload, at) VALUES ($2, $1, $3, $4, $5)`
)

// AppendEvent appends w.Event and applies its changes atomically, only if
// its Seq is the session's last_seq+1 (see store.EventWrite and
// store.DB.AppendEvent for the contract).
//
// An event alone, or with a text append and/or a session change — every
// streamed chunk — is one statement of data-modifying CTEs: one round trip
// in autocommit, all of it or nothing. The other changes run as a
// transaction of statements in EventWrite's order.
func (db *DB) AppendEvent(ctx context.Context, w store.EventWrite) error {
	ev := w.Event
	if err := validateEventWrite(&w); err != nil {
		return err
	}
	payload, err := encodeRaw(ev.Payload, "event payload")
	if err != nil {
		return err
	}
	at := fmtTime(ev.At)
	args := []any{ev.Seq, ev.SessionID, ev.Type, payload, at}
	if s := w.Session; s != nil {
		args = append(args, s.State, s.AgentSessionID, s.Generation, fmtTime(orTime(s.UpdatedAt, ev.At)))
	}
	if w.UpsertMessage == nil && w.DeleteMessage == "" && w.Task == nil && w.SaveRetry == nil && w.ClaimRetry == nil && !w.DeleteRetry {
		err = db.appendFast(ctx, w, args)
	} else {
		err = db.appendTx(ctx, w, args)
	}
	if err != nil {
		return fmt.Errorf("store: append event %s/%d: %w", ev.SessionID, ev.Seq, err)
	}
	return nil
}

// appendFast is the one-statement path.
func (db *DB) appendFast(ctx context.Context, w store.EventWrite, args []any) error {
	adv := advanceSQL
	if w.Session != nil {
		adv = advanceSessionSQL
	}
	a := w.AppendText
	if a == nil {
		sql := `WITH adv AS (` + adv + ` RETURNING id)
			INSERT INTO events (session_id, seq, type, payload, at) SELECT $2::text, $1::bigint, $3::text, $4::json, $5::text FROM adv`
		tag, err := db.exec(ctx, sql, args...)
		if err != nil {
			return mapConstraint(err, "event")
		}
		if tag.RowsAffected() != 1 {
			return orConflict(db.seqError(ctx, w.Event), w.Event)
		}
		return nil
	}
	// $10, $11: the message and the delta. The session advances only if
	// the message is there, so a missing message writes nothing.
	n := len(args)
	args = append(args, a.MessageID, a.Delta)
	pm, pd := fmt.Sprintf("$%d::text", n+1), fmt.Sprintf("$%d::text", n+2)
	sql := `WITH m AS (SELECT id FROM messages WHERE id = ` + pm + ` AND session_id = $2),`
	if db.asyncChunks {
		// The commit of a chunk does not wait for its WAL flush (see
		// Open); set_config(…, true) lasts until that commit.
		sql = `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true) AS v),
		m AS (SELECT id FROM messages WHERE id = ` + pm + ` AND session_id = $2 AND (SELECT v FROM cfg) IS NOT NULL),`
	}
	sql += `
		adv AS (` + adv + ` AND EXISTS (SELECT FROM m) RETURNING id),
		ev AS (INSERT INTO events (session_id, seq, type, payload, at) SELECT $2::text, $1::bigint, $3::text, $4::json, $5::text FROM adv),
		touch AS (UPDATE messages SET updated_at = $5::text WHERE id = ` + pm + ` AND EXISTS (SELECT FROM adv)),
		ch AS (INSERT INTO message_chunks (message_id, seq, text) SELECT ` + pm + `, $1::bigint, ` + pd + ` FROM adv WHERE ` + pd + ` <> '')
		SELECT (SELECT count(*) FROM adv), (SELECT count(*) FROM m)`
	var advanced, found int
	if err := db.usable(ctx); err != nil {
		return err
	}
	err := db.pool.QueryRow(ctx, sql, args...).Scan(&advanced, &found)
	if err = db.fail(ctx, db.note(err)); err != nil {
		return mapConstraint(err, "chunk of message "+a.MessageID)
	}
	if advanced == 1 {
		return nil
	}
	if err := db.seqError(ctx, w.Event); err != nil {
		return err
	}
	return fmt.Errorf("%w: message %s in session %s", store.ErrNotFound, a.MessageID, w.Event.SessionID)
}

// appendTx is the general path: one transaction.
func (db *DB) appendTx(ctx context.Context, w store.EventWrite, args []any) error {
	ev := w.Event
	var msgArgs, retryArgs []any
	var err error
	if m := w.UpsertMessage; m != nil {
		if msgArgs, err = upsertArgs(m, ev); err != nil {
			return err
		}
	}
	if r := w.SaveRetry; r != nil {
		if r.SessionID != ev.SessionID {
			return fmt.Errorf("%w: retry of session %s in an event of %s", store.ErrInvalid, r.SessionID, ev.SessionID)
		}
		if retryArgs, err = savePendingRetryArgs(*r); err != nil {
			return err
		}
	}
	return db.write(ctx, func(tx pgx.Tx) error {
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
	})
}

// seqError explains why advancing last_seq matched no row, or is nil when
// the seq was right (the cause was elsewhere).
func (db *DB) seqError(ctx context.Context, ev store.Event) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	return db.fail(ctx, seqErrorOn(ctx, db.pool, ev))
}

func seqErrorOn(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, ev store.Event) error {
	var last int64
	err := q.QueryRow(ctx, `SELECT last_seq FROM sessions WHERE id = $1`, ev.SessionID).Scan(&last)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: session %s", store.ErrNotFound, ev.SessionID)
	}
	if err != nil {
		return err
	}
	if last == ev.Seq-1 {
		return nil
	}
	return fmt.Errorf("%w: session %s is at seq %d, so the next event must be %d, not %d",
		store.ErrSeqConflict, ev.SessionID, last, last+1, ev.Seq)
}

// orConflict: a seq that matched nothing and yet looks right was taken
// and given back by a concurrent writer; it is still a conflict.
func orConflict(err error, ev store.Event) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: session %s: seq %d was not the next one", store.ErrSeqConflict, ev.SessionID, ev.Seq)
}

func validateEventWrite(w *store.EventWrite) error {
	ev := w.Event
	switch {
	case ev.SessionID == "":
		return fmt.Errorf("%w: event without session id", store.ErrInvalid)
	case ev.Seq < 1:
		return fmt.Errorf("%w: event seq %d (seqs start at 1)", store.ErrInvalid, ev.Seq)
	case ev.Type == "":
		return fmt.Errorf("%w: event without type", store.ErrInvalid)
	case w.Session != nil && w.Session.ID != ev.SessionID:
		return fmt.Errorf("%w: session %q in an event of session %q", store.ErrInvalid, w.Session.ID, ev.SessionID)
	case w.UpsertMessage != nil && w.UpsertMessage.ID == "":
		return fmt.Errorf("%w: message without id", store.ErrInvalid)
	case w.UpsertMessage != nil && w.UpsertMessage.SessionID != "" && w.UpsertMessage.SessionID != ev.SessionID:
		return fmt.Errorf("%w: message of session %q in an event of session %q", store.ErrInvalid, w.UpsertMessage.SessionID, ev.SessionID)
	case w.AppendText != nil && w.AppendText.MessageID == "":
		return fmt.Errorf("%w: text append without message id", store.ErrInvalid)
	case w.ClaimRetry != nil && w.ClaimRetry.SessionID != ev.SessionID:
		return fmt.Errorf("%w: claim of a retry of session %q in an event of session %q", store.ErrInvalid, w.ClaimRetry.SessionID, ev.SessionID)
	case w.DeleteRetry && (w.SaveRetry != nil || w.ClaimRetry != nil):
		return fmt.Errorf("%w: an event that deletes the pending retry cannot also save or claim it", store.ErrInvalid)
	case w.Task != nil && w.Task.ID == "":
		return fmt.Errorf("%w: task without id", store.ErrInvalid)
	case w.Task != nil && w.Task.GateDeadline < 0:
		return fmt.Errorf("%w: task %s: negative gate deadline %s", store.ErrInvalid, w.Task.ID, w.Task.GateDeadline)
	}
	return nil
}

func upsertArgs(m *store.Message, ev store.Event) ([]any, error) {
	meta, err := encodeJSON(m.Metadata, m.Metadata == nil, "message metadata")
	if err != nil {
		return nil, err
	}
	actions, err := encodeJSON(m.Actions, m.Actions == nil, "message actions")
	if err != nil {
		return nil, err
	}
	seq := m.Seq
	if seq == 0 {
		seq = ev.Seq
	}
	return []any{
		m.ID, ev.SessionID, m.TurnID, seq, m.Role, m.Variant, m.Text, meta, actions,
		fmtTime(orTime(m.CreatedAt, ev.At)), fmtTime(orTime(m.UpdatedAt, ev.At)),
	}, nil
}

// scrubEvents blanks message id's text in the session's earlier events
// that carried it: "delta", or "message.text" and "message.metadata.excerpt".
// The payloads are rewritten in Go, compact like the SQLite store's
// json_set: jsonb would re-space every payload it touched.
func scrubEvents(ctx context.Context, tx pgx.Tx, sessionID, id string) error {
	type hit struct {
		seq     int64
		payload []byte
	}
	var hits []hit
	err := queryRows(ctx, tx, func(r pgx.Rows) error {
		var h hit
		if err := r.Scan(&h.seq, &h.payload); err != nil {
			return err
		}
		hits = append(hits, h)
		return nil
	}, `SELECT seq, payload FROM events
		WHERE session_id = $1
			AND seq >= (SELECT seq FROM messages WHERE id = $2 AND session_id = $1)
			AND type IN ('session.message.added', 'session.message.updated')
			AND jsonb_typeof(payload::jsonb) = 'object'
			AND (payload::jsonb #>> '{message,id}' = $2 OR payload::jsonb ->> 'message_id' = $2)
		ORDER BY seq`, sessionID, id)
	if err != nil {
		return err
	}
	for _, h := range hits {
		out, err := scrubPayload(h.payload)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE events SET payload = $3 WHERE session_id = $1 AND seq = $2`, sessionID, h.seq, string(out)); err != nil {
			return err
		}
	}
	return nil
}

func scrubPayload(b []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("store: scrub event payload: %w", err)
	}
	if _, ok := top["delta"]; ok {
		top["delta"] = json.RawMessage(`""`)
		return json.Marshal(top)
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(top["message"], &msg); err != nil || msg == nil {
		return b, nil //nolint:nilerr // no message object: nothing of it to blank
	}
	msg["text"] = json.RawMessage(`""`)
	var meta map[string]json.RawMessage
	if json.Unmarshal(msg["metadata"], &meta) == nil && meta != nil {
		delete(meta, "excerpt")
		m, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		msg["metadata"] = m
	}
	m, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	top["message"] = m
	return json.Marshal(top)
}
