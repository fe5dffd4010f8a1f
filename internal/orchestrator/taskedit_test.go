package orchestrator

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

func boolp(v bool) *bool    { return &v }
func strp(v string) *string { return &v }

// taskNote waits for a task-wide notification of action that match accepts.
func taskNote(t *testing.T, sub *Subscription, action string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case n := <-sub.C():
			if n.Action == action {
				var m map[string]any
				require.NoError(t, json.Unmarshal(n.Payload, &m))
				if match(m) {
					return m
				}
			}
		case <-deadline:
			t.Fatalf("no %s notification", action)
			return nil
		}
	}
}

// Rename, mark done, archive: saved, published, and kept when a later
// turn rewrites the task row; a working task cannot be marked done.
func TestUpdateTaskRenamesMarksDoneAndArchives(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("hello", nil)
	f.until(isTurnDone)
	sub := h.svc.SubscribeTasks(100)
	defer sub.Close()

	got, err := h.svc.UpdateTask(h.ctx, UpdateTaskRequest{TaskID: v.ID, Title: strp("  Renamed task "), Done: boolp(true), Archived: boolp(true)})
	require.NoError(t, err)
	assert.Equal(t, "Renamed task", got.Title)
	assert.Equal(t, store.TaskDone, got.State)
	require.NotNil(t, got.ArchivedAt)
	pub := taskNote(t, sub, "task.updated", func(m map[string]any) bool {
		return m["task"].(map[string]any)["title"] == "Renamed task"
	})["task"].(map[string]any)
	assert.Equal(t, "Renamed task", pub["title"])
	assert.Equal(t, store.TaskDone, pub["state"])
	assert.NotEmpty(t, pub["archived_at"])
	stored, err := h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, "Renamed task", stored.Title)
	assert.NotNil(t, stored.ArchivedAt)

	// A new turn moves the state on, and keeps the title and the mark.
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: v.Sessions[0].ID, Text: "/slow:3000 more"}))
	f.until(isState(store.SessionRunning))
	_, err = h.svc.UpdateTask(h.ctx, UpdateTaskRequest{TaskID: v.ID, Done: boolp(true)})
	errIs(t, err, ErrConflict)
	_, err = h.svc.DeleteTask(h.ctx, DeleteTaskRequest{TaskID: v.ID})
	errIs(t, err, ErrConflict)
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput))
	stored, err = h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, "Renamed task", stored.Title)
	assert.Equal(t, store.TaskReview, stored.State)
	assert.NotNil(t, stored.ArchivedAt, "archived until the user restores it")

	got, err = h.svc.UpdateTask(h.ctx, UpdateTaskRequest{TaskID: v.ID, Archived: boolp(false), Done: boolp(false)})
	require.NoError(t, err)
	assert.Nil(t, got.ArchivedAt)
	assert.Equal(t, store.TaskReview, got.State)

	_, err = h.svc.UpdateTask(h.ctx, UpdateTaskRequest{TaskID: v.ID, Title: strp(" ")})
	errIs(t, err, ErrValidation)
	_, err = h.svc.UpdateTask(h.ctx, UpdateTaskRequest{TaskID: v.ID})
	errIs(t, err, ErrValidation)
	_, err = h.svc.UpdateTask(h.ctx, UpdateTaskRequest{TaskID: "nope", Done: boolp(true)})
	errIs(t, err, ErrNotFound)
}

// Deleting a task removes its history and the daemon's own workspace, but
// never a directory the user chose.
func TestDeleteTaskKeepsAUserChosenWorkdir(t *testing.T) {
	h := newHarness(t)
	mine := t.TempDir()
	keep := filepath.Join(mine, "precious.txt")
	require.NoError(t, os.WriteFile(keep, []byte("mine"), 0o600))
	v1, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "hello", Agent: "mock", Workdir: mine})
	require.NoError(t, err)
	h.follow(v1.Sessions[0].ID, 0).until(isTurnDone)
	v2, f2 := h.create("hello too", nil)
	f2.until(isTurnDone)
	own := v2.Workdir
	require.DirExists(t, own)
	sub := h.svc.SubscribeTasks(100)
	defer sub.Close()

	res, err := h.svc.DeleteTask(h.ctx, DeleteTaskRequest{TaskID: v1.ID})
	require.NoError(t, err)
	assert.False(t, res.WorkdirRemoved)
	assert.Equal(t, mine, res.Workdir)
	assert.FileExists(t, keep, "a user's directory is never deleted")
	assert.Equal(t, v1.ID, taskNote(t, sub, "task.deleted", func(map[string]any) bool { return true })["task_id"])
	_, err = h.db.GetTask(h.ctx, v1.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = h.svc.GetTask(h.ctx, v1.ID)
	errIs(t, err, ErrNotFound)
	err = h.svc.Prompt(h.ctx, PromptRequest{SessionID: v1.Sessions[0].ID, Text: "still there?"})
	errIs(t, err, ErrNotFound)

	res, err = h.svc.DeleteTask(h.ctx, DeleteTaskRequest{TaskID: v2.ID})
	require.NoError(t, err)
	assert.True(t, res.WorkdirRemoved)
	assert.NoDirExists(t, own, "the daemon's own workspace goes with the task")
	page, err := h.svc.ListTasks(h.ctx, ListTasksRequest{})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks)

	_, err = h.svc.DeleteTask(h.ctx, DeleteTaskRequest{TaskID: v2.ID})
	errIs(t, err, ErrNotFound)
}

// A workdir that cannot be used is a FieldError naming workdir, with a
// reason, and creates nothing.
func TestCreateTaskRefusesABadWorkdir(t *testing.T) {
	h := newHarness(t)
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	for dir, reason := range map[string]string{
		"relative/dir":                 "not_absolute",
		filepath.Join(file, "missing"): "not_found",
		"/definitely/not/here":         "not_found",
		file:                           "not_directory",
	} {
		_, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "hi", Agent: "mock", Workdir: dir})
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", dir, err)
		assert.Equal(t, "workdir", fe.Field, dir)
		if dir == filepath.Join(file, "missing") {
			assert.Contains(t, []string{"not_found", "unreadable"}, fe.Reason, dir)
		} else {
			assert.Equal(t, reason, fe.Reason, dir)
		}
		errIs(t, err, ErrValidation)
	}
	page, err := h.svc.ListTasks(h.ctx, ListTasksRequest{})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks)
}
