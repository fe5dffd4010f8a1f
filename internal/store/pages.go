package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Reads bounded by bytes, so that a large session is read (and sent) a
// page at a time instead of all at once.

// MessagePage selects a page of a session's messages in chat order (Seq,
// then ID): those with Seq <= MaxSeq after the position (AfterSeq,
// AfterID), until MaxBytes of text, metadata and actions (at least one
// message, however large).
type MessagePage struct {
	MaxSeq   int64
	AfterSeq int64 // -1 or 0 with AfterID "": from the start
	AfterID  string
	MaxBytes int
}

// errPageFull stops a row scan once a page is full.
var errPageFull = errors.New("page full")

// MessageBytes approximates a message's encoded size.
func MessageBytes(m Message) int {
	n := len(m.Text) + len(m.ID) + len(m.TurnID) + 160
	for k, v := range m.Metadata {
		n += len(k) + 8
		if s, ok := v.(string); ok {
			n += len(s)
		}
	}
	return n + 200*len(m.Actions)
}

// ListMessagesPage returns one page of the session's messages and whether
// more follow. The result is never nil.
func (db *DB) ListMessagesPage(ctx context.Context, sessionID string, p MessagePage) ([]Message, bool, error) {
	out := []Message{}
	size, more := 0, false
	err := db.query(ctx, func(s scanner) error {
		if len(out) > 0 && size >= p.MaxBytes {
			more = true
			return errPageFull
		}
		m, err := scanMessage(s)
		if err != nil {
			return err
		}
		out = append(out, m)
		size += MessageBytes(m)
		return nil
	}, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ?1 AND seq <= ?2 AND (seq > ?3 OR (seq = ?3 AND id > ?4))
		ORDER BY seq, id`, sessionID, p.MaxSeq, p.AfterSeq, p.AfterID)
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, false, fmt.Errorf("store: list messages of %s: %w", sessionID, err)
	}
	return out, more, nil
}

// ListEventsUpTo returns the session's events with seq > afterSeq, oldest
// first, while their payloads stay within maxBytes; complete is false when
// more events follow (the caller then sends a snapshot instead).
func (db *DB) ListEventsUpTo(ctx context.Context, sessionID string, afterSeq int64, maxBytes int) (evs []Event, complete bool, err error) {
	out := []Event{}
	size := 0
	complete = true
	err = db.query(ctx, func(s scanner) error {
		var e Event
		var payload sql.NullString
		var at string
		if err := s.Scan(&e.SessionID, &e.Seq, &e.Type, &payload, &at); err != nil {
			return err
		}
		if size += len(payload.String) + 64; size > maxBytes {
			complete = false
			return errPageFull
		}
		e.Payload = decodeRaw(payload)
		var err error
		if e.At, err = parseTime(at); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, `SELECT session_id, seq, type, payload, at FROM events WHERE session_id = ? AND seq > ? ORDER BY seq`, sessionID, afterSeq)
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, false, fmt.Errorf("store: list events of %s: %w", sessionID, err)
	}
	return out, complete, nil
}

// PageAsOf is a page of a session's messages read together with the
// session, as of one instant (a fleet's relayed snapshot, whose session
// another daemon writes meanwhile): Session.LastSeq is the last event the
// page reflects, and Events are the session's events after the position
// the reader asked for, up to it.
type PageAsOf struct {
	Session  Session
	Messages []Message
	More     bool // more messages follow the page
	Events   []Event
}
