package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// event is one session notification as a client sees it.
type event struct {
	Action  string          `json:"action"`
	Seq     int64           `json:"seq"`
	Payload json.RawMessage `json:"payload"`
}

type message struct {
	ID       string         `json:"id"`
	Role     string         `json:"role"`
	Variant  string         `json:"variant"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
	Actions  []struct {
		Action  string         `json:"action"`
		Payload map[string]any `json:"payload"`
	} `json:"actions"`
}

type eventBody struct {
	State      string   `json:"state"`
	StopReason string   `json:"stop_reason"`
	MessageID  string   `json:"message_id"`
	Delta      string   `json:"delta"`
	Message    *message `json:"message"`
}

func (e event) body() eventBody {
	var b eventBody
	_ = json.Unmarshal(e.Payload, &b)
	return b
}

type subscribeResult struct {
	Messages []message `json:"messages"`
	Events   []event   `json:"events"`
	LastSeq  int64     `json:"last_seq"`
	Session  struct {
		State string `json:"state"`
	} `json:"session"`
}

// session follows one session over a client: replayed events, then live ones.
type session struct {
	t       *testing.T
	c       *daemontest.Client
	id      string
	taskID  string
	pending []event
	seen    []event
}

func createTask(t *testing.T, c *daemontest.Client, payload map[string]any) *session {
	t.Helper()
	var created struct {
		Task struct {
			ID       string `json:"id"`
			Sessions []struct {
				ID string `json:"id"`
			} `json:"sessions"`
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal(c.Call("task.create", payload), &created))
	require.Len(t, created.Task.Sessions, 1)
	return follow(t, c, created.Task.ID, created.Task.Sessions[0].ID, 0)
}

func follow(t *testing.T, c *daemontest.Client, taskID, sessionID string, after int64) *session {
	t.Helper()
	var res subscribeResult
	require.NoError(t, json.Unmarshal(c.Call("session.subscribe", map[string]any{"session_id": sessionID, "after_seq": after}), &res))
	return &session{t: t, c: c, id: sessionID, taskID: taskID, pending: res.Events}
}

// next returns the next event of this session, in order.
func (s *session) next(timeout time.Duration) event {
	s.t.Helper()
	if len(s.pending) > 0 {
		e := s.pending[0]
		s.pending = s.pending[1:]
		s.seen = append(s.seen, e)
		return e
	}
	for {
		n := s.c.WaitNote(timeout, func(e daemontest.Envelope) bool { return strings.HasPrefix(e.Action, "session.") })
		var e event
		require.NoError(s.t, json.Unmarshal(n.Payload, &e))
		var ids struct {
			SessionID string `json:"session_id"`
			Seq       int64  `json:"seq"`
		}
		require.NoError(s.t, json.Unmarshal(n.Payload, &ids))
		if ids.SessionID != s.id {
			continue
		}
		e = event{Action: n.Action, Seq: ids.Seq, Payload: n.Payload}
		s.seen = append(s.seen, e)
		return e
	}
}

// until reads events until match.
func (s *session) until(timeout time.Duration, match func(event) bool) event {
	s.t.Helper()
	for {
		if e := s.next(timeout); match(e) {
			return e
		}
	}
}

func turnDone(e event) bool { return e.Action == "session.turn.completed" }

func TestCreateStreamFollowUpAndRestartKeepsEveryMessageInOrder(t *testing.T) {
	dir := t.TempDir()
	d := daemontest.Start(t, dir)
	c := daemontest.Dial(t, d)

	s := createTask(t, c, map[string]any{"prompt": "hello there", "agent": "mock"})
	done := s.until(20*time.Second, turnDone)
	assert.Equal(t, "end_turn", done.body().StopReason)
	chunks := 0
	for _, e := range s.seen {
		if e.Action == "session.message.updated" && e.body().Delta != "" {
			chunks++
		}
	}
	assert.GreaterOrEqual(t, chunks, 2, "the reply streams in several chunks")

	c.Call("session.prompt", map[string]any{"session_id": s.id, "text": "and a follow-up"})
	s.until(20*time.Second, turnDone)
	s.until(5*time.Second, func(e event) bool {
		return e.Action == "session.state_changed" && e.body().State == "WAITING_FOR_INPUT"
	})
	for i, e := range s.seen {
		require.Equal(t, int64(i+1), e.Seq, "seq is per-session monotonic without gaps")
	}

	d.Stop(t)
	d2 := daemontest.Start(t, dir)
	c2 := daemontest.Dial(t, d2)
	var res subscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.id, "after_seq": 0}), &res))
	require.Len(t, res.Events, len(s.seen), "the full history is replayed after a restart")
	for i := range s.seen {
		assert.Equal(t, s.seen[i].Seq, res.Events[i].Seq)
		assert.Equal(t, s.seen[i].Action, res.Events[i].Action)
		assert.JSONEq(t, string(s.seen[i].Payload), string(res.Events[i].Payload))
	}

	var snap subscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.id}), &snap))
	var roles []string
	for _, m := range snap.Messages {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"user", "agent", "user", "agent"}, roles)
	assert.Equal(t, "hello there", snap.Messages[0].Text)
	assert.Contains(t, snap.Messages[1].Text, "hello there", "the echo reply is whole")
	assert.Equal(t, "and a follow-up", snap.Messages[2].Text)

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
	s := createTask(t, c, map[string]any{"prompt": "/slow:20000 long job"})
	s.until(20*time.Second, func(e event) bool {
		return e.Action == "session.state_changed" && e.body().State == "RUNNING"
	})
	c.Call("session.stop", map[string]any{"session_id": s.id})
	assert.Equal(t, "cancelled", s.until(10*time.Second, turnDone).body().StopReason)
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

	s := createTask(t, c, map[string]any{"prompt": "hello", "agent": "ghost"})
	b := s.until(20*time.Second, isBanner).body().Message
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
	s := createTask(t, c, map[string]any{"prompt": "/overloaded:1 count me"})
	s.until(20*time.Second, func(e event) bool { return turnDone(e) && e.body().StopReason == "end_turn" })
	code, body := d.Get(t, "/metrics", true)
	require.Equal(t, 200, code)
	assert.Contains(t, body, `orchestratord_retries_scheduled_total{routing_code="overloaded"} 1`)
	assert.Contains(t, body, `orchestratord_retry_outcomes_total{outcome="recovered"} 1`)
	assert.Contains(t, body, `orchestratord_agent_failures_total{class="transient",routing_code="overloaded"} 1`)
}
