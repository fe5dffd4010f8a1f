package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// migrationFiles are the schema steps, NNNN_name.sql, numbered 1, 2, 3…
// without gaps; a released one is never edited. They are this store's own
// sequence: a schema change is made in both stores, each in its next file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

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
			return nil, err
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

// Migrations is how many schema steps this binary knows.
func Migrations() int {
	ms, _ := loadMigrations()
	return len(ms)
}

// migrationLock is the key of the advisory lock held while migrating
// ("orchd" in ASCII): one daemon migrates, the others wait and find the
// schema current.
const migrationLock = 0x6f72636864

// versionTable records the newest applied migration, as SQLite's PRAGMA
// user_version does.
const versionTable = "orchestratord_schema"

// migrate brings the database to this binary's schema in one transaction
// under the advisory lock: every step and the version bump commit together
// or not at all. A newer schema is refused before anything is written.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
		v, err := readVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > len(ms) {
			return &store.SchemaTooNewError{Path: db.name, Found: v, Known: len(ms)}
		}
		if v == len(ms) {
			return nil
		}
		if v == 0 {
			if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+versionTable+" (version integer NOT NULL)"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "INSERT INTO "+versionTable+" SELECT 0 WHERE NOT EXISTS (SELECT FROM "+versionTable+")"); err != nil {
				return err
			}
		}
		for _, m := range ms[v:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("store: migration %s: %w", m.name, err)
			}
		}
		_, err = tx.Exec(ctx, "UPDATE "+versionTable+" SET version = $1", len(ms))
		return err
	})
	if err != nil {
		var tooNew *store.SchemaTooNewError
		if errors.As(err, &tooNew) {
			return err
		}
		return fmt.Errorf("store: postgres %s: migrate: %w", db.name, err)
	}
	return nil
}

// readVersion is the recorded schema version; 0 for a database this store
// never wrote to.
func readVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", versionTable).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := q.QueryRow(ctx, "SELECT version FROM "+versionTable).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// SchemaVersion is the newest migration applied to the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	if err := db.usable(ctx); err != nil {
		return 0, err
	}
	v, err := readVersion(ctx, db.pool)
	return v, db.fail(ctx, err)
}
