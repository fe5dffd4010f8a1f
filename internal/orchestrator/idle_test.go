package orchestrator

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

type pider interface{ PID() int }

func (h *harness) agentPID(sid string) int {
	h.t.Helper()
	rt := h.svc.loaded(sid)
	require.NotNil(h.t, rt)
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.exec == nil {
		return 0
	}
	return rt.exec.(pider).PID()
}

// An agent idle for IdleTimeout is stopped; the next prompt starts a new
// process that resumes the same agent session, history intact.
func TestIdleAgentIsStoppedAndTheNextPromptResumes(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.IdleTimeout = 10 * time.Minute })
	v, f := h.create("hello there", nil)
	sid := v.Sessions[0].ID
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	pid := h.agentPID(sid)
	require.NotZero(t, pid, "the agent is kept between turns")

	h.clock.Advance(10*time.Minute - time.Second).MustWait(h.ctx)
	assert.Equal(t, pid, h.agentPID(sid), "not idle long enough yet")
	h.clock.Advance(time.Second).MustWait(h.ctx)
	assert.Zero(t, h.agentPID(sid), "stopped after 10 minutes idle")
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the process is gone")

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "and again"}))
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	assert.NotEqual(t, pid, h.agentPID(sid), "a new process")
	assert.Equal(t, []string{"hello there", "and again"}, h.agentPrompts(sid), "the same agent session, resumed")
}

// A turn in progress keeps its agent whatever the clock says.
func TestIdleTimerDoesNotStopARunningTurn(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.IdleTimeout = time.Minute })
	v, f := h.create("first", nil)
	sid := v.Sessions[0].ID
	f.until(isTurnDone)
	pid := h.agentPID(sid)
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/slow:1500 second"}))
	f.until(isState(store.SessionRunning))
	h.clock.Advance(time.Minute).MustWait(h.ctx)
	assert.Equal(t, pid, h.agentPID(sid))
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
}

// An agent that cannot load its session again keeps its process: stopping
// it would make it forget the conversation.
func TestIdleAgentThatCannotResumeIsKept(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.IdleTimeout = time.Minute })
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "hello", Agent: "mock-no-load"})
	require.NoError(t, err)
	sid := v.Sessions[0].ID
	h.follow(sid, 0).until(isTurnDone)
	pid := h.agentPID(sid)
	require.NotZero(t, pid)
	h.clock.Advance(time.Hour).MustWait(h.ctx)
	assert.Equal(t, pid, h.agentPID(sid))
}
