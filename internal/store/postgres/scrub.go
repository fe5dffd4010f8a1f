package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// A deleted message is blanked in the earlier events that carried its
// text (store.EventWrite.DeleteMessage). The payloads are rewritten in Go,
// compact like the SQLite store's json_set (jsonb would re-space every
// payload it touched), so the events to rewrite must be read first.
//
// They are read before the write, outside its transaction (prepareScrubs),
// and the rewrite rides the write as one statement, in its group commit:
// the write of a released session's turn end (the gate's notice deleted)
// is then a batch like any other instead of a transaction of its own, a
// round trip per statement (begin, the read, an update per event, …,
// commit) holding a connection. The read is exact when the session's
// last_seq is where the write's seq check expects it: every earlier event
// is committed then, and the events of a session change only with a write
// that advances last_seq, which would fail this write's seq check. When it
// is not (a write of the session still on its way), the scrub is read and
// rewritten inside the write's transaction instead, as before (scrubEvents).

// scrubbing is the rewrite of a DeleteMessage: the events (seqs) and their
// payloads blanked, or inTx to read and rewrite them in the transaction.
type scrubbing struct {
	seqs     []int64
	payloads []string
	inTx     bool
}

// scrubType: the events that carry a message's text.
func scrubType(t string) bool {
	return t == "session.message.added" || t == "session.message.updated"
}

// scrubMatch is the condition of an event of session $1 that carries
// message $2's text; its events are no older than the message, so a
// missing message matches nothing.
const scrubMatch = `e.seq >= (SELECT seq FROM messages WHERE id = $2 AND session_id = $1)
	AND e.type IN ('session.message.added', 'session.message.updated')
	AND jsonb_typeof(e.payload::jsonb) = 'object'
	AND (e.payload::jsonb #>> '{message,id}' = $2 OR e.payload::jsonb ->> 'message_id' = $2)`

// scrubReadSQL reads the session's last_seq and the events to blank. With
// plain, the id is written as it is in a payload (JSON escapes nothing of
// it), and only the events whose text holds it are parsed (as the SQLite
// store's scrubPlain).
func scrubReadSQL(plain bool) string {
	filter := ""
	if plain {
		filter = "strpos(e.payload::text, $2) > 0\n\tAND "
	}
	return `SELECT s.last_seq, e.seq, e.payload::text FROM sessions s
	LEFT JOIN events e ON e.session_id = s.id AND ` + filter + scrubMatch + `
	WHERE s.id = $1 ORDER BY e.seq`
}

var scrubRead = [2]string{scrubReadSQL(false), scrubReadSQL(true)}

// plainID: JSON writes id as it is.
func plainID(id string) bool {
	b, err := json.Marshal(id)
	return err == nil && len(b) == len(id)+2
}

// prepareScrubs plans the scrubs of batch b's deletes: scs[k] for write k
// with a DeleteMessage (nil when none has one). The batch's own earlier
// events that name the message are not in the database yet: they are
// blanked here, in the copy of b returned (b itself is left as it is).
func (db *DB) prepareScrubs(ctx context.Context, b []store.EventWrite) ([]store.EventWrite, []*scrubbing, error) {
	var scs []*scrubbing
	out, copied := b, false
	for k, w := range b {
		id := w.DeleteMessage
		if id == "" {
			continue
		}
		if scs == nil {
			scs = make([]*scrubbing, len(b))
		}
		sid := w.Event.SessionID
		first := w.Event.Seq // the batch's first event of the session
		for j := k - 1; j >= 0; j-- {
			ev := out[j].Event
			if ev.SessionID != sid {
				continue
			}
			first = min(first, ev.Seq)
			if !scrubType(ev.Type) || !names(ev.Payload, id) {
				continue
			}
			p, err := scrubPayload(ev.Payload)
			if err != nil {
				return nil, nil, fmt.Errorf("event %d: %w", ev.Seq, err)
			}
			if !copied {
				out, copied = slices.Clone(b), true
			}
			out[j].Event.Payload = p
		}
		sc, err := db.readScrub(ctx, sid, id, first-1)
		if err != nil {
			return nil, nil, err
		}
		scs[k] = sc
	}
	return out, scs, nil
}

// readScrub reads and blanks the events of session sid that carry message
// id, if the session's last_seq is last; otherwise the scrub is made in the
// write's transaction.
func (db *DB) readScrub(ctx context.Context, sid, id string, last int64) (*scrubbing, error) {
	if err := db.usable(ctx); err != nil {
		return nil, err
	}
	sc := &scrubbing{}
	found := false
	err := queryRows(ctx, db.pool, func(r pgx.Rows) error {
		var at int64
		var seq *int64
		var payload []byte
		if err := r.Scan(&at, &seq, &payload); err != nil {
			return err
		}
		found = true
		if at != last {
			sc.inTx = true
			return errStop
		}
		if seq == nil {
			return nil
		}
		out, err := scrubPayload(payload)
		if err != nil {
			return err
		}
		sc.seqs = append(sc.seqs, *seq)
		sc.payloads = append(sc.payloads, string(out))
		return nil
	}, scrubRead[btoi(plainID(id))], sid, id)
	if err != nil {
		return nil, db.fail(ctx, db.note(fmt.Errorf("read the events of deleted message %s: %w", id, err)))
	}
	if !found {
		// No such session: the write fails on its own (its seq check).
		return &scrubbing{}, nil
	}
	if sc.inTx {
		return &scrubbing{inTx: true}, nil
	}
	return sc, nil
}

// names reports whether payload is an event of message id: its
// "message.id" or its "message_id".
func names(payload json.RawMessage, id string) bool {
	if !bytes.Contains(payload, []byte(`"message`)) {
		return false
	}
	var top struct {
		Message   json.RawMessage `json:"message"`
		MessageID *string         `json:"message_id"`
	}
	if json.Unmarshal(payload, &top) != nil {
		return false
	}
	if top.MessageID != nil && *top.MessageID == id {
		return true
	}
	var m struct {
		ID *string `json:"id"`
	}
	return len(top.Message) > 0 && json.Unmarshal(top.Message, &m) == nil && m.ID != nil && *m.ID == id
}

// The delete of a message with its scrub, one statement: $3 and $4 the
// events' seqs and blanked payloads (found by the primary key, not by a
// join that scans the session's events).
const scrubDeleteSQL = `WITH s AS (UPDATE events SET payload = ($4::text[])[array_position($3::bigint[], seq)]::json
			WHERE session_id = $2 AND seq = ANY ($3::bigint[])),
		m AS (DELETE FROM messages WHERE id = $1 AND session_id = $2 RETURNING id)
		DELETE FROM message_chunks WHERE message_id IN (SELECT id FROM m)`

// deleteStmt is the statement of w's DeleteMessage as sc scrubs it.
func deleteStmt(id, sessionID string, sc *scrubbing) *stmt {
	switch {
	case sc == nil || sc.inTx:
		s := plain("message "+id, deleteMessageSQL, id, sessionID)
		s.before = func(ctx context.Context, tx pgx.Tx) error { return scrubEvents(ctx, tx, sessionID, id) }
		return s
	case len(sc.seqs) > 0:
		return plain("message "+id, scrubDeleteSQL, id, sessionID, sc.seqs, sc.payloads)
	default:
		return plain("message "+id, deleteMessageSQL, id, sessionID)
	}
}

// scrubEvents blanks message id's text in the session's earlier events
// that carried it, in the write's transaction: "delta", or "message.text"
// and "message.metadata.excerpt".
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
	}, `SELECT e.seq, e.payload FROM events e WHERE e.session_id = $1 AND `+scrubMatch+` ORDER BY e.seq`, sessionID, id)
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
