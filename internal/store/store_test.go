package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orchestratord/orchestratord/internal/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// base is a non-UTC time with nanoseconds, to prove times round-trip
// exactly and come back in UTC.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))

// at is base plus n seconds, in UTC (the form the store returns).
func at(n int) time.Time { return base.Add(time.Duration(n) * time.Second).UTC() }

func openStore(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), dir)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

func newStore(t testing.TB) *store.DB {
	t.Helper()
	return openStore(t, t.TempDir())
}

func newTask(id string, n int) store.Task {
	return store.Task{
		ID: id, Title: "task " + id, Agent: "mock", Workdir: "/work/" + id,
		MaxAttempts: n % 4, State: store.TaskTodo, CreatedAt: at(n), UpdatedAt: at(n),
	}
}

func newSession(id, taskID string, n int) store.Session {
	return store.Session{ID: id, TaskID: taskID, State: store.SessionCreated, CreatedAt: at(n), UpdatedAt: at(n)}
}

// seed creates a task with one session.
func seed(t testing.TB, db *store.DB, taskID, sessionID string) (store.Task, store.Session) {
	t.Helper()
	task, sess := newTask(taskID, 0), newSession(sessionID, taskID, 0)
	require.NoError(t, db.CreateTask(t.Context(), task, sess))
	return task, sess
}

func event(sessionID string, seq int64, typ string, payload any) store.Event {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return store.Event{SessionID: sessionID, Seq: seq, Type: typ, Payload: b, At: at(int(seq))}
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestOpenCreatesPrivateDirAndFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "b")
	db := openStore(t, dir)

	fi, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	fi, err = os.Stat(filepath.Join(dir, store.FileName))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Equal(t, filepath.Join(dir, store.FileName), db.Path())

	v, err := db.SchemaVersion(t.Context())
	require.NoError(t, err)
	require.Equal(t, 7, v)
}

func TestOpenRefusesCorruptFile(t *testing.T) {
	t.Parallel()
	// damagedPages builds a real store, then overwrites a few b-tree pages
	// after the header page: SQLite opens it, quick_check does not pass.
	damagedPages := func(t *testing.T, path string) {
		db := openStore(t, filepath.Dir(path))
		seed(t, db, "t1", "s1")
		require.NoError(t, db.Close())
		b := fileBytes(t, path)
		require.Greater(t, len(b), 4*4096)
		for i := 4096; i < 4*4096; i++ {
			b[i] = byte(i*7 + 3)
		}
		require.NoError(t, os.WriteFile(path, b, 0o600))
	}
	garbage := make([]byte, 3*4096)
	for i := range garbage {
		garbage[i] = byte(i*31 + 17)
	}
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, garbage, 0o600)) }},
		{"short text", func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, []byte("hello"), 0o600)) }},
		{"damaged pages", damagedPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, store.FileName)
			tc.write(t, path)
			before := fileBytes(t, path)

			db, err := store.Open(t.Context(), dir)
			require.ErrorIs(t, err, store.ErrCorrupt)
			require.Nil(t, db)
			require.Contains(t, err.Error(), path)
			require.Contains(t, err.Error(), "left untouched")
			require.Equal(t, before, fileBytes(t, path), "the data file must not change")

			// Refusing twice changes nothing either.
			_, err = store.Open(t.Context(), dir)
			require.ErrorIs(t, err, store.ErrCorrupt)
			require.Equal(t, before, fileBytes(t, path))
		})
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, store.FileName)
	db := openStore(t, dir)
	seed(t, db, "t1", "s1")
	require.NoError(t, db.Close())

	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = raw.Exec("PRAGMA user_version = 42")
	require.NoError(t, err)
	require.NoError(t, raw.Close())
	before := fileBytes(t, path)

	_, err = store.Open(t.Context(), dir)
	require.ErrorIs(t, err, store.ErrSchemaTooNew)
	var tooNew *store.SchemaTooNewError
	require.ErrorAs(t, err, &tooNew)
	require.Equal(t, store.SchemaTooNewError{Path: path, Found: 42, Known: 7}, *tooNew)
	require.Contains(t, err.Error(), "version 42")
	require.Contains(t, err.Error(), "up to 7")
	require.Contains(t, err.Error(), "left untouched")
	require.Equal(t, before, fileBytes(t, path), "the data file must not change")
}

func TestOpenEmptyFileIsNewDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, store.FileName), nil, 0o600))
	db := openStore(t, dir)
	seed(t, db, "t1", "s1")
}

func TestOpenRespectsItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := store.Open(ctx, t.TempDir())
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, store.ErrCorrupt))
}
