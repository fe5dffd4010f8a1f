package orchestrator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Start fresh keeps the earlier conversation in the chat and puts a
// divider between it and the new agent session's turn.
func TestStartFreshLeavesADivider(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("remember apricot", nil)
	f.until(isTurnDone)
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/too-long:1 now this"}))
	f.until(isBanner)
	f.until(isTurnDone) // the failed turn's end, after its banner
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverFreshStart}))
	f.until(isTurnDone)

	msgs := h.messages(sid)
	divider := -1
	for i, m := range msgs {
		if m.Metadata["kind"] == kindFreshStart {
			require.Equal(t, -1, divider, "one divider")
			divider = i
			assert.Equal(t, "status", m.Role)
			assert.Equal(t, freshDividerText, m.Text)
		}
	}
	require.NotEqual(t, -1, divider, "Start fresh leaves a divider")
	before, after := msgs[:divider], msgs[divider+1:]
	require.NotEmpty(t, byRole(before, "user"))
	assert.Equal(t, "remember apricot", byRole(before, "user")[0].Text, "the earlier conversation stays")
	assert.NotEmpty(t, byRole(before, "agent"))
	agents := byRole(after, "agent")
	require.NotEmpty(t, agents, "the fresh turn's reply comes after the divider")
	assert.Contains(t, agents[len(agents)-1].Text, "now this")

	// Resume (not fresh) adds no divider.
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/auth:1 again"}))
	f.until(isBanner)
	f.until(isTurnDone) // the failed turn's end, after its banner
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	f.until(isTurnDone)
	n := 0
	for _, m := range h.messages(sid) {
		if m.Metadata["kind"] == kindFreshStart {
			n++
		}
	}
	assert.Equal(t, 1, n)
}
