package fleet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// holder is the daemon whose lease on the session is current ("" none).
func (f *Fleet) holder(t testing.TB, sessionID string) string {
	t.Helper()
	var h string
	err := f.Pool.QueryRow(t.Context(), `SELECT coalesce((SELECT holder FROM fleet_leases
		WHERE kind = 'session' AND key = $1 AND expires_at > now()), '')`, sessionID).Scan(&h)
	require.NoError(t, err)
	return h
}

// createTask sends task.create through c and returns the ids, without
// following the session (it may run on another daemon).
func createTask(t testing.TB, c *daemontest.Client, payload map[string]any) (taskID, sessionID string) {
	t.Helper()
	var created struct {
		Task struct {
			ID       string `json:"id"`
			Workdir  string `json:"workdir"`
			Sessions []struct {
				ID string `json:"id"`
			} `json:"sessions"`
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal(c.Call("task.create", payload), &created))
	require.Len(t, created.Task.Sessions, 1)
	return created.Task.ID, created.Task.Sessions[0].ID
}

// turnEnded waits until the session's log holds a completed turn with
// stop reason end_turn, whoever wrote it.
func (f *Fleet) turnEnded(t testing.TB, sessionID string, timeout time.Duration) {
	t.Helper()
	WaitFor(t, timeout, "the session's turn to end", func() (bool, string) {
		n := f.Count(t, `SELECT count(*) FROM events WHERE session_id = $1 AND type = 'session.turn.completed'
			AND payload->>'stop_reason' = 'end_turn'`, sessionID)
		return n > 0, "no completed turn yet"
	})
}

func (f *Fleet) workdir(t testing.TB, taskID string) string {
	t.Helper()
	var w string
	require.NoError(t, f.Pool.QueryRow(t.Context(), `SELECT workdir FROM tasks WHERE id = $1`, taskID).Scan(&w))
	return w
}

// A task runs on the daemon that received it while it has room and the
// agent; on the daemon task.create names; on a daemon with room when the
// receiver is full; on the daemon that has its agent profile. The session
// is owned by lease by the daemon that runs it, which alone writes it.
func TestPlacement(t *testing.T) {
	f := Start(t, Options{N: 3,
		ArgsFor: func(i int) []string {
			if i == 0 {
				return []string{"--max-agents", "1"}
			}
			return nil
		},
		Profiles: func(i int) []string {
			if i == 2 {
				return []string{"mock2"}
			}
			return nil
		}})
	c0 := f.Dial(t, 0)

	// The receiver first.
	task, sess := createTask(t, c0, map[string]any{"title": "here", "prompt": "hello", "agent": "mock"})
	f.turnEnded(t, sess, 30*time.Second)
	assert.Equal(t, f.D(0).ID, f.holder(t, sess), "run by the daemon that received it")
	assert.True(t, strings.HasPrefix(f.workdir(t, task), f.D(0).Dir), "its workspace is on that daemon")

	// A command for it given to another daemon does not run it there: the
	// owner keeps the session (relayed, or refused as UNAVAILABLE).
	e := f.Dial(t, 1).Request("session.prompt", map[string]any{"session_id": sess, "text": "from elsewhere"})
	if e.Type == "error" {
		assert.Contains(t, string(e.Payload), "UNAVAILABLE")
	}
	assert.Equal(t, f.D(0).ID, f.holder(t, sess), "the owner keeps its session")

	// A named daemon.
	task, sess = createTask(t, c0, map[string]any{"title": "named", "prompt": "hello", "agent": "mock", "daemon": f.D(1).ID})
	f.turnEnded(t, sess, 30*time.Second)
	assert.Equal(t, f.D(1).ID, f.holder(t, sess))
	assert.True(t, strings.HasPrefix(f.workdir(t, task), f.D(1).Dir), "the named daemon made its workspace: %s", f.workdir(t, task))
	assert.Zero(t, f.Count(t, `SELECT count(*) FROM fleet_starts`), "the hand-over is done")

	// The profile only daemon 2 has.
	_, sess = createTask(t, c0, map[string]any{"title": "profile", "prompt": "hello", "agent": "mock2"})
	f.turnEnded(t, sess, 30*time.Second)
	assert.Equal(t, f.D(2).ID, f.holder(t, sess))

	// The receiver is full (--max-agents 1, its first task's agent is
	// kept): the next task goes to a daemon with room.
	WaitFor(t, 20*time.Second, "daemon 0's load to reach its max", func() (bool, string) {
		m := Members(t, c0)[f.D(0).ID]
		return m.Load >= 1, fmt.Sprintf("load %d", m.Load)
	})
	_, sess = createTask(t, c0, map[string]any{"title": "full", "prompt": "hello", "agent": "mock"})
	f.turnEnded(t, sess, 30*time.Second)
	assert.NotEqual(t, f.D(0).ID, f.holder(t, sess), "a full receiver places elsewhere")

	// A daemon that is not in the fleet, an agent nobody has.
	e = c0.Request("task.create", map[string]any{"title": "x", "prompt": "hello", "agent": "mock", "daemon": "no-such-daemon"})
	require.Equal(t, "error", e.Type)
	assert.Contains(t, string(e.Payload), "VALIDATION_ERROR")
	e = c0.Request("task.create", map[string]any{"title": "x", "prompt": "hello", "agent": "nobody-has-it"})
	require.Equal(t, "error", e.Type)
	assert.Contains(t, string(e.Payload), "VALIDATION_ERROR")
}
