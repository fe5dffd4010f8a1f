package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

type gateInfo struct {
	Key        string `json:"key"`
	State      string `json:"state"`
	Waiting    int    `json:"waiting"`
	ProbesSent int    `json:"probes_sent"`
}

type gateList struct {
	Enabled bool       `json:"enabled"`
	Gates   []gateInfo `json:"gates"`
}

func gateNote(state string) func(daemontest.Envelope) bool {
	return func(e daemontest.Envelope) bool {
		if e.Action != "gate.updated" {
			return false
		}
		var body struct{ Gate gateInfo }
		return json.Unmarshal(e.Payload, &body) == nil && body.Gate.State == state
	}
}

// gateProbed matches an open gate that has sent a probe.
func gateProbed(e daemontest.Envelope) bool {
	var body struct{ Gate gateInfo }
	return e.Action == "gate.updated" && json.Unmarshal(e.Payload, &body) == nil &&
		body.Gate.State == "open" && body.Gate.ProbesSent > 0
}

// A wall of 529s shared by four sessions: the gate opens, probes, closes
// when the wall falls, and every session replies — seen over the socket.
func TestOverloadGateOverTheSocket(t *testing.T) {
	dir := t.TempDir()
	wallDir := filepath.Join(dir, "mock-agent") // the built-in mock's state dir
	require.NoError(t, mockagent.SetWall(wallDir, mockagent.Wall{Up: true}))
	d := daemontest.Start(t, dir, "--retry-scale", "0.05")
	c := daemontest.Dial(t, d)
	watch := daemontest.Dial(t, d) // gate.updated reaches every connection

	var l gateList
	require.NoError(t, json.Unmarshal(c.Call("gate.list", map[string]any{}), &l))
	assert.True(t, l.Enabled)
	assert.Empty(t, l.Gates)

	var ss []*daemontest.Session
	for _, p := range []string{"/wall one", "/wall two", "/wall three", "/wall four"} {
		// One connection per session: a Session reads its client's feed alone.
		s := daemontest.CreateTask(t, daemontest.Dial(t, d), map[string]any{"prompt": p})
		s.Until(20*time.Second, daemontest.IsNotice)
		ss = append(ss, s)
	}
	watch.WaitNote(20*time.Second, gateNote("open"))
	require.NoError(t, json.Unmarshal(c.Call("gate.list", map[string]any{}), &l))
	require.Len(t, l.Gates, 1)
	assert.Equal(t, "mock", l.Gates[0].Key)

	// The wall falls only after a probe: else a session's own retry, due
	// before the gate opened, may close it first and no probe is sent.
	watch.WaitNote(30*time.Second, gateProbed)
	require.NoError(t, mockagent.SetWall(wallDir, mockagent.Wall{Up: false}))
	watch.WaitNote(30*time.Second, gateNote("closed"))
	for _, s := range ss {
		assert.Equal(t, "end_turn", s.Until(30*time.Second, daemontest.TurnEnded).Body().StopReason)
	}
	_, body := d.Get(t, "/metrics", true)
	assert.Contains(t, body, `orchestratord_overload_gate_open{gate="mock"} 0`)
	assert.Contains(t, body, `orchestratord_overload_gate_probes_total{gate="mock"}`)
}

func TestOverloadGateOff(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--overload-gate=off")
	c := daemontest.Dial(t, d)
	var l gateList
	require.NoError(t, json.Unmarshal(c.Call("gate.list", map[string]any{}), &l))
	assert.False(t, l.Enabled)
}

// A task's own gate deadline (gate_deadline_seconds; --retry-scale scales
// it like the daemon's) ends its wait with the banner while the tasks on
// the daemon's 30 minutes keep waiting; a bad value is a typed error that
// creates nothing.
func TestTaskGateDeadlineOverTheSocket(t *testing.T) {
	dir := t.TempDir()
	wallDir := filepath.Join(dir, "mock-agent")
	require.NoError(t, mockagent.SetWall(wallDir, mockagent.Wall{Up: true}))
	// Long own retries and a wide window (3s and 30s at this scale): the
	// gate opens however slowly the agents start, before anyone's budget
	// runs out.
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("retry:\n  overloaded: {delays: [60s], budget: 3}\n  jitter: 0.01\n"+
		"overload:\n  window: 10m\n"), 0o600))
	d := daemontest.Start(t, dir, "--retry-scale", "0.05", "--config", cfg)
	c := daemontest.Dial(t, d)

	for _, bad := range []any{"1h", -60, 0, 604801} {
		e := c.Request("task.create", map[string]any{"prompt": "/wall never", "gate_deadline_seconds": bad})
		require.Equal(t, "error", e.Type, "gate_deadline_seconds %v", bad)
		var body struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		}
		require.NoError(t, json.Unmarshal(e.Payload, &body))
		assert.Equal(t, "VALIDATION_ERROR", body.Code)
		assert.Equal(t, "gate_deadline_seconds", body.Details["field"])
	}
	var tasks struct{ Tasks []map[string]any }
	require.NoError(t, json.Unmarshal(c.Call("task.list", map[string]any{}), &tasks))
	assert.Empty(t, tasks.Tasks, "a refused task.create creates nothing")

	// The last one opens the gate and waits on it from its first failure.
	var ss []*daemontest.Session
	for i, p := range []string{"/wall one", "/wall two", "/wall three"} {
		payload := map[string]any{"prompt": p}
		if i == 2 {
			payload["gate_deadline_seconds"] = 60 // 3s at this scale
		}
		s := daemontest.CreateTask(t, daemontest.Dial(t, d), payload)
		s.Until(20*time.Second, daemontest.IsNotice)
		ss = append(ss, s)
	}
	b := ss[2].Until(30*time.Second, daemontest.IsBanner)
	assert.Equal(t, "The provider stayed overloaded for 3 seconds.", b.Body().Message.Text)
	for _, s := range ss[:2] {
		for _, m := range s.Snapshot().Messages {
			assert.NotEqual(t, "recovery", m.Metadata["kind"], "a task on the default deadline still waits: %s", m.Text)
		}
	}
	for i, want := range []float64{0, 0, 60} {
		var got struct {
			Task map[string]any `json:"task"`
		}
		require.NoError(t, json.Unmarshal(c.Call("task.get", map[string]any{"task_id": ss[i].TaskID}), &got))
		if want == 0 {
			assert.NotContains(t, got.Task, "gate_deadline_seconds", "task %d: the daemon's default", i)
		} else {
			assert.Equal(t, want, got.Task["gate_deadline_seconds"], "task %d", i)
		}
	}

	require.NoError(t, mockagent.SetWall(wallDir, mockagent.Wall{Up: false}))
	for _, s := range ss[:2] {
		assert.Equal(t, "end_turn", s.Until(30*time.Second, daemontest.TurnEnded).Body().StopReason)
	}
}
