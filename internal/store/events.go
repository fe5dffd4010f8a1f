package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// hotStmts are AppendEvent's statements, prepared once on the single
// writer connection; tx.StmtContext reuses them on that connection instead
// of compiling SQL for every streamed chunk.
type hotStmts struct {
	advanceSeq     *sql.Stmt
	advanceSession *sql.Stmt
	insertEvent    *sql.Stmt
	upsertMessage  *sql.Stmt
	touchMessage   *sql.Stmt
	insertChunk    *sql.Stmt
	dropChunks     *sql.Stmt
	dropChunksOf   *sql.Stmt
	deleteMessage  *sql.Stmt
	scrubEvents    *sql.Stmt
	scrubPlain     *sql.Stmt // scrubEvents for an id JSON writes as it is
	replaceTask    *sql.Stmt
	// The retry owner's: parking (with the notice), claiming, clearing.
	saveRetry    *sql.Stmt
	claimRetry   *sql.Stmt
	claimRetries *sql.Stmt
	deleteRetry  *sql.Stmt
	// The committer's, around each write of a group (commit.go).
	savepoint, rollbackTo, release *sql.Stmt
	// AppendEvents', around each batch (events_multi.go).
	batchSave, batchRollback, batchRelease *sql.Stmt
}

func (h *hotStmts) prepare(ctx context.Context, w *sql.DB) error {
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		// The seq check and the advance are one statement: it matches only
		// when last_seq is exactly Seq-1.
		// ?3 (?7) is the last seq: a batch of one session's events advances
		// it once (applyEvents).
		{&h.advanceSeq, `UPDATE sessions SET last_seq = ?3 WHERE id = ?2 AND last_seq = ?1 - 1`},
		{&h.advanceSession, `UPDATE sessions SET last_seq = ?7, state = ?3, agent_session_id = ?4, generation = ?5, updated_at = ?6
			WHERE id = ?2 AND last_seq = ?1 - 1`},
		{&h.insertEvent, `INSERT INTO events (session_id, seq, type, payload, at) VALUES (?, ?, ?, ?, ?)`},
		// A replace keeps seq and created_at (they describe the creating
		// event) and never moves a message to another session: the WHERE
		// turns that case into zero rows affected.
		{&h.upsertMessage, `INSERT INTO messages (id, session_id, turn_id, seq, role, variant, text, metadata, actions, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET turn_id = excluded.turn_id, role = excluded.role, variant = excluded.variant,
				text = excluded.text, metadata = excluded.metadata, actions = excluded.actions, updated_at = excluded.updated_at
			WHERE messages.session_id = excluded.session_id`},
		// An append touches the message row (small while it streams: its
		// text is the first chunk) and adds one chunk row: O(delta), never
		// a rewrite of the text so far (migration 0004).
		{&h.touchMessage, `UPDATE messages SET updated_at = ? WHERE id = ? AND session_id = ?`},
		{&h.insertChunk, `INSERT INTO message_chunks (message_id, seq, text) VALUES (?, ?, ?)`},
		// A replace or a delete takes the message's chunks with it.
		{&h.dropChunks, `DELETE FROM message_chunks WHERE message_id = ?`},
		{&h.dropChunksOf, `DELETE FROM message_chunks WHERE message_id = ?1 AND (SELECT session_id FROM messages WHERE id = ?1) = ?2`},
		{&h.deleteMessage, `DELETE FROM messages WHERE id = ? AND session_id = ?`},
		// Blanks a message's text in the earlier events that carried it
		// (see EventWrite.DeleteMessage). Its events are no older than the
		// message, so the range scan starts at its seq; a missing message
		// matches nothing.
		{&h.scrubEvents, `UPDATE events SET payload = CASE
				WHEN json_type(payload, '$.delta') IS NOT NULL THEN json_set(payload, '$.delta', '')
				ELSE json_remove(json_set(payload, '$.message.text', ''), '$.message.metadata.excerpt') END
			WHERE session_id = ?1
				AND seq >= (SELECT seq FROM messages WHERE id = ?2 AND session_id = ?1)
				AND type IN ('session.message.added', 'session.message.updated')
				AND (json_extract(payload, '$.message.id') = ?2 OR json_extract(payload, '$.message_id') = ?2)`},
		// The same, parsing only the events whose text holds the id: most
		// of a session's events since the message do not (the overload
		// gate's notice, deleted when its session is answered: 7% of the
		// CPU of a gate release, parsing every event after it).
		{&h.scrubPlain, `UPDATE events SET payload = CASE
				WHEN json_type(payload, '$.delta') IS NOT NULL THEN json_set(payload, '$.delta', '')
				ELSE json_remove(json_set(payload, '$.message.text', ''), '$.message.metadata.excerpt') END
			WHERE session_id = ?1
				AND seq >= (SELECT seq FROM messages WHERE id = ?2 AND session_id = ?1)
				AND type IN ('session.message.added', 'session.message.updated')
				AND instr(payload, ?2) > 0
				AND (json_extract(payload, '$.message.id') = ?2 OR json_extract(payload, '$.message_id') = ?2)`},
		{&h.saveRetry, savePendingRetrySQL},
		{&h.claimRetry, `UPDATE pending_retries SET state = 'dispatching'
			WHERE session_id = ? AND generation = ? AND attempt = ? AND state = 'pending'`},
		// Many claims in one statement: ?1 is a JSON array of
		// [session_id, generation, attempt]; the claimed sessions come back.
		{&h.claimRetries, `UPDATE pending_retries SET state = 'dispatching'
			FROM (SELECT value ->> 0 AS sid, value ->> 1 AS gen, value ->> 2 AS att FROM json_each(?1)) AS k
			WHERE pending_retries.session_id = k.sid AND pending_retries.generation = k.gen
				AND pending_retries.attempt = k.att AND pending_retries.state = 'pending'
			RETURNING pending_retries.session_id`},
		{&h.deleteRetry, `DELETE FROM pending_retries WHERE session_id = ?`},
		{&h.replaceTask, `UPDATE tasks SET title = ?, agent = ?, workdir = ?, max_attempts = ?, state = ?, updated_at = ?, gate_deadline_ns = ?, archived_at = ?, on_usage_limit = ? WHERE id = ?`},
		{&h.savepoint, `SAVEPOINT w`},
		{&h.rollbackTo, `ROLLBACK TO w`},
		{&h.release, `RELEASE w`},
		{&h.batchSave, `SAVEPOINT b`},
		{&h.batchRollback, `ROLLBACK TO b`},
		{&h.batchRelease, `RELEASE b`},
	} {
		s, err := w.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("store: prepare: %w", err)
		}
		*p.dst = s
	}
	return nil
}

func (h *hotStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{h.advanceSeq, h.advanceSession, h.insertEvent, h.upsertMessage, h.touchMessage,
		h.insertChunk, h.dropChunks, h.dropChunksOf, h.deleteMessage, h.scrubEvents, h.scrubPlain, h.replaceTask,
		h.saveRetry, h.claimRetry, h.claimRetries, h.deleteRetry, h.savepoint, h.rollbackTo, h.release, h.batchSave, h.batchRollback, h.batchRelease} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// AppendEvent appends w.Event to its session's log and applies the
// optional changes of w, all in one transaction (see EventWrite). An Event
// whose Seq is not the session's last_seq+1 fails with ErrSeqConflict; an
// unknown session with ErrNotFound; in both cases nothing is written.
//
// It runs for every flush of streamed text: one short transaction of
// prepared statements. An AppendText adds a chunk row; its cost is the
// delta's, whatever the length of the message (see BenchmarkAppendEvent).
func (db *DB) AppendEvent(ctx context.Context, w EventWrite) error {
	p, err := prepareEventWrite(w)
	if err != nil {
		return err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error { return db.applyEventWrite(ctx, tx, p) })
	if err != nil {
		return p.wrap(err)
	}
	return nil
}

// preparedWrite is an EventWrite validated and encoded outside the
// transaction, to keep the write lock short.
type preparedWrite struct {
	w                  EventWrite
	payload            any
	at                 string
	msgArgs, retryArgs []any
}

func (p *preparedWrite) wrap(err error) error {
	return fmt.Errorf("store: append event %s/%d: %w", p.w.Event.SessionID, p.w.Event.Seq, err)
}

func prepareEventWrite(w EventWrite) (*preparedWrite, error) {
	ev := w.Event
	if err := validateEventWrite(&w); err != nil {
		return nil, err
	}
	payload, err := encodeRaw(ev.Payload, "event payload")
	if err != nil {
		return nil, err
	}
	p := &preparedWrite{w: w, payload: payload, at: fmtTime(ev.At)}
	if m := w.UpsertMessage; m != nil {
		if p.msgArgs, err = upsertArgs(m, ev); err != nil {
			return nil, err
		}
	}
	if r := w.SaveRetry; r != nil {
		if r.SessionID != ev.SessionID {
			return nil, fmt.Errorf("store: append event: %w: retry of session %s in an event of %s", ErrInvalid, r.SessionID, ev.SessionID)
		}
		if p.retryArgs, err = savePendingRetryArgs(*r); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// applyEventWrite runs one prepared write's statements in tx.
func (db *DB) applyEventWrite(ctx context.Context, tx *sql.Tx, p *preparedWrite) error {
	if err := db.claim(ctx, tx, p); err != nil {
		return err
	}
	if err := db.advance(ctx, tx, p.w.Event, p, p.w.Event.Seq); err != nil {
		return err
	}
	return db.applyRest(ctx, tx, p)
}

// claim claims the write's pending retry, if it carries a claim.
func (db *DB) claim(ctx context.Context, tx *sql.Tx, p *preparedWrite) error {
	c := p.w.ClaimRetry
	if c == nil {
		return nil
	}
	res, err := tx.StmtContext(ctx, db.hot.claimRetry).ExecContext(ctx, c.SessionID, c.Generation, c.Attempt)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return ErrNotClaimed
	}
	return nil
}

// advance moves the session of first from first.Seq-1 to last, with the
// session row of p (when it carries one): the seq check and the advance
// in one statement.
func (db *DB) advance(ctx context.Context, tx *sql.Tx, first Event, p *preparedWrite, last int64) error {
	var res sql.Result
	var err error
	if s := p.w.Session; s != nil {
		res, err = tx.StmtContext(ctx, db.hot.advanceSession).ExecContext(ctx,
			first.Seq, first.SessionID, s.State, s.AgentSessionID, s.Generation, fmtTime(orTime(s.UpdatedAt, p.w.Event.At)), last)
	} else {
		res, err = tx.StmtContext(ctx, db.hot.advanceSeq).ExecContext(ctx, first.Seq, first.SessionID, last)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return seqError(ctx, tx, first)
	}
	return nil
}

// applyRest runs the write's statements after its claim and its advance.
func (db *DB) applyRest(ctx context.Context, tx *sql.Tx, p *preparedWrite) error {
	ev := p.w.Event
	if _, err := tx.StmtContext(ctx, db.hot.insertEvent).ExecContext(ctx, ev.SessionID, ev.Seq, ev.Type, p.payload, p.at); err != nil {
		return mapConstraint(err, "event")
	}

	if p.msgArgs != nil {
		res, err := tx.StmtContext(ctx, db.hot.upsertMessage).ExecContext(ctx, p.msgArgs...)
		if err != nil {
			return mapConstraint(err, "message "+p.w.UpsertMessage.ID)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("%w: message %s belongs to another session", ErrExists, p.w.UpsertMessage.ID)
		}
		if _, err := tx.StmtContext(ctx, db.hot.dropChunks).ExecContext(ctx, p.w.UpsertMessage.ID); err != nil {
			return err
		}
	}

	if a := p.w.AppendText; a != nil {
		res, err := tx.StmtContext(ctx, db.hot.touchMessage).ExecContext(ctx, p.at, a.MessageID, ev.SessionID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("%w: message %s in session %s", ErrNotFound, a.MessageID, ev.SessionID)
		}
		if a.Delta != "" {
			if _, err := tx.StmtContext(ctx, db.hot.insertChunk).ExecContext(ctx, a.MessageID, ev.Seq, a.Delta); err != nil {
				return mapConstraint(err, "chunk of message "+a.MessageID)
			}
		}
	}

	if p.retryArgs != nil {
		if _, err := tx.StmtContext(ctx, db.hot.saveRetry).ExecContext(ctx, p.retryArgs...); err != nil {
			return mapConstraint(err, "pending retry")
		}
	}
	if p.w.DeleteRetry {
		if _, err := tx.StmtContext(ctx, db.hot.deleteRetry).ExecContext(ctx, ev.SessionID); err != nil {
			return err
		}
	}

	if id := p.w.DeleteMessage; id != "" {
		scrub := db.hot.scrubEvents
		if plainJSON(id) {
			scrub = db.hot.scrubPlain
		}
		if _, err := tx.StmtContext(ctx, scrub).ExecContext(ctx, ev.SessionID, id); err != nil {
			return err
		}
		if err := deleteMessage(ctx, tx, &db.hot, id, ev.SessionID); err != nil {
			return err
		}
	}

	if t := p.w.Task; t != nil {
		res, err := tx.StmtContext(ctx, db.hot.replaceTask).ExecContext(ctx,
			t.Title, t.Agent, t.Workdir, t.MaxAttempts, t.State, fmtTime(orTime(t.UpdatedAt, ev.At)), t.GateDeadline, fmtNullTime(t.ArchivedAt), t.OnUsageLimit, t.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("%w: task %s", ErrNotFound, t.ID)
		}
	}
	return nil
}

// plainJSON: s stands in a JSON string as it is (no escapes), so an event
// that names it holds its bytes.
func plainJSON(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// deleteMessage deletes a message of the session with its chunks; a
// message of another session is left alone.
func deleteMessage(ctx context.Context, tx *sql.Tx, h *hotStmts, id, sessionID string) error {
	if _, err := tx.StmtContext(ctx, h.dropChunksOf).ExecContext(ctx, id, sessionID); err != nil {
		return err
	}
	_, err := tx.StmtContext(ctx, h.deleteMessage).ExecContext(ctx, id, sessionID)
	return err
}

// seqError explains why advancing last_seq matched no row.
func seqError(ctx context.Context, tx *sql.Tx, ev Event) error {
	var last int64
	err := tx.QueryRowContext(ctx, `SELECT last_seq FROM sessions WHERE id = ?`, ev.SessionID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: session %s", ErrNotFound, ev.SessionID)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: session %s is at seq %d, so the next event must be %d, not %d",
		ErrSeqConflict, ev.SessionID, last, last+1, ev.Seq)
}

func validateEventWrite(w *EventWrite) error {
	ev := w.Event
	switch {
	case ev.SessionID == "":
		return fmt.Errorf("%w: event without session id", ErrInvalid)
	case ev.Seq < 1:
		return fmt.Errorf("%w: event seq %d (seqs start at 1)", ErrInvalid, ev.Seq)
	case ev.Type == "":
		return fmt.Errorf("%w: event without type", ErrInvalid)
	case w.Session != nil && w.Session.ID != ev.SessionID:
		return fmt.Errorf("%w: session %q in an event of session %q", ErrInvalid, w.Session.ID, ev.SessionID)
	case w.UpsertMessage != nil && w.UpsertMessage.ID == "":
		return fmt.Errorf("%w: message without id", ErrInvalid)
	case w.UpsertMessage != nil && w.UpsertMessage.SessionID != "" && w.UpsertMessage.SessionID != ev.SessionID:
		return fmt.Errorf("%w: message of session %q in an event of session %q", ErrInvalid, w.UpsertMessage.SessionID, ev.SessionID)
	case w.AppendText != nil && w.AppendText.MessageID == "":
		return fmt.Errorf("%w: text append without message id", ErrInvalid)
	case w.ClaimRetry != nil && w.ClaimRetry.SessionID != ev.SessionID:
		return fmt.Errorf("%w: claim of a retry of session %q in an event of session %q", ErrInvalid, w.ClaimRetry.SessionID, ev.SessionID)
	case w.DeleteRetry && (w.SaveRetry != nil || w.ClaimRetry != nil):
		return fmt.Errorf("%w: an event that deletes the pending retry cannot also save or claim it", ErrInvalid)
	case w.Task != nil && w.Task.ID == "":
		return fmt.Errorf("%w: task without id", ErrInvalid)
	case w.Task != nil && w.Task.GateDeadline < 0:
		return fmt.Errorf("%w: task %s: negative gate deadline %s", ErrInvalid, w.Task.ID, w.Task.GateDeadline)
	}
	return nil
}

// upsertArgs are upsertMessage's arguments, with the defaults of EventWrite.
func upsertArgs(m *Message, ev Event) ([]any, error) {
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

// ListEvents returns the session's events with seq > afterSeq, oldest
// first, at most limit of them (limit <= 0: all). An unknown session has no
// events. The result is never nil.
func (db *DB) ListEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	out := []Event{}
	err := db.query(ctx, func(s scanner) error {
		var e Event
		var payload sql.NullString
		var at string
		if err := s.Scan(&e.SessionID, &e.Seq, &e.Type, &payload, &at); err != nil {
			return err
		}
		e.Payload = decodeRaw(payload)
		var err error
		if e.At, err = parseTime(at); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, `SELECT session_id, seq, type, payload, at FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		sessionID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list events of %s: %w", sessionID, err)
	}
	return out, nil
}
