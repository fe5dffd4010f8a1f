package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// A task's title, state and archived mark change in place, survive a later
// event that rewrites the task row, and come back from every read.
func testUpdateTaskArchivesAndRenames(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	task, _ := seed(t, db, "t1", "s1")

	archived := base.Add(time.Minute).UTC()
	task.Title, task.State, task.ArchivedAt, task.UpdatedAt = "renamed", store.TaskDone, &archived, at(60)
	require.NoError(t, db.UpdateTask(ctx, task))
	got, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, task, got)

	// A session event that writes the task row keeps the mark.
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "session.state_changed", nil), Task: &task}))
	page, _, err := db.ListTaskPage(ctx, 0, "")
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, task, page[0].Task)

	task.ArchivedAt = nil
	require.NoError(t, db.UpdateTask(ctx, task))
	got, err = db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Nil(t, got.ArchivedAt)

	missing := task
	missing.ID = "nope"
	require.ErrorIs(t, db.UpdateTask(ctx, missing), store.ErrNotFound)
}

// DeleteTask takes the task and everything of its sessions, and nothing
// of another task.
func testDeleteTaskRemovesEverythingOfItsOwn(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	fill := func(taskID, sessionID string) {
		seed(t, db, taskID, sessionID)
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(sessionID, 1, "session.message.added", nil),
			UpsertMessage: &store.Message{ID: "m-" + sessionID, Role: "agent", Text: "a"}}))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(sessionID, 2, "session.message.updated", nil),
			AppendText: &store.TextAppend{MessageID: "m-" + sessionID, Delta: "b"}})) // an unsealed chunk
		require.NoError(t, db.SaveExecution(ctx, store.Execution{ID: "x-" + sessionID, SessionID: sessionID, StartedAt: base}))
		require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: sessionID, TaskID: taskID,
			Generation: 1, Attempt: 2, MaxAttempts: 3, RetryAt: base, CreatedAt: base}))
	}
	fill("t1", "s1")
	fill("t2", "s2")

	require.NoError(t, db.DeleteTask(ctx, "t1"))
	_, err := db.GetTask(ctx, "t1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.GetSession(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.GetMessage(ctx, "m-s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.GetPendingRetry(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	evs, err := db.ListEvents(ctx, "s1", 0, 100)
	require.NoError(t, err)
	require.Empty(t, evs)
	xs, err := db.ListExecutions(ctx, "s1")
	require.NoError(t, err)
	require.Empty(t, xs)

	// The other task is whole.
	msgs, err := db.ListMessages(ctx, "s2")
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "ab", msgs[0].Text)
	evs, err = db.ListEvents(ctx, "s2", 0, 100)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	_, err = db.GetPendingRetry(ctx, "s2")
	require.NoError(t, err)
	page, _, err := db.ListTaskPage(ctx, 0, "")
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, "t2", page[0].Task.ID)

	require.ErrorIs(t, db.DeleteTask(ctx, "t1"), store.ErrNotFound)
}
