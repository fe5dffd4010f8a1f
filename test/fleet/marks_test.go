package fleet

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// taskMarks is what a task view says that only the daemon running its
// session knows.
type taskMarks struct {
	ID            string `json:"id"`
	State         string `json:"state"`
	QueuePosition int    `json:"queue_position"`
	Paused        bool   `json:"paused"`
}

func getTask(t testing.TB, c *daemontest.Client, taskID string) taskMarks {
	t.Helper()
	var r struct {
		Task taskMarks `json:"task"`
	}
	require.NoError(t, json.Unmarshal(c.Call("task.get", map[string]any{"task_id": taskID}), &r))
	return r.Task
}

func listTask(t testing.TB, c *daemontest.Client, taskID string) taskMarks {
	t.Helper()
	var r struct {
		Tasks []taskMarks `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal(c.Call("task.list", map[string]any{}), &r))
	for _, x := range r.Tasks {
		if x.ID == taskID {
			return x
		}
	}
	t.Fatalf("task %s not in task.list", taskID)
	return taskMarks{}
}

// What B alone knows of its tasks — a task's place in B's line for an
// agent, a retry the user paused — shows on A's task.get, task.list and
// task.updated as on B's.
func TestARemoteTaskShowsItsOwnersMarks(t *testing.T) {
	if os.Getenv("ORCHESTRATORD_FLEET_FULL") == "" {
		t.Skip("about 30s; `make fleet` runs it (ORCHESTRATORD_FLEET_FULL=1)")
	}
	f := Start(t, Options{N: 2,
		Args:    []string{"--overload-gate", "off", "--config", daemontest.RetryConfig(t, "40s, 40s, 40s")},
		ArgsFor: func(i int) []string { return map[int][]string{1: {"--max-agents", "1"}}[i] }})
	a, b := f.Dial(t, 0), f.Dial(t, 1)
	onB := map[string]any{"daemon": f.D(1).ID}

	// A retry paused on B.
	paused, pausedSess := createTask(t, b, map[string]any{"title": "paused", "prompt": "/overloaded:1 pause me", "agent": "mock", "daemon": f.D(1).ID})
	WaitFor(t, 30*time.Second, "the retry to park", func() (bool, string) {
		n := f.Count(t, `SELECT count(*) FROM pending_retries WHERE session_id = $1`, pausedSess)
		return n == 1, fmt.Sprint(n, " parked")
	})
	b.Call("session.recover", map[string]any{"task_id": paused, "session_id": pausedSess, "action": "cancel_retry"})
	require.True(t, getTask(t, b, paused).Paused, "B shows the pause")
	got := getTask(t, a, paused)
	t.Logf("the paused task on A: %+v", got)
	assert.True(t, got.Paused, "A's task.get shows B's pause")
	assert.True(t, listTask(t, a, paused).Paused, "A's task.list shows B's pause")

	// A task waiting in B's line (B runs one agent at a time).
	list := f.Dial(t, 0) // A's task list, following every task
	_, _ = createTask(t, b, map[string]any{"title": "holds the slot", "prompt": "/slow:30000 hold it", "agent": "mock", "daemon": f.D(1).ID})
	queued, queuedSess := createTask(t, b, map[string]any{"title": "queued", "prompt": "hello", "agent": "mock", "daemon": onB["daemon"]})
	WaitFor(t, 30*time.Second, "the second task to queue on B", func() (bool, string) {
		var st string
		_ = f.Pool.QueryRow(t.Context(), `SELECT state FROM sessions WHERE id = $1`, queuedSess).Scan(&st)
		return st == "QUEUED", st
	})
	require.Equal(t, 1, getTask(t, b, queued).QueuePosition, "B shows its line")
	assert.Equal(t, 1, getTask(t, a, queued).QueuePosition, "A's task.get shows B's line")
	assert.Equal(t, 1, listTask(t, a, queued).QueuePosition, "A's task.list shows B's line")
	list.WaitNote(30*time.Second, func(e daemontest.Envelope) bool {
		var p struct {
			Task taskMarks `json:"task"`
		}
		return e.Action == "task.updated" && json.Unmarshal(e.Payload, &p) == nil && p.Task.ID == queued && p.Task.QueuePosition == 1
	})
}
