package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	require.Equal(t, 4, v)
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
	require.Equal(t, store.SchemaTooNewError{Path: path, Found: 42, Known: 4}, *tooNew)
	require.Contains(t, err.Error(), "version 42")
	require.Contains(t, err.Error(), "up to 4")
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

func TestReopenKeepsEverythingInOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := t.Context()
	db, err := store.Open(ctx, dir)
	require.NoError(t, err)

	for i := range 3 {
		taskID, sessID := fmt.Sprintf("t%d", i), fmt.Sprintf("s%d", i)
		require.NoError(t, db.CreateTask(ctx, newTask(taskID, i), newSession(sessID, taskID, i)))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
			Event:         event(sessID, 1, "session.message.added", map[string]string{"id": "u" + sessID}),
			UpsertMessage: &store.Message{ID: "u" + sessID, Role: "user", Text: "hi"},
		}))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
			Event:         event(sessID, 2, "session.message.added", map[string]string{"id": "a" + sessID}),
			UpsertMessage: &store.Message{ID: "a" + sessID, Role: "agent"},
		}))
		for seq := int64(3); seq <= 10; seq++ {
			require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
				Event:      event(sessID, seq, "session.message.updated", map[string]int64{"n": seq}),
				AppendText: &store.TextAppend{MessageID: "a" + sessID, Delta: fmt.Sprintf("%d ", seq)},
			}))
		}
		require.NoError(t, db.SaveExecution(ctx, store.Execution{ID: "e" + sessID, SessionID: sessID, Attempt: 1, StartedAt: at(i), Outcome: "running"}))
	}
	require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s1", TaskID: "t1", Generation: 1, Attempt: 2, MaxAttempts: 3, RetryAt: at(60)}))

	type state struct {
		Tasks    []store.Task
		Sessions []store.Session
		Messages [][]store.Message
		Events   [][]store.Event
		Execs    [][]store.Execution
		Retries  []store.PendingRetry
	}
	capture := func(db *store.DB) state {
		var s state
		var err error
		s.Tasks, err = db.ListTasks(ctx)
		require.NoError(t, err)
		s.Sessions, err = db.ListAllSessions(ctx)
		require.NoError(t, err)
		for _, sess := range s.Sessions {
			ms, err := db.ListMessages(ctx, sess.ID)
			require.NoError(t, err)
			s.Messages = append(s.Messages, ms)
			evs, err := db.ListEvents(ctx, sess.ID, 0, 0)
			require.NoError(t, err)
			s.Events = append(s.Events, evs)
			ex, err := db.ListExecutions(ctx, sess.ID)
			require.NoError(t, err)
			s.Execs = append(s.Execs, ex)
		}
		s.Retries, err = db.ListPendingRetries(ctx)
		require.NoError(t, err)
		return s
	}
	want := capture(db)
	require.Len(t, want.Tasks, 3)
	require.Equal(t, "3 4 5 6 7 8 9 10 ", want.Messages[0][1].Text)
	require.NoError(t, db.Close())

	for range 2 {
		db = openStore(t, dir)
		require.Equal(t, want, capture(db))
		require.NoError(t, db.Close())
	}

	// The log continues where it stopped.
	db = openStore(t, dir)
	err = db.AppendEvent(ctx, store.EventWrite{Event: event("s0", 10, "x", nil)})
	require.ErrorIs(t, err, store.ErrSeqConflict)
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s0", 11, "x", nil)}))
}

func TestCloseIsIdempotentAndFinal(t *testing.T) {
	t.Parallel()
	db, err := store.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NoError(t, db.Close())

	ctx := t.Context()
	for name, call := range map[string]func() error{
		"CreateTask":         func() error { return db.CreateTask(ctx, newTask("t", 0), store.Session{}) },
		"GetTask":            func() error { _, err := db.GetTask(ctx, "t"); return err },
		"ListTasks":          func() error { _, err := db.ListTasks(ctx); return err },
		"AppendEvent":        func() error { return db.AppendEvent(ctx, store.EventWrite{Event: event("s", 1, "x", nil)}) },
		"ListEvents":         func() error { _, err := db.ListEvents(ctx, "s", 0, 0); return err },
		"ClaimPendingRetry":  func() error { _, err := db.ClaimPendingRetry(ctx, "s", 1, 1); return err },
		"ListPendingRetries": func() error { _, err := db.ListPendingRetries(ctx); return err },
		"SessionSnapshot":    func() error { _, _, err := db.SessionSnapshot(ctx, "s"); return err },
	} {
		require.ErrorIs(t, call(), store.ErrClosed, name)
	}
}

func TestContextIsRespected(t *testing.T) {
	t.Parallel()
	db := newStore(t)
	seed(t, db, "t1", "s1")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	err := db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "x", nil)})
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.ListEvents(ctx, "s1", 0, 0)
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.GetTask(ctx, "t1")
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.ClaimPendingRetry(ctx, "s1", 0, 1)
	require.ErrorIs(t, err, context.Canceled)

	// Nothing was written.
	s, err := db.GetSession(t.Context(), "s1")
	require.NoError(t, err)
	require.Zero(t, s.LastSeq)

	_, err = store.Open(ctx, t.TempDir())
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, store.ErrCorrupt))
}
