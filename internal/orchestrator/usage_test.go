package orchestrator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An agent that reports usage gets one quiet usage message per turn, with
// its tokens and the session's cost so far; one that reports nothing gets
// none.
func TestTurnUsageIsStoredWhereTheAgentReportsIt(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("/tokens:1000:200:5000 first", nil)
	f.until(isTurnDone)
	sid := v.Sessions[0].ID
	f.until(isState("WAITING_FOR_INPUT"))
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/tokens:10:20:2500 second"}))
	f.until(isTurnDone)
	f.until(isState("WAITING_FOR_INPUT"))
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "plain"}))
	f.until(isTurnDone)

	var usage []map[string]any
	msgs := h.messages(sid)
	for i, m := range msgs {
		if m.Metadata["kind"] == kindUsage {
			usage = append(usage, m.Metadata)
			assert.Equal(t, "status", m.Role)
			assert.Equal(t, "agent", msgs[i-1].Role, "the usage line sits under the reply")
		}
	}
	require.Len(t, usage, 2, "one per reporting turn, none for the plain one")
	assert.EqualValues(t, 1000, usage[0]["input_tokens"])
	assert.EqualValues(t, 200, usage[0]["output_tokens"])
	assert.EqualValues(t, 1200, usage[0]["total_tokens"])
	assert.InDelta(t, 0.005, usage[0]["cost_amount"], 1e-9)
	assert.Equal(t, "USD", usage[0]["cost_currency"])
	assert.EqualValues(t, 200000, usage[0]["context_size"])
	assert.EqualValues(t, 30, usage[1]["total_tokens"])
	assert.InDelta(t, 0.0075, usage[1]["cost_amount"], 1e-9, "the cost is the session's so far")
	assert.EqualValues(t, 1230, usage[1]["context_used"])
}
