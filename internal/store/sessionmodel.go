package store

import (
	"context"
	"fmt"
)

// SetSessionModel records the model the session's agent reported ("" when
// it reported none). Apart from AppendEvent on purpose: the model changes
// once per agent process at most, and no event depends on it. ErrNotFound
// for an unknown session.
func (db *DB) SetSessionModel(ctx context.Context, sessionID, model string) error {
	res, err := db.exec(ctx, `UPDATE sessions SET model = ? WHERE id = ?`, model, sessionID)
	if err != nil {
		return fmt.Errorf("store: set model of session %s: %w", sessionID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("store: set model of session %s: %w", sessionID, ErrNotFound)
	}
	return nil
}
