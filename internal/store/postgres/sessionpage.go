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
//
// The events are bounded as an after_seq replay is (ListEventsUpTo): they
// stop before their payloads (each counted 64 bytes more) pass
// eventsMaxBytes, one at least, so that a reader far behind the session
// neither holds nor makes the server send its whole history at once. The
// reader has them all when the last one's seq is the session's LastSeq;
// otherwise it reads again after the last one.
func (db *DB) SessionPageAsOf(ctx context.Context, sessionID string, p store.MessagePage, eventsAfter int64, eventsMaxBytes int) (store.PageAsOf, error) {
	out := store.PageAsOf{Messages: []store.Message{}, Events: []store.Event{}}
	err := db.usable(ctx)
	if err == nil && eventsAfter >= 0 && eventsMaxBytes <= 0 {
		err = fmt.Errorf("%w: events need a positive byte bound, got %d", store.ErrInvalid, eventsMaxBytes)
	}
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
			evBytes := 0
			return queryRows(ctx, tx, func(r pgx.Rows) error {
				e, n, err := scanEvent(r)
				if err != nil {
					return err
				}
				if evBytes += n + eventOverhead; evBytes > eventsMaxBytes && len(out.Events) > 0 {
					return errStop
				}
				out.Events = append(out.Events, e)
				return nil
			}, `SELECT session_id, seq, type, payload, at FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $3
				ORDER BY seq LIMIT $4`,
				sessionID, eventsAfter, sess.LastSeq, eventsMaxBytes/eventOverhead+1)
		})
		err = db.fail(ctx, err)
	}
	if err != nil {
		return store.PageAsOf{}, fmt.Errorf("store: page of %s: %w", sessionID, err)
	}
	return out, nil
}

// eventOverhead is what an event counts beyond its payload against a byte
// bound. As every event counts at least this much, a bound of b bytes
// holds at most b/eventOverhead+1 events: the LIMIT that keeps the server
// from sending the rest.
const eventOverhead = 64
