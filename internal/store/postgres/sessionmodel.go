package postgres

import (
	"context"
	"fmt"

	"github.com/orchestratord/orchestratord/internal/store"
)

// SetSessionModel records the model the session's agent reported; the
// SQLite store's contract.
func (db *DB) SetSessionModel(ctx context.Context, sessionID, model string) error {
	tag, err := db.exec(ctx, `UPDATE sessions SET model = $1 WHERE id = $2`, model, sessionID)
	if err != nil {
		return fmt.Errorf("store: set model of session %s: %w", sessionID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set model of session %s: %w", sessionID, store.ErrNotFound)
	}
	return nil
}
