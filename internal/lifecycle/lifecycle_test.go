package lifecycle

import (
	"context"
	"errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

func TestEchoStreamsChunksInOrder(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, rec := startAgent(t, m, agentOpts{})
	assert.True(t, !e.Resumed())
	assert.True(t, len(e.AgentSessionID()) > 0)

	res, err := prompt(t, e, "hello streaming world")
	noErr(t, err)
	assert.Equal(t, "end_turn", res.StopReason)
	assert.True(t, res.HadOutput)
	assert.True(t, !res.HadToolActivity)

	// Read right after Prompt returns: every chunk must already be delivered.
	evs := rec.take()
	require.True(t, len(evs) >= 3)
	for _, ev := range evs {
		assert.Equal(t, EventAgentMessage, ev.Kind)
	}
	assert.Equal(t, "Echo: hello streaming world", messageText(evs))

	// A second turn on the same execution works and streams only its own chunks.
	_, err = prompt(t, e, "again")
	noErr(t, err)
	assert.Equal(t, "Echo: again", messageText(rec.take()))
}

func TestScenarioEvidence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prompt    string
		code      int
		contains  []string
		phase     routingerr.Phase
		hadOutput bool
	}{
		{"/overloaded", -32603, []string{"Internal error: API Error: 529 ", `"overloaded_error"`, `"request_id":"req_`}, routingerr.PhasePromptSend, false},
		{"/conn-closed please", -32603, []string{"Connection closed mid-response"}, routingerr.PhaseStreaming, true},
		{"/rate-limit:1:7", -32603, []string{"API Error: 429", "rate_limit_error", "retry-after: 7"}, routingerr.PhasePromptSend, false},
		{"/usage-limit", -32603, []string{"Claude AI usage limit reached|"}, routingerr.PhasePromptSend, false},
		{"/auth", -32000, []string{"Authentication required"}, routingerr.PhasePromptSend, false},
		{"/too-long", -32603, []string{"prompt is too long: 212345 tokens > 200000 maximum"}, routingerr.PhasePromptSend, false},
	}
	m := newTestManager(t)
	for _, tc := range cases {
		t.Run(strings.Fields(tc.prompt)[0][1:], func(t *testing.T) {
			t.Parallel()
			e, _ := startAgent(t, m, agentOpts{})
			_, err := prompt(t, e, tc.prompt)
			ev := mustFail(t, err).Evidence
			assert.Equal(t, "mock", ev.Agent)
			assert.True(t, ev.HasRPCError)
			assert.Equal(t, tc.code, ev.RPCCode)
			for _, s := range tc.contains {
				assert.Contains(t, ev.RPCMessage, s)
			}
			assert.Contains(t, ev.RPCData, `"details"`)
			assert.Equal(t, tc.phase, ev.Phase)
			assert.Equal(t, tc.hadOutput, ev.HadOutput)
			if tc.hadOutput {
				assert.Equal(t, "Echo: "+tc.prompt[:len("/conn-closed ")], ev.OutputText, "the streamed text is evidence")
			} else {
				assert.Empty(t, ev.OutputText)
			}
			assert.True(t, !ev.HadToolActivity)
			assert.True(t, !ev.Cancelled)
			assert.Empty(t, ev.Err, "an agent error is not a transport error")
			assert.Empty(t, ev.ExitStatus, "the agent is still running")
			settled := mustFail(t, err).Settle(5*time.Second, false)
			assert.Contains(t, settled.StderrTail, "scenario failing", "stderr tail is collected")
			assert.Equal(t, ev.RPCMessage, settled.RPCMessage, "settling keeps the rest of the evidence")
		})
	}
}

func TestRateLimitAndUsageLimitHints(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{})

	_, err := prompt(t, e, "/rate-limit:1:9")
	ev := mustFail(t, err).Evidence
	assert.Contains(t, ev.RPCData, `"retry-after":"9"`)

	_, err = prompt(t, e, "/usage-limit")
	ev = mustFail(t, err).Evidence
	_, epoch, ok := strings.Cut(ev.RPCMessage, "|")
	require.True(t, ok)
	sec, err := strconv.ParseInt(epoch, 10, 64)
	noErr(t, err)
	reset := time.Unix(sec, 0)
	assert.True(t, reset.After(time.Now()) && reset.Before(time.Now().Add(2*time.Hour)), "reset at %s", reset)
}

func TestToolPermission(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ permission, status, reply, answer, option string }{
		{"", "completed", "The tool ran", "allowed", "Allow"}, // default is allow
		{PermissionReject, "failed", "Permission denied", "rejected", "Reject"},
	} {
		t.Run("permission="+tc.permission, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t)
			rec := &recorder{}
			prof := mockProfile(t, t.TempDir())
			prof.Permission = tc.permission
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			e, err := m.Start(ctx, StartRequest{Profile: prof, Workdir: t.TempDir(), OnEvent: rec.on})
			noErr(t, err)
			defer e.Close()

			res, err := e.Prompt(ctx, "/tool")
			noErr(t, err)
			assert.True(t, res.HadToolActivity)
			assert.True(t, res.HadOutput)
			evs := rec.take()
			require.True(t, len(evs) >= 4)
			// The permission answer comes from the SDK's request goroutine and
			// may overtake the queued tool_call notification; the rest keep order.
			var answer *Event
			var tools []Event
			for i := range evs {
				switch {
				case evs[i].Permission != "":
					answer = &evs[i]
				case evs[i].Kind == EventToolCall || evs[i].Kind == EventToolCallUpdate:
					tools = append(tools, evs[i])
				}
			}
			require.NotNil(t, answer, "no permission answer among %v", evs)
			require.Len(t, tools, 2)
			assert.Equal(t, EventToolCall, tools[0].Kind)
			assert.Equal(t, "pending", tools[0].Status)
			assert.Equal(t, "read", tools[0].ToolKind)
			assert.True(t, len(tools[0].Title) > 0)
			assert.Contains(t, tools[0].Input, `"path": "."`)
			// The permission request's answer, for the tool's card.
			assert.Equal(t, EventToolCallUpdate, answer.Kind)
			assert.Equal(t, tools[0].ToolCallID, answer.ToolCallID)
			assert.Equal(t, tools[0].Title, answer.Title)
			assert.Equal(t, tc.answer, answer.Permission)
			assert.Equal(t, tc.option, answer.PermissionOption)
			assert.Equal(t, EventToolCallUpdate, tools[1].Kind)
			assert.Equal(t, tools[0].ToolCallID, tools[1].ToolCallID)
			assert.Equal(t, tc.status, tools[1].Status)
			if tc.status == "completed" {
				assert.Contains(t, tools[1].Output, "README.md")
			}
			assert.Contains(t, messageText(evs), tc.reply)
		})
	}
}

func TestInvalidPermissionIsAStartFailure(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	prof := mockProfile(t, t.TempDir())
	prof.Permission = "ask"
	_, err := m.Start(context.Background(), StartRequest{Profile: prof, Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	assert.Equal(t, routingerr.PhaseProcessStart, ev.Phase)
	assert.Contains(t, ev.Err, "permission")
}

func TestSlowCancelReturnsQuickly(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	first := make(chan struct{})
	var once sync.Once
	e, rec := startAgent(t, m, agentOpts{onEvent: func(Event) { once.Do(func() { close(first) }) }})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-first
		cancel()
	}()
	begin := time.Now()
	res, err := e.Prompt(ctx, "/slow:20000")
	took := time.Since(begin)
	noErr(t, err) // "an agent that answers session/cancel yields a result, not a failure"
	assert.Equal(t, "cancelled", res.StopReason)
	assert.True(t, res.HadOutput)
	assert.True(t, took < 10*time.Second, "took %v; the slow reply lasts 20s", took)
	assert.True(t, len(rec.take()) > 0)

	// The execution stays usable after a cancelled turn.
	res, err = prompt(t, e, "after cancel")
	noErr(t, err)
	assert.Equal(t, "end_turn", res.StopReason)
	assert.Equal(t, "Echo: after cancel", messageText(rec.take()))
}

func TestPromptWithCancelledContext(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Prompt(ctx, "never sent")
	ev := mustFail(t, err).Evidence
	assert.True(t, ev.Cancelled)
	assert.Equal(t, routingerr.PhasePromptSend, ev.Phase)
}

func TestConcurrentPromptIsRejected(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	started := make(chan struct{})
	var once sync.Once
	e, _ := startAgent(t, m, agentOpts{onEvent: func(Event) { once.Do(func() { close(started) }) }})

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var slowErr error
	wg.Go(func() { _, slowErr = e.Prompt(ctx, "/slow:20000") })
	<-started
	_, err := prompt(t, e, "second")
	assert.True(t, errors.Is(err, ErrTurnInProgress), "%v", err)
	cancel()
	wg.Wait()
	assert.True(t, slowErr == nil, "%v", slowErr)
}

func TestStartWithCancelledContext(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Start(ctx, StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	assert.Equal(t, routingerr.PhaseSessionInit, ev.Phase)
	assert.True(t, ev.Cancelled)
	assert.True(t, !ev.HasRPCError)
}

func TestStartTimeoutIsNotACancel(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := m.Start(ctx, StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	assert.Equal(t, routingerr.PhaseSessionInit, ev.Phase)
	assert.True(t, !ev.Cancelled)
	assert.Contains(t, ev.Err, "deadline")
}

func TestStartRejectsRelativeWorkdir(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	_, err := m.Start(context.Background(), StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: "rel"})
	require.True(t, err != nil)
	_, isFailure := AsFailure(err)
	assert.True(t, !isFailure)
}

func TestMissingExecutable(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	for _, cmd := range []string{"orchestratord-no-such-agent", "/nonexistent/dir/agent"} {
		_, err := m.Start(context.Background(), StartRequest{
			Profile: Profile{Name: "ghost", Command: cmd}, Workdir: t.TempDir(),
		})
		ev := mustFail(t, err).Evidence
		assert.Equal(t, routingerr.PhaseProcessStart, ev.Phase)
		assert.Equal(t, `agent executable "`+cmd+`" not found`, ev.Err)
		assert.Equal(t, "ghost", ev.Agent)
	}
}

func TestMissingCwdIsAStartFailure(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	prof := mockProfile(t, t.TempDir())
	prof.Cwd = "/nonexistent/cwd"
	_, err := m.Start(context.Background(), StartRequest{Profile: prof, Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	assert.Equal(t, routingerr.PhaseProcessStart, ev.Phase)
	assert.Contains(t, ev.Err, "/nonexistent/cwd")
}

func TestNewManagerValidates(t *testing.T) {
	t.Parallel()
	_, err := NewManager(Config{KillGrace: -1})
	assert.True(t, err != nil)
	_, err = NewManager(Config{StderrTailBytes: -1})
	assert.True(t, err != nil)
	m, err := NewManager(Config{})
	noErr(t, err)
	assert.Equal(t, 3*time.Second, m.cfg.KillGrace)
	assert.Equal(t, 16<<10, m.cfg.StderrTailBytes)
	noErr(t, m.Close())
	noErr(t, m.Close())
	_, err = m.Start(context.Background(), StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: t.TempDir()})
	assert.True(t, errors.Is(err, ErrClosed))
}
