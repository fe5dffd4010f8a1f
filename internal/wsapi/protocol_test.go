package wsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

func TestBadInputGetsTypedErrorAndConnectionStaysUsable(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	c := env.dial(t)

	for _, tc := range []struct {
		name, frame, code, field, id, action string
	}{
		{name: "not JSON", frame: `{"type":"request",`, code: CodeBadRequest},
		{name: "plain text", frame: `hello`, code: CodeBadRequest},
		{name: "array", frame: `[1,2]`, code: CodeBadRequest},
		{name: "null", frame: `null`, code: CodeBadRequest},
		{name: "number id", frame: `{"id":7,"type":"request","action":"task.list"}`, code: CodeBadRequest, field: "id"},
		{name: "missing type", frame: `{"id":"a","action":"task.list"}`, code: CodeBadRequest, field: "type", id: "a", action: "task.list"},
		{name: "type response", frame: `{"id":"b","type":"response","action":"task.list"}`, code: CodeBadRequest, field: "type", id: "b", action: "task.list"},
		{name: "missing action", frame: `{"id":"c","type":"request"}`, code: CodeBadRequest, field: "action", id: "c"},
		{name: "action not a string", frame: `{"id":"d","type":"request","action":5}`, code: CodeBadRequest, field: "action", id: "d"},
		{name: "unknown action", frame: `{"id":"e","type":"request","action":"task.explode"}`, code: CodeUnknownAction, id: "e", action: "task.explode"},
		{name: "missing field", frame: `{"id":"f","type":"request","action":"session.prompt","payload":{"session_id":"s1"}}`,
			code: CodeValidationError, field: "text", id: "f", action: "session.prompt"},
		{name: "missing payload", frame: `{"id":"g","type":"request","action":"task.get"}`,
			code: CodeValidationError, field: "task_id", id: "g", action: "task.get"},
		{name: "blank field", frame: `{"id":"h","type":"request","action":"task.create","payload":{"title":"x","prompt":"   "}}`,
			code: CodeValidationError, field: "prompt", id: "h", action: "task.create"},
		{name: "wrong field type", frame: `{"id":"i","type":"request","action":"task.create","payload":{"prompt":"p","max_attempts":"3"}}`,
			code: CodeValidationError, field: "max_attempts", id: "i", action: "task.create"},
		{name: "fractional integer", frame: `{"id":"j","type":"request","action":"session.subscribe","payload":{"session_id":"s1","after_seq":1.5}}`,
			code: CodeValidationError, field: "after_seq", id: "j", action: "session.subscribe"},
		{name: "payload not an object", frame: `{"id":"k","type":"request","action":"task.get","payload":["t1"]}`,
			code: CodeValidationError, field: "payload", id: "k", action: "task.get"},
		{name: "negative after_seq", frame: `{"id":"l","type":"request","action":"session.subscribe","payload":{"session_id":"s1","after_seq":-1}}`,
			code: CodeValidationError, field: "after_seq", id: "l", action: "session.subscribe"},
		{name: "gate deadline as a duration string", frame: `{"id":"n","type":"request","action":"task.create","payload":{"prompt":"p","gate_deadline_seconds":"4h"}}`,
			code: CodeValidationError, field: "gate_deadline_seconds", id: "n", action: "task.create"},
		{name: "negative gate deadline", frame: `{"id":"o","type":"request","action":"task.create","payload":{"prompt":"p","gate_deadline_seconds":-60}}`,
			code: CodeValidationError, field: "gate_deadline_seconds", id: "o", action: "task.create"},
		{name: "zero gate deadline", frame: `{"id":"p","type":"request","action":"task.create","payload":{"prompt":"p","gate_deadline_seconds":0}}`,
			code: CodeValidationError, field: "gate_deadline_seconds", id: "p", action: "task.create"},
		{name: "gate deadline over 7 days", frame: `{"id":"q","type":"request","action":"task.create","payload":{"prompt":"p","gate_deadline_seconds":604801}}`,
			code: CodeValidationError, field: "gate_deadline_seconds", id: "q", action: "task.create"},
		{name: "gate deadline in milliseconds", frame: `{"id":"r","type":"request","action":"task.create","payload":{"prompt":"p","gate_deadline_seconds":7200000}}`,
			code: CodeValidationError, field: "gate_deadline_seconds", id: "r", action: "task.create"},
		{name: "bad recover action", frame: `{"id":"m","type":"request","action":"session.recover","payload":{"task_id":"t1","session_id":"s1","action":"explode"}}`,
			code: CodeValidationError, field: "action", id: "m", action: "session.recover"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			c.writeText(tc.frame)
			env := c.read()
			e := c.errorOf(env, tc.code)
			require.Equal(t, tc.id, env.ID)
			require.Equal(t, tc.action, env.Action)
			if tc.field != "" {
				require.Equal(t, tc.field, e.Details["field"], "details %v", e.Details)
			}
			c.healthy()
		})
	}
	c.t = t

	// Binary frames are refused, not fatal.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, c.ws.Write(ctx, websocket.MessageBinary, []byte(`{"type":"request","action":"task.list"}`)))
	c.errorOf(c.read(), CodeBadRequest)
	c.healthy()

	env.svc.mu.Lock()
	require.Empty(t, env.svc.created, "a refused task.create reaches nobody")
	env.svc.mu.Unlock()

	// Unknown payload fields are tolerated.
	var got struct{ Task orchestrator.TaskView }
	c.ok(c.call(ActionTaskGet, map[string]any{"task_id": "t1", "future_field": true}), &got)
	require.Equal(t, "t1", got.Task.ID)
}

func TestOversizedFrame(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, func(c *Config) { c.ReadLimit = 1024 })
	c := env.dial(t)

	big := `{"type":"request","action":"task.list","payload":{"pad":"` + strings.Repeat("x", 4000) + `"}}`
	c.writeText(big)
	e := c.errorOf(c.read(), CodeBadRequest)
	require.Equal(t, fmt.Sprintf("frame too large (%d bytes > 1024)", len(big)), e.Message)
	c.healthy()

	// Beyond the hard limit (16×ReadLimit) the library closes with 1009.
	c.writeText(strings.Repeat("y", 16*1024+10))
	require.Equal(t, websocket.StatusMessageTooBig, c.expectClose().Code)
}

func TestServiceErrorsMapToCodes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	c := env.dial(t)

	// A session of another task: FORBIDDEN, with the orchestrator's text.
	e := c.errorOf(c.call(ActionSessionPrompt, map[string]any{"task_id": "t1", "session_id": "s2", "text": "hi"}), CodeForbidden)
	require.Contains(t, e.Message, `session "s2" does not belong to task "t1"`)
	c.errorOf(c.call(ActionSessionSubscribe, map[string]any{"task_id": "t1", "session_id": "s2"}), CodeForbidden)
	c.errorOf(c.call(ActionSessionStop, map[string]any{"task_id": "t2", "session_id": "s1"}), CodeForbidden)
	require.Empty(t, env.svc.prompts, "a refused prompt changes nothing")

	c.errorOf(c.call(ActionTaskGet, map[string]any{"task_id": "t404"}), CodeNotFound)
	c.errorOf(c.call(ActionSessionPrompt, map[string]any{"session_id": "s404", "text": "hi"}), CodeNotFound)
	c.errorOf(c.call(ActionTaskCreate, map[string]any{"prompt": "p", "agent": "nope"}), CodeValidationError)

	// An error wrapping no sentinel is not shown to the client.
	e = c.errorOf(c.call(ActionTaskGet, map[string]any{"task_id": "boom"}), CodeInternalError)
	require.NotContains(t, e.Message, "/secret/path")

	env.svc.mu.Lock()
	env.svc.err = fmt.Errorf("%w: a turn is already running", orchestrator.ErrConflict)
	env.svc.mu.Unlock()
	c.errorOf(c.call(ActionSessionRecover, map[string]any{"task_id": "t1", "session_id": "s1", "action": "resume"}), CodeConflict)
	env.svc.mu.Lock()
	env.svc.err = fmt.Errorf("%w", orchestrator.ErrClosed)
	env.svc.mu.Unlock()
	c.errorOf(c.call(ActionSessionStop, map[string]any{"session_id": "s1"}), CodeInternalError)
}

func TestActions(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	c := env.dial(t)

	var created struct{ Task orchestrator.TaskView }
	c.ok(c.call(ActionTaskCreate, map[string]any{"title": "T", "prompt": "do it", "agent": "mock", "workdir": "/tmp", "max_attempts": 2}), &created)
	require.Equal(t, "T", created.Task.Title)
	env.svc.mu.Lock()
	req := env.svc.created[0]
	env.svc.mu.Unlock()
	require.Equal(t, "/tmp", req.Workdir)
	require.NotNil(t, req.MaxAttempts)
	require.Equal(t, 2, *req.MaxAttempts)
	require.Zero(t, req.GateDeadline, "absent: the daemon's default")

	// gate_deadline_seconds: a number of seconds; null is the default.
	for _, tc := range []struct {
		payload any
		want    time.Duration
	}{{7200, 2 * time.Hour}, {604800, 7 * 24 * time.Hour}, {1.5, 1500 * time.Millisecond}, {nil, 0}} {
		var v struct{ Task orchestrator.TaskView }
		c.ok(c.call(ActionTaskCreate, map[string]any{"prompt": "wait", "gate_deadline_seconds": tc.payload}), &v)
		env.svc.mu.Lock()
		req := env.svc.created[len(env.svc.created)-1]
		env.svc.mu.Unlock()
		require.Equal(t, tc.want, req.GateDeadline, "gate_deadline_seconds %v", tc.payload)
		require.Equal(t, tc.want.Seconds(), v.Task.GateDeadlineSeconds, "echoed in the task")
	}

	var list struct{ Tasks []orchestrator.TaskView }
	c.ok(c.call(ActionTaskList, nil), &list)
	require.Len(t, list.Tasks, 2)

	var prompt map[string]any
	c.ok(c.call(ActionSessionPrompt, map[string]any{"task_id": "t1", "session_id": "s1", "text": "more"}), &prompt)
	require.Equal(t, "s1", prompt["session_id"])
	c.ok(c.call(ActionSessionStop, map[string]any{"session_id": "s1"}), nil)
	c.ok(c.call(ActionSessionRecover, map[string]any{"task_id": "t1", "session_id": "s1", "action": "cancel_retry"}), nil)

	var gates map[string]any
	c.ok(c.call(ActionGateList, nil), &gates)
	require.Equal(t, true, gates["enabled"])
	g := gates["gates"].([]any)[0].(map[string]any)
	require.Equal(t, "mock", g["key"])
	require.Equal(t, "open", g["state"])
	require.EqualValues(t, 37, g["waiting"])
	require.Equal(t, "2025-01-02T03:05:00Z", g["next_probe_at"])

	// A request without an id still gets its response.
	c.writeText(`{"type":"request","action":"agent.list"}`)
	env2 := c.read()
	require.Equal(t, TypeResponse, env2.Type)
	require.Empty(t, env2.ID)
	require.Equal(t, ActionAgentList, env2.Action)
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, func(c *Config) { c.RateLimit = 1; c.RateBurst = 2 })
	var now atomic.Int64
	now.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	env.srv.now = func() time.Time { return time.Unix(0, now.Load()) }
	c := env.dial(t)

	c.healthy()
	c.healthy()
	e := c.call(ActionAgentList, nil)
	c.errorOf(e, CodeRateLimited)
	now.Add(int64(time.Second))
	c.healthy()
}

func TestEnvelopeEncoding(t *testing.T) {
	t.Parallel()
	ts := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	b := encode("", TypeNotification, "session.message.added", json.RawMessage(`{"seq":4}`), ts)
	require.JSONEq(t, `{"type":"notification","action":"session.message.added","payload":{"seq":4},"ts":"2025-01-02T03:04:05Z"}`, string(b))
	b = encode("x", TypeNotification, "bad", json.RawMessage(`{not json`), ts)
	var env Envelope
	require.NoError(t, json.Unmarshal(b, &env))
	require.Equal(t, TypeError, env.Type)
}
