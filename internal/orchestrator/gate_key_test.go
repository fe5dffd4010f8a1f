package orchestrator

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// The gate key is the agent and, when the failure names one, the model: the
// mock's "/wall@MODEL" and "/overloaded@MODEL" errors carry "model" in their
// data, as provider error bodies do.

func TestGateKeyOfASession(t *testing.T) {
	t.Parallel()
	rt := &sessionRT{task: store.Task{Agent: "claude"}}
	assert.Equal(t, "claude", gateKey(rt), "never failed: the agent's own gate")
	assert.Equal(t, "claude", failureGateKey(rt, routingerr.Classification{}), "a failure without a model")
	assert.Equal(t, "claude/claude-opus-4-1", failureGateKey(rt, routingerr.Classification{Model: "claude-opus-4-1"}))

	rt.gateKey = "claude/claude-opus-4-1"
	assert.Equal(t, "claude/claude-opus-4-1", gateKey(rt), "the gate its last failure counted on")
	assert.Equal(t, "claude/claude-opus-4-1", failureGateKey(rt, routingerr.Classification{}),
		"a later failure that does not repeat the model stays on its gate")
	assert.Equal(t, "claude/claude-sonnet-4-5", failureGateKey(rt, routingerr.Classification{Model: "claude-sonnet-4-5"}))

	rt.retry = &parkedRetry{gate: "claude/claude-sonnet-4-5"}
	assert.Equal(t, "claude/claude-sonnet-4-5", gateKey(rt), "the gate it waits on or probes for")
}

// parkModel creates a task and waits until its failed first turn is parked.
func (h *harness) parkModel(prompt string) (TaskView, *feed, note) {
	h.t.Helper()
	v, f := h.create(prompt, nil)
	n := f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))
	return v, f, n
}

func gateKeys(l GateList) []string {
	var keys []string
	for _, g := range l.Gates {
		keys = append(keys, g.Key)
	}
	return keys
}

func TestGatePerModelDoesNotHoldOtherModels(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	t0 := h.clock.Now()
	h.setWall(true)

	// Three sessions on gpt-4o open its gate; the third waits on it.
	var as []TaskView
	var afs []*feed
	var last note
	for i := range 3 {
		v, f, n := h.parkModel(fmt.Sprintf("/wall@gpt-4o job %d", i))
		as, afs, last = append(as, v), append(afs, f), n
	}
	assert.Equal(t, map[string]any{"key": "mock/gpt-4o", "state": "open"}, last.Message.Metadata["gate"])
	row, ok := h.pending(as[2].Sessions[0].ID)
	require.True(t, ok)
	assert.Equal(t, "mock/gpt-4o", row.Extra[extraGate])
	row, ok = h.pending(as[0].Sessions[0].ID)
	require.True(t, ok)
	assert.Nil(t, row.Extra[extraGate], "below the threshold: on its own schedule")
	assert.Equal(t, "mock/gpt-4o", row.Extra[extraLastGate], "its gate is remembered for when it is due")

	// Two sessions of the same agent on o3 fail too: they count on o3's
	// gate, still closed, and keep their own schedules.
	var bs []TaskView
	var bfs []*feed
	for i := range 2 {
		v, f, n := h.parkModel(fmt.Sprintf("/overloaded@o3 job %d", i))
		assert.Equal(t, "Provider overloaded — retrying in 5s (attempt 1/3)", n.Message.Text, "not held by gpt-4o's gate")
		assert.Nil(t, n.Message.Metadata["gate"])
		bs, bfs = append(bs, v), append(bfs, f)
	}
	// A session that never failed succeeds: it closes no model's gate.
	_, pf := h.create("hello", nil)
	pf.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })

	l := h.svc.Gates()
	assert.Equal(t, []string{"mock/gpt-4o", "mock/o3"}, gateKeys(l), "gate.list: one gate per model, none for the agent alone")
	g, _ := h.gateInfo("mock/gpt-4o")
	assert.Equal(t, overload.Open, g.State)
	o3, _ := h.gateInfo("mock/o3")
	assert.Equal(t, overload.Closed, o3.State)
	assert.Equal(t, 2, o3.RecentFailures)
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.gateOpen.WithLabelValues("mock/gpt-4o")))

	// At 5s the o3 sessions retry on their own and recover while gpt-4o's
	// probe fails: their successes leave gpt-4o's gate open.
	h.advanceTo(t0.Add(5 * time.Second))
	for i := range bs {
		bfs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	}
	g = gf.until(func(g GateInfo) bool { return g.Key == "mock/gpt-4o" && probeFailed(1)(g) })
	g, _ = h.gateInfo("mock/gpt-4o")
	assert.Equal(t, overload.Open, g.State, "a success on o3 does not close gpt-4o's gate")
	assert.Equal(t, 4, h.providerRequests(), "three sessions, then one probe")

	// gpt-4o recovers: its probe closes its gate and releases the others.
	h.setWall(false)
	h.advanceTo(*g.NextProbeAt)
	gf.until(func(g GateInfo) bool { return g.Key == "mock/gpt-4o" && isClosed(g) })
	h.advanceTo(h.clock.Now().Add(5 * time.Second))
	for i, v := range as {
		afs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
		_, ok := h.pending(v.Sessions[0].ID)
		assert.False(t, ok)
	}
}

func TestModelGateSurvivesARestart(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	t0 := h.clock.Now()
	h.setWall(true)
	var vs []TaskView
	for i := range 3 {
		v, _, _ := h.parkModel(fmt.Sprintf("/wall@gemini-2.5-pro job %d", i))
		vs = append(vs, v)
	}
	h.stop()
	rows, err := h.db.ListGates(h.ctx)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, "mock/gemini-2.5-pro", rows[0].Key)

	h.start()
	gf = h.gates()
	require.NoError(t, h.svc.Start(h.ctx))
	g, ok := h.gateInfo("mock/gemini-2.5-pro")
	require.True(t, ok)
	assert.Equal(t, overload.Open, g.State)
	assert.Equal(t, 1, g.Waiting)

	// At 5s the two sessions on their own schedules are due: they ask the
	// gate they failed on (kept in their rows), which is probing, and wait.
	h.advanceTo(t0.Add(5 * time.Second))
	g = gf.until(func(g GateInfo) bool { return g.Key == "mock/gemini-2.5-pro" && probeFailed(1)(g) })
	assert.Equal(t, 3, g.Waiting)
	assert.Equal(t, 4, h.providerRequests(), "only the probe reached the provider")
	for _, v := range vs {
		row, ok := h.pending(v.Sessions[0].ID)
		require.True(t, ok)
		if row.State == store.RetryPending {
			assert.Equal(t, "mock/gemini-2.5-pro", sessionGateOfRetry(row))
		}
	}
	_, ok = h.gateInfo("mock")
	assert.False(t, ok, "no gate for the agent alone")
}
