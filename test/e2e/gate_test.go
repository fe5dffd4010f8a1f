package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

type gateInfo struct {
	Key     string `json:"key"`
	State   string `json:"state"`
	Waiting int    `json:"waiting"`
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
