package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFiles are the schema steps, NNNN_name.sql, numbered 1, 2, 3…
// without gaps. Migration N brings PRAGMA user_version from N-1 to N. A
// released migration is never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations parses the embedded files; a malformed set is a build
// mistake, reported rather than half-applied.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("store: migration %q: name must be NNNN_name.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("store: migration %q: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migration %q: want version %d (no gaps, no duplicates)", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies every migration newer than the file's user_version, each
// in its own transaction together with the user_version bump, so a failure
// leaves the file at the previous version. The version is read again inside
// each transaction (under the write lock), so two processes racing to
// upgrade the same file cannot apply a step twice.
func (db *DB) migrate(ctx context.Context, ms []migration) error {
	for {
		done, err := db.migrateStep(ctx, ms)
		if err != nil || done {
			return err
		}
	}
}

func (db *DB) migrateStep(ctx context.Context, ms []migration) (done bool, err error) {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return false, db.openErr(err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, db.openErr(err)
	}
	switch {
	case v > len(ms):
		return false, &SchemaTooNewError{Path: db.path, Found: v, Known: len(ms)}
	case v == len(ms):
		return true, nil
	}
	m := ms[v]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("store: migration %s: %w", m.name, err)
	}
	// PRAGMA arguments cannot be bound; m.version is an int we parsed.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return false, fmt.Errorf("store: migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: migration %s: commit: %w", m.name, err)
	}
	return false, nil
}

// SchemaVersion is the data file's PRAGMA user_version (the newest applied
// migration).
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.getRow(ctx, func(s scanner) error { return s.Scan(&v) }, "user_version", "PRAGMA user_version")
	return v, err
}
