package postgres

import (
	"context"
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
	insertEventFromAdv = `INSERT INTO events (session_id, seq, type, payload, at) SELECT $2::text, $1::bigint, $3::text, $4::json, $5::text FROM adv`
)

// The statements of AppendEvent, built once (pgx prepares each once per
// connection), [0] without a session change and [1] with one.
var (
	// eventSQL: the advance and the event; one row affected iff the seq
	// was the next one.
	eventSQL = [2]string{eventStmt(advanceSQL), eventStmt(advanceSessionSQL)}
	// chunkSQL: the advance, the event, the text append and the message's
	// updated_at, in one statement (data-modifying CTEs), written only if
	// the message is there; one row affected iff all of it was written.
	chunkSQL = [2]string{chunkStmt(advanceSQL, 5, false), chunkStmt(advanceSessionSQL, 9, false)}
	// chunkAloneSQL: chunkSQL as it runs alone, in autocommit; it sets
	// synchronous_commit off for its own commit (see Open).
	chunkAloneSQL = [2]string{chunkStmt(advanceSQL, 5, true), chunkStmt(advanceSessionSQL, 9, true)}
	// eventCheckSQL: eventSQL that raises when the seq is not the next
	// one, for an event with more changes (see stmt).
	eventCheckSQL = [2]string{eventCheckStmt(advanceSQL), eventCheckStmt(advanceSessionSQL)}
)

func eventStmt(adv string) string {
	return `WITH adv AS (` + adv + ` RETURNING id) ` + insertEventFromAdv
}

func eventCheckStmt(adv string) string {
	return `WITH adv AS (` + adv + ` RETURNING id), ev AS (` + insertEventFromAdv + ` RETURNING 1)
		SELECT orchestratord_assert(count(*) = 1, 'seq conflict') FROM ev`
}

// chunkStmt: the message and the delta are the parameters after adv's n.
func chunkStmt(adv string, n int, async bool) string {
	pm, pd := fmt.Sprintf("$%d::text", n+1), fmt.Sprintf("$%d::text", n+2)
	m := `WITH m AS (SELECT id FROM messages WHERE id = ` + pm + ` AND session_id = $2),`
	if async {
		// set_config(…, true) lasts until the statement's commit.
		m = `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true) AS v),
		m AS (SELECT id FROM messages WHERE id = ` + pm + ` AND session_id = $2 AND (SELECT v FROM cfg) IS NOT NULL),`
	}
	return m + `
		adv AS (` + adv + ` AND EXISTS (SELECT FROM m) RETURNING id),
		ev AS (` + insertEventFromAdv + `),
		ch AS (INSERT INTO message_chunks (message_id, seq, text) SELECT ` + pm + `, $1::bigint, ` + pd + ` FROM adv WHERE ` + pd + ` <> '')
		UPDATE messages SET updated_at = $5::text WHERE id = ` + pm + ` AND EXISTS (SELECT FROM adv)`
}

// The other changes of an event, each one statement; those with a check
// raise (orchestratord_assert) when it fails.
const (
	claimCheckSQL = `WITH c AS (` + claimPendingRetrySQL + ` RETURNING 1)
		SELECT orchestratord_assert(count(*) = 1, 'retry not claimable') FROM c`
	// The message, unless it is another session's, and none of its
	// chunks (its text is the upsert's).
	upsertMessageSQL = `WITH u AS (INSERT INTO messages (id, session_id, turn_id, seq, role, variant, text, metadata, actions, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (id) DO UPDATE SET turn_id = excluded.turn_id, role = excluded.role, variant = excluded.variant,
				text = excluded.text, metadata = excluded.metadata, actions = excluded.actions, updated_at = excluded.updated_at
			WHERE messages.session_id = excluded.session_id
			RETURNING id),
		d AS (DELETE FROM message_chunks WHERE message_id = (SELECT id FROM u))
		SELECT orchestratord_assert(count(*) = 1, 'message of another session') FROM u`
	appendTextSQL = `WITH t AS (UPDATE messages SET updated_at = $1 WHERE id = $2 AND session_id = $3 RETURNING id),
		c AS (INSERT INTO message_chunks (message_id, seq, text) SELECT id, $4::bigint, $5::text FROM t WHERE $5::text <> '')
		SELECT orchestratord_assert(count(*) = 1, 'no such message') FROM t`
	deleteRetrySQL   = `DELETE FROM pending_retries WHERE session_id = $1`
	deleteMessageSQL = `WITH m AS (DELETE FROM messages WHERE id = $1 AND session_id = $2 RETURNING id)
		DELETE FROM message_chunks WHERE message_id IN (SELECT id FROM m)`
	updateTaskSQL = `WITH t AS (UPDATE tasks SET title = $1, agent = $2, workdir = $3, max_attempts = $4, state = $5,
			updated_at = $6, gate_deadline_ns = $7, archived_at = $8, on_usage_limit = $9 WHERE id = $10 RETURNING 1)
		SELECT orchestratord_assert(count(*) = 1, 'no such task') FROM t`
)

// errSeq: the event's seq check failed; AppendEvent says why.
var errSeq = errors.New("seq check failed")

// AppendEvent appends w.Event and applies its changes atomically, only if
// its Seq is the session's last_seq+1 (see store.EventWrite and
// store.DB.AppendEvent for the contract).
//
// An event alone, or with a text append and/or a session change — every
// streamed chunk — is one statement of data-modifying CTEs. The other
// changes are a statement each, in EventWrite's order, in one
// transaction. Either way the write goes through the committers (one
// round trip, a commit shared with the writes that arrived with it).
func (db *DB) AppendEvent(ctx context.Context, w store.EventWrite) error {
	ws, scs, err := []store.EventWrite{w}, []*scrubbing(nil), error(nil)
	if w.DeleteMessage != "" {
		ws, scs, err = db.prepareScrubs(ctx, ws)
	}
	var p eventPlan
	if err == nil {
		p, err = planEvent(ws[0], true, scrubOf(scs, 0))
	}
	if err == nil {
		err = db.explain(ctx, w, p, db.submit(ctx, p.async, p.stmts...))
	}
	if err != nil {
		return fmt.Errorf("store: append event %s/%d: %w", w.Event.SessionID, w.Event.Seq, err)
	}
	return nil
}

// scrubOf is write k's scrub (prepareScrubs), nil without one.
func scrubOf(scs []*scrubbing, k int) *scrubbing {
	if scs == nil {
		return nil
	}
	return scs[k]
}

// eventPlan is an event's statements.
type eventPlan struct {
	stmts []*stmt
	// fast: one statement that writes nothing, without an error, when the
	// seq is not the next one (or the message of a chunk is missing).
	fast bool
	// async: a streamed chunk, which may commit without waiting for its
	// WAL flush (see Open).
	async bool
}

// eventArgs are the parameters of an event's statements: the event's
// ($1…$5), then the session row's when it has one ($6…$9).
func eventArgs(w store.EventWrite) ([]any, error) {
	ev := w.Event
	payload, err := encodeRaw(ev.Payload, "event payload")
	if err != nil {
		return nil, err
	}
	args := []any{ev.Seq, ev.SessionID, ev.Type, payload, fmtTime(ev.At)}
	if s := w.Session; s != nil {
		args = append(args, s.State, s.AgentSessionID, s.Generation, fmtTime(orTime(s.UpdatedAt, ev.At)))
	}
	return args, nil
}

// planEvent plans w; fast plans (an event alone, a streamed chunk) only
// when the write runs alone: a fast statement that writes nothing raises
// nothing, which a batch would not notice. sc is its DeleteMessage's
// scrub (prepareScrubs).
func planEvent(w store.EventWrite, alone bool, sc *scrubbing) (eventPlan, error) {
	if err := validateEventWrite(&w); err != nil {
		return eventPlan{}, err
	}
	args, err := eventArgs(w)
	if err != nil {
		return eventPlan{}, err
	}
	sess := btoi(w.Session != nil)
	if alone && w.UpsertMessage == nil && w.DeleteMessage == "" && w.Task == nil && w.SaveRetry == nil && w.ClaimRetry == nil && !w.DeleteRetry {
		if a := w.AppendText; a != nil {
			s := plain("chunk of message "+a.MessageID, chunkSQL[sess], append(args, a.MessageID, a.Delta)...)
			s.alone = chunkAloneSQL[sess]
			return eventPlan{stmts: []*stmt{s}, fast: true, async: true}, nil
		}
		return eventPlan{stmts: []*stmt{plain("event", eventSQL[sess], args...)}, fast: true}, nil
	}

	// The general path: a statement per change, in one transaction; a
	// check that fails rolls all of it back.
	var stmts []*stmt
	if c := w.ClaimRetry; c != nil {
		// First, so that a retry that is not claimable writes nothing.
		stmts = append(stmts, claimStmt(c))
	}
	stmts = append(stmts, check("event", eventCheckSQL[sess], errSeq, args...))
	rest, err := changeStmts(w, sc)
	if err != nil {
		return eventPlan{}, err
	}
	return eventPlan{stmts: append(stmts, rest...)}, nil
}

// claimStmt claims the retry c or raises store.ErrNotClaimed.
func claimStmt(c *store.RetryClaim) *stmt {
	return check("pending retry", claimCheckSQL, store.ErrNotClaimed, c.SessionID, c.Generation, c.Attempt)
}

// changeStmts are the statements of w's changes other than its event and
// its claim, in EventWrite's order; sc is its DeleteMessage's scrub.
func changeStmts(w store.EventWrite, sc *scrubbing) ([]*stmt, error) {
	ev := w.Event
	at := fmtTime(ev.At)
	var stmts []*stmt
	if m := w.UpsertMessage; m != nil {
		msgArgs, err := upsertArgs(m, ev)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, check("message "+m.ID, upsertMessageSQL,
			fmt.Errorf("%w: message %s belongs to another session", store.ErrExists, m.ID), msgArgs...))
	}
	if a := w.AppendText; a != nil {
		stmts = append(stmts, check("chunk of message "+a.MessageID, appendTextSQL,
			fmt.Errorf("%w: message %s in session %s", store.ErrNotFound, a.MessageID, ev.SessionID),
			at, a.MessageID, ev.SessionID, ev.Seq, a.Delta))
	}
	if r := w.SaveRetry; r != nil {
		if r.SessionID != ev.SessionID {
			return nil, fmt.Errorf("%w: retry of session %s in an event of %s", store.ErrInvalid, r.SessionID, ev.SessionID)
		}
		retryArgs, err := savePendingRetryArgs(*r)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, plain("pending retry", savePendingRetrySQL, retryArgs...))
	}
	if w.DeleteRetry {
		stmts = append(stmts, plain("pending retry", deleteRetrySQL, ev.SessionID))
	}
	if id := w.DeleteMessage; id != "" {
		// Blank the message's text in the earlier events that carried it
		// (see store.EventWrite.DeleteMessage and scrub.go), then delete
		// it and its chunks; a message of another session is left alone.
		stmts = append(stmts, deleteStmt(id, ev.SessionID, sc))
	}
	if t := w.Task; t != nil {
		stmts = append(stmts, check("task "+t.ID, updateTaskSQL, fmt.Errorf("%w: task %s", store.ErrNotFound, t.ID),
			t.Title, t.Agent, t.Workdir, t.MaxAttempts, t.State, fmtTime(orTime(t.UpdatedAt, ev.At)), int64(t.GateDeadline),
			fmtNullTime(t.ArchivedAt), t.OnUsageLimit, t.ID))
	}
	return stmts, nil
}

// explain turns the outcome of an event's statements into AppendEvent's
// answer: why a seq check failed, or why a chunk wrote nothing.
func (db *DB) explain(ctx context.Context, w store.EventWrite, p eventPlan, err error) error {
	switch {
	case errors.Is(err, errSeq):
		return orConflict(db.seqError(ctx, w.Event), w.Event)
	case err != nil || !p.fast || p.stmts[0].tag.RowsAffected() == 1:
		return err
	}
	err = db.seqError(ctx, w.Event)
	if w.AppendText == nil || err != nil {
		return orConflict(err, w.Event)
	}
	return fmt.Errorf("%w: message %s in session %s", store.ErrNotFound, w.AppendText.MessageID, w.Event.SessionID)
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
