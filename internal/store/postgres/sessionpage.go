package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// SessionPageAsOf reads, in one repeatable-read transaction, the session,
// the page p of its messages (p.MaxSeq < 0: up to the session's last seq)
// and, when eventsAfter >= 0, its events after eventsAfter up to its last
// seq: a page another daemon's writes cannot tear, and the events a feed
// must deliver before it (a fleet's relayed snapshot, page by page).
func (db *DB) SessionPageAsOf(ctx context.Context, sessionID string, p store.MessagePage, eventsAfter int64) (store.PageAsOf, error) {
	out := store.PageAsOf{Messages: []store.Message{}, Events: []store.Event{}}
	err := db.usable(ctx)
	if err == nil {
		err = pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			sess, err := scanSession(tx.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = $1`, sessionID))
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: session %s", store.ErrNotFound, sessionID)
			}
			if err != nil {
				return err
			}
			out.Session = sess
			if p.MaxSeq < 0 {
				p.MaxSeq = sess.LastSeq
			}
			size := 0
			err = queryRows(ctx, tx, func(r pgx.Rows) error {
				if len(out.Messages) > 0 && size >= p.MaxBytes {
					out.More = true
					return errStop
				}
				m, err := scanMessage(r)
				if err != nil {
					return err
				}
				out.Messages = append(out.Messages, m)
				size += store.MessageBytes(m)
				return nil
			}, `SELECT `+messageColumns+` FROM messages m
				WHERE m.session_id = $1 AND m.seq <= $2 AND (m.seq > $3 OR (m.seq = $3 AND m.id > $4))
				ORDER BY m.seq, m.id`, sessionID, p.MaxSeq, p.AfterSeq, p.AfterID)
			if err != nil || eventsAfter < 0 {
				return err
			}
			return queryRows(ctx, tx, func(r pgx.Rows) error {
				e, _, err := scanEvent(r)
				out.Events = append(out.Events, e)
				return err
			}, `SELECT session_id, seq, type, payload, at FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
				sessionID, eventsAfter, sess.LastSeq)
		})
		err = db.fail(ctx, err)
	}
	if err != nil {
		return store.PageAsOf{}, fmt.Errorf("store: page of %s: %w", sessionID, err)
	}
	return out, nil
}
