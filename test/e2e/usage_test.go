package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// A task that waits out usage windows (on_usage_limit: wait) on the real
// daemon and mock agent: /usage-limit:1:3 resets three seconds after the
// failure; the session parks with one retry notice (retrying: true,
// retry_at = the reset plus the margin), continues then, and ends
// recovered. Its task says what it chose.
func TestUsageLimitWaitEndsRecoveredWithOneNotice(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("usage_limit:\n  margin: 1s\n"), 0o600))
	d := daemontest.Start(t, t.TempDir(), "--config", cfg)
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/usage-limit:1:3 overnight batch", "on_usage_limit": "wait"})
	n := s.Until(20*time.Second, daemontest.IsNotice)
	require.Equal(t, "session.message.added", n.Action)
	m := n.Body().Message
	assert.Equal(t, true, m.Metadata["retrying"])
	assert.Contains(t, m.Text, "Usage limit reached — continuing at")
	usage, ok := m.Metadata["usage"].(map[string]any)
	require.True(t, ok, "usage metadata: %v", m.Metadata)
	reset, err := time.Parse(time.RFC3339Nano, usage["reset_at"].(string))
	require.NoError(t, err)
	retryAt, err := time.Parse(time.RFC3339Nano, m.Metadata["retry_at"].(string))
	require.NoError(t, err)
	assert.Equal(t, reset.Add(time.Second), retryAt, "retry_at is the reset plus the margin")
	var actions []any
	for _, a := range m.Actions {
		actions = append(actions, a.Payload["action"])
	}
	assert.Equal(t, []any{"cancel_retry", "retry_now"}, actions, "Cancel and Retry now")

	done := s.Until(30*time.Second, daemontest.TurnEnded)
	assert.Equal(t, "end_turn", done.Body().StopReason)
	assert.False(t, time.Now().Before(retryAt), "it did not continue before the reset plus the margin")
	notices := map[string]bool{}
	for _, e := range s.Seen {
		assert.False(t, daemontest.IsBanner(e), "no banner")
		if daemontest.IsNotice(e) {
			notices[e.Body().Message.ID] = true
		}
	}
	assert.Len(t, notices, 1, "one notice")
	var got struct {
		Task struct {
			OnUsageLimit string `json:"on_usage_limit"`
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal(c.Call("task.get", map[string]any{"task_id": s.TaskID}), &got))
	assert.Equal(t, "wait", got.Task.OnUsageLimit, "the task says what it chose")
	snap := s.Snapshot()
	for _, msg := range snap.Messages {
		assert.NotEqual(t, "status", msg.Role, "the notice is gone once it continued: %q", msg.Text)
	}
}

// Retry now on a usage-limit notice sends at once, hours before the reset.
func TestUsageLimitRetryNow(t *testing.T) {
	d := daemontest.Start(t, t.TempDir())
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/usage-limit:1:7200 weekend job", "on_usage_limit": "wait"})
	n := s.Until(20*time.Second, daemontest.IsNotice).Body().Message
	assert.Contains(t, n.Text, "(in 2h")
	s.Until(20*time.Second, daemontest.IsState("WAITING_FOR_INPUT"))
	c.Call("session.recover", map[string]any{"task_id": s.TaskID, "session_id": s.ID, "action": "retry_now"})
	assert.Equal(t, "end_turn", s.Until(30*time.Second, daemontest.TurnEnded).Body().StopReason)
}
