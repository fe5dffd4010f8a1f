package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Messages change only through AppendEvent, so that every change to the
// chat is also an event in the session's log.

// messageColumns read a message whole: its text is messages.text followed
// by the chunks streamed since (migration 0004), in seq order.
const messageColumns = `id, session_id, turn_id, seq, role, variant,
	text || coalesce((SELECT group_concat(c.text, '' ORDER BY c.seq) FROM message_chunks c WHERE c.message_id = messages.id), ''),
	metadata, actions, created_at, updated_at`

func scanMessage(s scanner) (Message, error) {
	var m Message
	var meta, actions sql.NullString
	var created, updated string
	if err := s.Scan(&m.ID, &m.SessionID, &m.TurnID, &m.Seq, &m.Role, &m.Variant, &m.Text,
		&meta, &actions, &created, &updated); err != nil {
		return Message{}, err
	}
	var err error
	if m.CreatedAt, err = parseTime(created); err != nil {
		return Message{}, err
	}
	if m.UpdatedAt, err = parseTime(updated); err != nil {
		return Message{}, err
	}
	if err := decodeJSON(meta, &m.Metadata, "message metadata"); err != nil {
		return Message{}, err
	}
	if err := decodeJSON(actions, &m.Actions, "message actions"); err != nil {
		return Message{}, err
	}
	return m, nil
}

const listMessagesSQL = `SELECT ` + messageColumns + ` FROM messages WHERE session_id = ? ORDER BY seq, id`

// ListMessages returns the session's messages ordered by Seq (the event
// that created each). The result is never nil. Metadata and action payloads
// come back as encoding/json decodes them into any: numbers are float64.
func (db *DB) ListMessages(ctx context.Context, sessionID string) ([]Message, error) {
	out := []Message{}
	err := db.query(ctx, func(s scanner) error {
		m, err := scanMessage(s)
		out = append(out, m)
		return err
	}, listMessagesSQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list messages of %s: %w", sessionID, err)
	}
	return out, nil
}

// GetMessage returns one message, or ErrNotFound.
func (db *DB) GetMessage(ctx context.Context, id string) (Message, error) {
	var m Message
	err := db.getRow(ctx, func(s scanner) (err error) {
		m, err = scanMessage(s)
		return err
	}, "message "+id, `SELECT `+messageColumns+` FROM messages WHERE id = ?`, id)
	if err != nil {
		return Message{}, fmt.Errorf("store: get message: %w", err)
	}
	return m, nil
}

// SessionSnapshot returns the session and its messages as of one instant:
// every message reflects exactly the events up to Session.LastSeq, so a
// subscriber can show the snapshot and then stream events after LastSeq
// without a gap or a duplicate. ErrNotFound for an unknown session.
func (db *DB) SessionSnapshot(ctx context.Context, sessionID string) (Session, []Message, error) {
	var sess Session
	msgs := []Message{}
	getSess, err := db.readStmt(ctx, getSessionSQL)
	if err != nil {
		return Session{}, nil, fmt.Errorf("store: snapshot of %s: %w", sessionID, db.fail(err))
	}
	listMsgs, err := db.readStmt(ctx, listMessagesSQL)
	if err != nil {
		return Session{}, nil, fmt.Errorf("store: snapshot of %s: %w", sessionID, db.fail(err))
	}
	err = db.read(ctx, func(tx *sql.Tx) error {
		var err error
		sess, err = scanSession(tx.StmtContext(ctx, getSess).QueryRowContext(ctx, sessionID))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: session %s", ErrNotFound, sessionID)
		}
		if err != nil {
			return err
		}
		return queryRows(ctx, tx.StmtContext(ctx, listMsgs), func(s scanner) error {
			m, err := scanMessage(s)
			msgs = append(msgs, m)
			return err
		}, sessionID)
	})
	if err != nil {
		return Session{}, nil, fmt.Errorf("store: snapshot of %s: %w", sessionID, err)
	}
	return sess, msgs, nil
}

const sealMessageSQL = `UPDATE messages SET text = text ||
	(SELECT group_concat(c.text, '' ORDER BY c.seq) FROM message_chunks c WHERE c.message_id = ?1)
	WHERE id = ?1 AND EXISTS (SELECT 1 FROM message_chunks WHERE message_id = ?1)`

// SealMessages folds each message's streamed chunks into its text and
// deletes them: one write of the whole text, once, when its turn ends, so
// the chunk rows of finished replies do not pile up. It changes nothing a
// reader sees (and is no event); messages without chunks are skipped.
func (db *DB) SealMessages(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	seal, err := db.writeStmt(ctx, sealMessageSQL)
	if err != nil {
		return fmt.Errorf("store: seal messages: %w", db.fail(err))
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		seal := tx.StmtContext(ctx, seal)
		for _, id := range ids {
			if _, err := seal.ExecContext(ctx, id); err != nil {
				return err
			}
			if _, err := tx.StmtContext(ctx, db.hot.dropChunks).ExecContext(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: seal messages: %w", err)
	}
	return nil
}

// CountMessages counts the session's messages of role whose text (with
// its streamed chunks) is text: whether a prompt was sent before, without
// reading the conversation.
func (db *DB) CountMessages(ctx context.Context, sessionID, role, text string) (int, error) {
	var n int
	err := db.getRow(ctx, func(s scanner) error { return s.Scan(&n) }, "message count",
		`SELECT count(*) FROM messages WHERE session_id = ? AND role = ?
			AND text || coalesce((SELECT group_concat(c.text, '' ORDER BY c.seq) FROM message_chunks c WHERE c.message_id = messages.id), '') = ?`,
		sessionID, role, text)
	if err != nil {
		return 0, fmt.Errorf("store: count messages of %s: %w", sessionID, err)
	}
	return n, nil
}
