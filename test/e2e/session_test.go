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

func TestCreateStreamFollowUpAndRestartKeepsEveryMessageInOrder(t *testing.T) {
	dir := t.TempDir()
	d := daemontest.Start(t, dir)
	c := daemontest.Dial(t, d)

	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "hello there", "agent": "mock"})
	done := s.Until(20*time.Second, daemontest.TurnDone)
	assert.Equal(t, "end_turn", done.Body().StopReason)
	// A quick reply may come whole in its message.added (streamed text is
	// flushed every 25ms, with the message's creation); a slow one grows
	// in updates as it streams.
	turn1 := len(s.Seen)
	c.Call("session.prompt", map[string]any{"session_id": s.ID, "text": "/slow:1000 and a follow-up"})
	s.Until(20*time.Second, daemontest.TurnDone)
	s.Until(5*time.Second, func(e daemontest.Event) bool {
		return e.Action == "session.state_changed" && e.Body().State == "WAITING_FOR_INPUT"
	})
	chunks := 0
	for _, e := range s.Seen[turn1:] {
		if e.Action == "session.message.updated" && e.Body().Delta != "" {
			chunks++
		}
	}
	assert.GreaterOrEqual(t, chunks, 3, "the slow reply streams: its text arrives in updates after the message is added")
	for i, e := range s.Seen {
		require.Equal(t, int64(i+1), e.Seq, "seq is per-session monotonic without gaps")
	}

	d.Stop(t)
	d2 := daemontest.Start(t, dir)
	c2 := daemontest.Dial(t, d2)
	var res daemontest.SubscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.ID, "after_seq": 0}), &res))
	require.Len(t, res.Events, len(s.Seen), "the full history is replayed after a restart")
	for i := range s.Seen {
		assert.Equal(t, s.Seen[i].Seq, res.Events[i].Seq)
		assert.Equal(t, s.Seen[i].Action, res.Events[i].Action)
		assert.JSONEq(t, string(s.Seen[i].Payload), string(res.Events[i].Payload))
	}

	var snap daemontest.SubscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.ID}), &snap))
	var roles []string
	for _, m := range snap.Messages {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"user", "agent", "user", "agent"}, roles)
	assert.Equal(t, "hello there", snap.Messages[0].Text)
	assert.Contains(t, snap.Messages[1].Text, "hello there", "the echo reply is whole")
	assert.Equal(t, "/slow:1000 and a follow-up", snap.Messages[2].Text)
	assert.Contains(t, snap.Messages[3].Text, "step 10/10.", "the streamed reply is whole")

	var list struct {
		Tasks []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal(c2.Call("task.list", map[string]any{}), &list))
	require.Len(t, list.Tasks, 1)
	assert.Equal(t, "REVIEW", list.Tasks[0].State)
}

func TestStopARunningTurnFromTheSocket(t *testing.T) {
	d := daemontest.Start(t, t.TempDir())
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/slow:20000 long job"})
	s.Until(20*time.Second, func(e daemontest.Event) bool {
		return e.Action == "session.state_changed" && e.Body().State == "RUNNING"
	})
	c.Call("session.stop", map[string]any{"session_id": s.ID})
	assert.Equal(t, "cancelled", s.Until(10*time.Second, daemontest.TurnDone).Body().StopReason)
}

func TestUnknownAgentIsAClearError(t *testing.T) {
	d := daemontest.Start(t, t.TempDir())
	c := daemontest.Dial(t, d)
	e := c.Request("task.create", map[string]any{"prompt": "hi", "agent": "nope"})
	require.Equal(t, "error", e.Type)
	var p struct{ Code, Message string }
	require.NoError(t, json.Unmarshal(e.Payload, &p))
	assert.Equal(t, "VALIDATION_ERROR", p.Code)
	assert.Contains(t, p.Message, `unknown agent "nope"`)
}

func TestMissingAgentExecutableIsAClearErrorOnTheTask(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("agents:\n  ghost:\n    command: /nonexistent/ghost-agent\n"), 0o600))
	d := daemontest.Start(t, t.TempDir(), "--agents", cfg)
	c := daemontest.Dial(t, d)
	var agents struct {
		Agents []struct {
			Name      string `json:"name"`
			Available bool   `json:"available"`
		} `json:"agents"`
	}
	require.NoError(t, json.Unmarshal(c.Call("agent.list", map[string]any{}), &agents))
	avail := map[string]bool{}
	for _, a := range agents.Agents {
		avail[a.Name] = a.Available
	}
	assert.Equal(t, map[string]bool{"mock": true, "ghost": false}, avail)

	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "hello", "agent": "ghost"})
	b := s.Until(20*time.Second, daemontest.IsBanner).Body().Message
	assert.Equal(t, "user_action", b.Metadata["class"])
	assert.Contains(t, b.Metadata["excerpt"], "ghost-agent")
	// The daemon is still healthy.
	code, _ := d.Get(t, "/healthz", false)
	assert.Equal(t, 200, code)
}

func TestMetricsNeedTheTokenAndCountRetries(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "100ms"))
	code, _ := d.Get(t, "/metrics", false)
	assert.Equal(t, 401, code)
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/overloaded:1 count me"})
	s.Until(20*time.Second, func(e daemontest.Event) bool { return daemontest.TurnDone(e) && e.Body().StopReason == "end_turn" })
	code, body := d.Get(t, "/metrics", true)
	require.Equal(t, 200, code)
	assert.Contains(t, body, `orchestratord_retries_scheduled_total{routing_code="overloaded"} 1`)
	assert.Contains(t, body, `orchestratord_retry_outcomes_total{outcome="recovered"} 1`)
	assert.Contains(t, body, `orchestratord_agent_failures_total{class="transient",routing_code="overloaded"} 1`)
}
