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
	trap := h.trapAfterFunc("retry")
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

// An agent whose session/load fails in a new process (Gemini CLI) does not
// silently forget: the daemon re-sends the conversation it holds, says so
// in the chat, and from then on keeps that profile's processes.
func TestFailedSessionLoadResendsTheConversation(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.IdleTimeout = time.Minute })
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "remember the word apricot", Agent: "mock-broken-load"})
	require.NoError(t, err)
	sid := v.Sessions[0].ID
	f := h.follow(sid, 0)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	require.NotZero(t, h.agentPID(sid)) // the turn has ended and armed the idle timer
	h.clock.Advance(time.Minute).MustWait(h.ctx)
	require.Zero(t, h.agentPID(sid), "stopped while idle: it advertises session/load")

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "which word?"}))
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)

	var note []string
	for _, m := range byRole(h.messages(sid), "status") {
		if m.Metadata["kind"] == kindTranscriptResent {
			note = append(note, m.Text)
		}
	}
	require.Len(t, note, 1, "the chat says the conversation was re-sent")
	assert.Contains(t, note[0], "No previous sessions found for this project.")
	assert.Contains(t, note[0], "(2 messages)")
	prompts := h.agentPrompts(sid)
	require.Len(t, prompts, 1, "a new agent session")
	assert.Contains(t, prompts[0], "User: remember the word apricot")
	assert.Contains(t, prompts[0], "Assistant: Echo: remember the word apricot")
	assert.True(t, len(prompts[0]) > len("which word?") && prompts[0][len(prompts[0])-len("which word?"):] == "which word?",
		"the prompt comes last")
	users := byRole(h.messages(sid), "user")
	require.Len(t, users, 2, "the chat shows the user's prompts, not the transcript")
	assert.Equal(t, "which word?", users[1].Text)

	pid := h.agentPID(sid)
	h.clock.Advance(time.Hour).MustWait(h.ctx)
	assert.Equal(t, pid, h.agentPID(sid), "a profile known not to resume keeps its process")
}

// The partial replies of failed attempts stay, marked as interrupted; the
// one reply that finished is not.
func TestFailedAttemptsPartialTextIsMarkedInterrupted(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/conn-closed:2 write the docs", nil)
	sid := v.Sessions[0].ID
	trap.MustWait(h.ctx).MustRelease(h.ctx) // attempt 1 failed; retry at once
	f.until(isNotice)
	expectRetry(t, h, trap, f, 5*time.Second, "Connection lost — retrying in 5s (attempt 2/2)")
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)

	agent := byRole(h.messages(sid), "agent")
	require.Len(t, agent, 3, "two partial replies and the one that finished")
	for _, m := range agent[:2] {
		assert.Equal(t, true, m.Metadata["interrupted"], "partial reply %q", m.Text)
	}
	assert.Nil(t, agent[2].Metadata["interrupted"], "the finished reply")
	assert.Contains(t, agent[2].Text, "Recovered after 2 failures")
}
