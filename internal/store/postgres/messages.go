package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// messageColumns read a message whole: its text followed by the chunks
// streamed since, in seq order.
const messageColumns = `m.id, m.session_id, m.turn_id, m.seq, m.role, m.variant,
	m.text || coalesce((SELECT string_agg(c.text, '' ORDER BY c.seq) FROM message_chunks c WHERE c.message_id = m.id), ''),
	m.metadata, m.actions, m.created_at, m.updated_at`

func scanMessage(s scanner) (store.Message, error) {
	var m store.Message
	var meta, actions []byte
	var created, updated string
	if err := s.Scan(&m.ID, &m.SessionID, &m.TurnID, &m.Seq, &m.Role, &m.Variant, &m.Text,
		&meta, &actions, &created, &updated); err != nil {
		return store.Message{}, err
	}
	var err error
	if m.CreatedAt, err = parseTime(created); err != nil {
		return store.Message{}, err
	}
	if m.UpdatedAt, err = parseTime(updated); err != nil {
		return store.Message{}, err
	}
	if err := decodeJSON(meta, &m.Metadata, "message metadata"); err != nil {
		return store.Message{}, err
	}
	if err := decodeJSON(actions, &m.Actions, "message actions"); err != nil {
		return store.Message{}, err
	}
	return m, nil
}

const listMessagesSQL = `SELECT ` + messageColumns + ` FROM messages m WHERE m.session_id = $1 ORDER BY m.seq, m.id`

// ListMessages returns the session's messages ordered by Seq.
func (db *DB) ListMessages(ctx context.Context, sessionID string) ([]store.Message, error) {
	out := []store.Message{}
	err := db.query(ctx, func(r pgx.Rows) error {
		m, err := scanMessage(r)
		out = append(out, m)
		return err
	}, listMessagesSQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list messages of %s: %w", sessionID, err)
	}
	return out, nil
}

// GetMessage returns one message, or ErrNotFound.
func (db *DB) GetMessage(ctx context.Context, id string) (store.Message, error) {
	var m store.Message
	err := db.getRow(ctx, func(r pgx.Row) (err error) {
		m, err = scanMessage(r)
		return err
	}, "message "+id, `SELECT `+messageColumns+` FROM messages m WHERE m.id = $1`, id)
	if err != nil {
		return store.Message{}, fmt.Errorf("store: get message: %w", err)
	}
	return m, nil
}

// SessionSnapshot returns the session and its messages as of one instant
// (one repeatable-read transaction).
func (db *DB) SessionSnapshot(ctx context.Context, sessionID string) (store.Session, []store.Message, error) {
	var sess store.Session
	msgs := []store.Message{}
	err := db.usable(ctx)
	if err == nil {
		err = pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			var err error
			sess, err = scanSession(tx.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = $1`, sessionID))
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: session %s", store.ErrNotFound, sessionID)
			}
			if err != nil {
				return err
			}
			return queryRows(ctx, tx, func(r pgx.Rows) error {
				m, err := scanMessage(r)
				msgs = append(msgs, m)
				return err
			}, listMessagesSQL, sessionID)
		})
		err = db.fail(ctx, err)
	}
	if err != nil {
		return store.Session{}, nil, fmt.Errorf("store: snapshot of %s: %w", sessionID, err)
	}
	return sess, msgs, nil
}

// SealMessages folds each message's streamed chunks into its text and
// deletes them, all in one statement.
func (db *DB) SealMessages(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := db.exec(ctx, `WITH c AS (
			DELETE FROM message_chunks WHERE message_id = ANY($1::text[]) RETURNING message_id, seq, text),
		j AS (SELECT message_id, string_agg(text, '' ORDER BY seq) AS text FROM c GROUP BY message_id)
		UPDATE messages m SET text = m.text || j.text FROM j WHERE m.id = j.message_id`, ids)
	if err != nil {
		return fmt.Errorf("store: seal messages: %w", err)
	}
	return nil
}

// ListMessagesPage returns one page of the session's messages (see
// store.MessagePage) and whether more follow.
func (db *DB) ListMessagesPage(ctx context.Context, sessionID string, p store.MessagePage) ([]store.Message, bool, error) {
	out := []store.Message{}
	size, more := 0, false
	err := db.query(ctx, func(r pgx.Rows) error {
		if len(out) > 0 && size >= p.MaxBytes {
			more = true
			return errStop
		}
		m, err := scanMessage(r)
		if err != nil {
			return err
		}
		out = append(out, m)
		size += store.MessageBytes(m)
		return nil
	}, `SELECT `+messageColumns+` FROM messages m
		WHERE m.session_id = $1 AND m.seq <= $2 AND (m.seq > $3 OR (m.seq = $3 AND m.id > $4))
		ORDER BY m.seq, m.id`, sessionID, p.MaxSeq, p.AfterSeq, p.AfterID)
	if err != nil {
		return nil, false, fmt.Errorf("store: list messages of %s: %w", sessionID, err)
	}
	return out, more, nil
}

// ListEvents returns the session's events with seq > afterSeq, oldest
// first, at most limit of them (limit <= 0: all).
func (db *DB) ListEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]store.Event, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	out := []store.Event{}
	err := db.query(ctx, func(r pgx.Rows) error {
		e, _, err := scanEvent(r)
		out = append(out, e)
		return err
	}, `SELECT session_id, seq, type, payload, at FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
		sessionID, afterSeq, lim)
	if err != nil {
		return nil, fmt.Errorf("store: list events of %s: %w", sessionID, err)
	}
	return out, nil
}

func scanEvent(r pgx.Rows) (store.Event, int, error) {
	var e store.Event
	var payload []byte
	var at string
	if err := r.Scan(&e.SessionID, &e.Seq, &e.Type, &payload, &at); err != nil {
		return store.Event{}, 0, err
	}
	e.Payload = decodeRaw(payload)
	var err error
	e.At, err = parseTime(at)
	return e, len(payload), err
}

// ListEventsUpTo returns the session's events with seq > afterSeq while
// their payloads stay within maxBytes; complete is false when more follow.
func (db *DB) ListEventsUpTo(ctx context.Context, sessionID string, afterSeq int64, maxBytes int) ([]store.Event, bool, error) {
	out := []store.Event{}
	size, complete := 0, true
	err := db.query(ctx, func(r pgx.Rows) error {
		e, n, err := scanEvent(r)
		if err != nil {
			return err
		}
		if size += n + eventOverhead; size > maxBytes {
			complete = false
			return errStop
		}
		out = append(out, e)
		return nil
	}, `SELECT session_id, seq, type, payload, at FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq`, sessionID, afterSeq)
	if err != nil {
		return nil, false, fmt.Errorf("store: list events of %s: %w", sessionID, err)
	}
	return out, complete, nil
}
