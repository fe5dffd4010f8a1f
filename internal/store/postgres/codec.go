package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/orchestratord/orchestratord/internal/store"
)

// timeLayout is the SQLite store's: UTC, fixed width, nanoseconds, so
// times round-trip exactly and sort as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: bad time %q in database: %w", s, err)
	}
	return t, nil
}

// fmtNullTime is fmtTime for an optional time: nil is NULL.
func fmtNullTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := fmtTime(*t)
	return &s
}

// parseNullTime reads an optional time column.
func parseNullTime(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := parseTime(*s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func orTime(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}

// encodeJSON marshals v for a nullable JSON column; absent (nil) is NULL.
func encodeJSON(v any, absent bool, what string) (any, error) {
	if absent {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", store.ErrInvalid, what, err)
	}
	return string(b), nil
}

// encodeRaw keeps raw JSON verbatim; empty is NULL; invalid is refused.
func encodeRaw(r json.RawMessage, what string) (any, error) {
	if len(r) == 0 {
		return nil, nil
	}
	if !json.Valid(r) {
		return nil, fmt.Errorf("%w: %s is not valid JSON", store.ErrInvalid, what)
	}
	return string(r), nil
}

// decodeRaw: a NULL column scans into a nil []byte.
func decodeRaw(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

func decodeJSON(b []byte, v any, what string) error {
	if b == nil {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("store: bad %s JSON in database: %w", what, err)
	}
	return nil
}

// health tracks store.WriteHealth: a write that failed because the server
// could not be reached or could not write (disk full, read-only, shutting
// down) marks the store unwritable until the next write succeeds.
type health struct {
	mu    sync.Mutex
	state store.WriteHealth
	now   func() time.Time
}

// isStorageFault: the server could not be reached, or could not write.
func isStorageFault(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up; the server is fine
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "53", "58", "57": // connection, insufficient resources, system error, operator intervention
			return pe.Code != "57014" // query_canceled is the caller's context
		}
		return pe.Code == "25006" // read_only_sql_transaction (a standby, or default_transaction_read_only)
	}
	var ne net.Error
	return errors.As(err, &ne) || pgconn.SafeToRetry(err) || errors.Is(err, errConnLost)
}

var errConnLost = errors.New("conn closed")

// note records a write's outcome and returns err, wrapped with
// store.ErrUnwritable when it is a storage fault.
func (db *DB) note(err error) error {
	h := &db.health
	if err == nil {
		h.mu.Lock()
		h.state.Writable, h.state.Failures = true, 0
		h.mu.Unlock()
		return nil
	}
	if db.closed.Load() || !isStorageFault(err) {
		return err
	}
	h.mu.Lock()
	h.state.Writable = false
	h.state.LastError, h.state.ErrorAt = err, h.now()
	h.state.Failures++
	h.mu.Unlock()
	return fmt.Errorf("%w: %w", store.ErrUnwritable, err)
}

// WriteHealth reports whether the last write succeeded, and the last error.
func (db *DB) WriteHealth() store.WriteHealth {
	db.health.mu.Lock()
	defer db.health.mu.Unlock()
	return db.health.state
}
