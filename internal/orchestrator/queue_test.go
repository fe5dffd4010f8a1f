package orchestrator

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// With one agent slot, tasks wait in line (QUEUED, with their place),
// start in order as the slot frees, and a finished task's idle agent gives
// way at once instead of after the idle timeout.
func TestMaxAgentsQueuesTasksInOrder(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxAgents = 1 })
	a, fa := h.create("/slow:1500 first", nil)
	fa.until(isState(store.SessionRunning))
	b, fb := h.create("second", nil)
	c, fc := h.create("third", nil)
	queuedAt := func(f *feed) int {
		t.Helper()
		n := f.until(isState(store.SessionQueued))
		var body struct {
			Position int `json:"queue_position"`
		}
		require.NoError(t, json.Unmarshal(n.raw, &body))
		return body.Position
	}
	assert.Equal(t, 1, queuedAt(fb))
	assert.Equal(t, 2, queuedAt(fc))
	page, err := h.svc.ListTasks(h.ctx, ListTasksRequest{})
	require.NoError(t, err)
	pos := map[string]int{}
	for _, v := range page.Tasks {
		pos[v.ID] = v.QueuePosition
	}
	assert.Equal(t, map[string]int{a.ID: 0, b.ID: 1, c.ID: 2}, pos, "task.list shows each task's place")

	assert.Equal(t, "end_turn", fa.until(isTurnDone).StopReason)
	assert.Equal(t, "end_turn", fb.until(isTurnDone).StopReason)
	assert.Equal(t, "end_turn", fc.until(isTurnDone).StopReason)
	assert.Zero(t, h.agentPID(a.Sessions[0].ID), "the first task's idle agent gave way")
	assert.Zero(t, h.agentPID(b.Sessions[0].ID), "so did the second's")

	// A follow-up on the first task resumes its agent session in a new process.
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: a.Sessions[0].ID, Text: "and again"}))
	assert.Equal(t, "end_turn", fa.until(isTurnDone).StopReason)
	assert.Equal(t, []string{"/slow:1500 first", "and again"}, h.agentPrompts(a.Sessions[0].ID))
}

// Stop on a queued turn takes it out of line; the next one moves up.
func TestStopLeavesTheQueue(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxAgents = 1 })
	_, fa := h.create("/slow:1500 first", nil)
	fa.until(isState(store.SessionRunning))
	b, fb := h.create("second", nil)
	_, fc := h.create("third", nil)
	fb.until(isState(store.SessionQueued))
	fc.until(isState(store.SessionQueued))
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: b.Sessions[0].ID}))
	assert.Equal(t, "cancelled", fb.until(isTurnDone).StopReason)
	assert.Equal(t, "end_turn", fc.until(isTurnDone).StopReason, "the third runs after the first")
	assert.Equal(t, "end_turn", fa.until(isTurnDone).StopReason)
}
