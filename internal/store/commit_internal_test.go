package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// insertTask is a write that adds task id.
func insertTask(id string) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tasks (`+taskColumns+`) VALUES (?, 't', 'mock', '/w', 0, 'todo', ?, ?, 0, NULL, '')`,
			id, "2026-01-01T00:00:00.000000000Z", "2026-01-01T00:00:00.000000000Z")
		return err
	}
}

// A group shares one commit, but each write still succeeds or fails alone:
// a failing write leaves no trace, its neighbours land, and a write whose
// caller gave up before its turn never runs.
func TestCommitGroupIsolatesEachWrite(t *testing.T) {
	db, err := Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()

	boom := errors.New("boom")
	failing := func(ctx context.Context, tx *sql.Tx) error {
		if err := insertTask("half-done")(ctx, tx); err != nil {
			return err
		}
		return boom // after a statement: its savepoint must undo it
	}
	gone, cancel := context.WithCancel(t.Context())
	cancel()

	reqs := []*writeReq{
		{ctx: t.Context(), fn: insertTask("a")},
		{ctx: t.Context(), fn: failing},
		{ctx: gone, fn: insertTask("never")},
		{ctx: t.Context(), fn: insertTask("a")}, // duplicate key: fails alone
		{ctx: t.Context(), fn: insertTask("b")},
	}
	for _, r := range reqs {
		r.done = make(chan error, 1)
	}
	db.commitGroup(reqs)

	require.NoError(t, <-reqs[0].done)
	require.ErrorIs(t, <-reqs[1].done, boom)
	require.ErrorIs(t, <-reqs[2].done, context.Canceled)
	require.Error(t, <-reqs[3].done)
	require.NoError(t, <-reqs[4].done)

	tasks, err := db.ListTasks(t.Context())
	require.NoError(t, err)
	var ids []string
	for _, task := range tasks {
		ids = append(ids, task.ID)
	}
	require.ElementsMatch(t, []string{"a", "b"}, ids)
}

// Writers queued at Close get ErrClosed, never a hang.
func TestWriteAfterCloseIsErrClosed(t *testing.T) {
	db, err := Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = db.exec(t.Context(), `DELETE FROM tasks`)
	require.ErrorIs(t, err, ErrClosed)
}

// A write that breaks the shared transaction (here: ends it) makes the
// group fall back to one transaction per write: its neighbours still land,
// and it alone gets an error.
func TestCommitGroupFallsBackWhenTheGroupBreaks(t *testing.T) {
	db, err := Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()

	breaker := func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `ROLLBACK`) // the savepoints and the group are gone
		return err
	}
	reqs := []*writeReq{
		{ctx: t.Context(), fn: insertTask("a")},
		{ctx: t.Context(), fn: breaker},
		{ctx: t.Context(), fn: insertTask("b")},
	}
	for _, r := range reqs {
		r.done = make(chan error, 1)
	}
	db.commitGroup(reqs)

	require.NoError(t, <-reqs[0].done)
	require.Error(t, <-reqs[1].done)
	require.NoError(t, <-reqs[2].done)
	tasks, err := db.ListTasks(t.Context())
	require.NoError(t, err)
	var ids []string
	for _, task := range tasks {
		ids = append(ids, task.ID)
	}
	require.ElementsMatch(t, []string{"a", "b"}, ids)
}
