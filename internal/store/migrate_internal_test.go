package store

import (
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A data file written before 0003 (tasks without gate_deadline_ns) opens,
// upgrades in place and reads its tasks back, each with the default (0).
// The old file is built with the released migrations 0001–0002, exactly as
// the previous binary left it.
func TestUpgradeFromSchema2KeepsTasks(t *testing.T) {
	ms, err := loadMigrations()
	require.NoError(t, err)
	require.Greater(t, len(ms), 2)

	dir := t.TempDir()
	raw, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	require.NoError(t, err)
	for _, m := range ms[:2] {
		_, err := raw.Exec(m.sql)
		require.NoError(t, err, m.name)
	}
	_, err = raw.Exec("PRAGMA user_version = 2")
	require.NoError(t, err)
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for i, id := range []string{"old-1", "old-2"} {
		_, err := raw.Exec(`INSERT INTO tasks (id, title, agent, workdir, max_attempts, state, created_at, updated_at)
			VALUES (?, ?, 'mock', '/w', ?, 'IN_PROGRESS', ?, ?)`,
			id, "task "+id, i+1, fmtTime(created.Add(time.Duration(i)*time.Second)), fmtTime(created))
		require.NoError(t, err)
	}
	_, err = raw.Exec(`INSERT INTO sessions (id, task_id, state, created_at, updated_at) VALUES ('s1', 'old-1', 'RUNNING', ?, ?)`,
		fmtTime(created), fmtTime(created))
	require.NoError(t, err)
	require.NoError(t, raw.Close())

	db, err := Open(t.Context(), dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	v, err := db.SchemaVersion(t.Context())
	require.NoError(t, err)
	require.Equal(t, len(ms), v, "upgraded to the newest schema")

	tasks, err := db.ListTasks(t.Context())
	require.NoError(t, err)
	require.Len(t, tasks, 2)
	for i, task := range tasks {
		id := "old-" + strconv.Itoa(2-i) // newest first
		require.Equal(t, id, task.ID)
		require.Equal(t, "task "+id, task.Title)
		require.Equal(t, 2-i, task.MaxAttempts)
		require.Zero(t, task.GateDeadline, "a task from before has the daemon's default")
	}
	sess, err := db.GetSession(t.Context(), "s1")
	require.NoError(t, err)
	require.Equal(t, "old-1", sess.TaskID)

	// The upgraded file takes the new column on create and on update.
	task := tasks[1] // old-1, the task of s1
	task.GateDeadline = 2 * time.Hour
	require.NoError(t, db.AppendEvent(t.Context(), EventWrite{
		Event: Event{SessionID: "s1", Seq: 1, Type: "task.updated", Payload: []byte(`{}`), At: created},
		Task:  &task,
	}))
	got, err := db.GetTask(t.Context(), task.ID)
	require.NoError(t, err)
	require.Equal(t, 2*time.Hour, got.GateDeadline)
}
