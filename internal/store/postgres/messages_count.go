package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// CountMessages counts the session's messages of role whose text (with its
// streamed chunks) is text (see store.DB.CountMessages).
func (db *DB) CountMessages(ctx context.Context, sessionID, role, text string) (int, error) {
	var n int
	err := db.getRow(ctx, func(r pgx.Row) error { return r.Scan(&n) }, "message count",
		`SELECT count(*) FROM messages m WHERE m.session_id = $1 AND m.role = $2
			AND m.text || coalesce((SELECT string_agg(c.text, '' ORDER BY c.seq) FROM message_chunks c WHERE c.message_id = m.id), '') = $3`,
		sessionID, role, text)
	if err != nil {
		return 0, fmt.Errorf("store: count messages of %s: %w", sessionID, err)
	}
	return n, nil
}
