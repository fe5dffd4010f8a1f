package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// timeLayout is how every time is stored: UTC, fixed width, nanoseconds.
// Fixed width matters: RFC 3339 with trimmed fractions ("…:05Z" vs
// "…:05.1Z") does not sort in time order as text, and ORDER BY created_at
// relies on it.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: bad time %q in database: %w", s, err)
	}
	return t, nil
}

// orTime returns t, or def when t is the zero time.
// fmtNullTime is fmtTime for an optional time: nil is SQL NULL.
func fmtNullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return fmtTime(*t)
}

// parseNullTime reads an optional time column.
func parseNullTime(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := parseTime(s.String)
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

// encodeJSON marshals v for a nullable JSON column; absent (nil) is NULL,
// so a nil map or slice reads back as nil and an empty one as empty.
func encodeJSON(v any, absent bool, what string) (any, error) {
	if absent {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, what, err)
	}
	return string(b), nil
}

// encodeRaw stores raw JSON verbatim; empty is NULL. Invalid JSON is
// refused here, because every reader hands these bytes to a JSON encoder.
func encodeRaw(r json.RawMessage, what string) (any, error) {
	if len(r) == 0 {
		return nil, nil
	}
	if !json.Valid(r) {
		return nil, fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, what)
	}
	return string(r), nil
}

func decodeRaw(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

func decodeJSON(s sql.NullString, v any, what string) error {
	if !s.Valid {
		return nil
	}
	if err := json.Unmarshal([]byte(s.String), v); err != nil {
		return fmt.Errorf("store: bad %s JSON in database: %w", what, err)
	}
	return nil
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// sqliteCode is the extended SQLite result code inside err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// isCorruption reports whether err says the file is not a database or is
// damaged.
func isCorruption(err error) bool {
	switch sqliteCode(err) & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// mapConstraint turns key violations into the store's sentinels: a foreign
// key that points nowhere is ErrNotFound, a duplicate key is ErrExists.
func mapConstraint(err error, what string) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: %s refers to a missing row: %w", ErrNotFound, what, err)
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("%w: %s: %w", ErrExists, what, err)
	}
	return err
}
