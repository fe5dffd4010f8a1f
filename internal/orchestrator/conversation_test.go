package orchestrator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A provider error leaves the agent process healthy. An agent that cannot
// load its session in a new process keeps that process for the retry, so
// the retry still knows the conversation.
func TestRetryKeepsTheProcessOfAnAgentThatCannotResume(t *testing.T) {
	h := newHarness(t)
	trap := h.clock.Trap().AfterFunc("retry")
	defer trap.Close()
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "remember the word apricot", Agent: "mock-no-load"})
	require.NoError(t, err)
	sid := v.Sessions[0].ID
	f := h.follow(sid, 0)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	pid := h.agentPID(sid)
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(t, err)

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/overloaded:1 which word?"}))
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	assert.Equal(t, pid, h.agentPID(sid), "the failed turn's process is kept for the retry")
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)

	assert.Equal(t, pid, h.agentPID(sid), "the retry ran in the same process")
	after, err := h.db.GetSession(h.ctx, sid)
	require.NoError(t, err)
	assert.Equal(t, sess.AgentSessionID, after.AgentSessionID, "the same agent session")
	prompts := h.agentPrompts(sid)
	require.NotEmpty(t, prompts)
	assert.Equal(t, "remember the word apricot", prompts[0], "the agent still holds the first turn")
	assert.Equal(t, "/overloaded:1 which word?", prompts[len(prompts)-1], "the retry re-sent the prompt")
}
