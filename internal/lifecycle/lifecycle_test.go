package lifecycle

import (
	"context"
	"errors"
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
	check(t, !e.Resumed())
	check(t, len(e.AgentSessionID()) > 0)

	res, err := prompt(t, e, "hello streaming world")
	noErr(t, err)
	equal(t, "end_turn", res.StopReason)
	check(t, res.HadOutput)
	check(t, !res.HadToolActivity)

	// Read right after Prompt returns: every chunk must already be delivered.
	evs := rec.take()
	require(t, len(evs) >= 3)
	for _, ev := range evs {
		equal(t, EventAgentMessage, ev.Kind)
	}
	equal(t, "Echo: hello streaming world", messageText(evs))

	// A second turn on the same execution works and streams only its own chunks.
	_, err = prompt(t, e, "again")
	noErr(t, err)
	equal(t, "Echo: again", messageText(rec.take()))
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
			equal(t, "mock", ev.Agent)
			check(t, ev.HasRPCError)
			equal(t, tc.code, ev.RPCCode)
			for _, s := range tc.contains {
				contains(t, ev.RPCMessage, s)
			}
			contains(t, ev.RPCData, `"details"`)
			equal(t, tc.phase, ev.Phase)
			equal(t, tc.hadOutput, ev.HadOutput)
			check(t, !ev.HadToolActivity)
			check(t, !ev.Cancelled)
			empty(t, ev.Err, "an agent error is not a transport error")
			empty(t, ev.ExitStatus, "the agent is still running")
			contains(t, ev.StderrTail, "scenario failing", "stderr tail is collected")
		})
	}
}

func TestRateLimitAndUsageLimitHints(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{})

	_, err := prompt(t, e, "/rate-limit:1:9")
	ev := mustFail(t, err).Evidence
	contains(t, ev.RPCData, `"retry-after":"9"`)

	_, err = prompt(t, e, "/usage-limit")
	ev = mustFail(t, err).Evidence
	_, epoch, ok := strings.Cut(ev.RPCMessage, "|")
	require(t, ok)
	sec, err := strconv.ParseInt(epoch, 10, 64)
	noErr(t, err)
	reset := time.Unix(sec, 0)
	check(t, reset.After(time.Now()) && reset.Before(time.Now().Add(2*time.Hour)), "reset at %s", reset)
}

func TestToolPermission(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ permission, status, reply string }{
		{"", "completed", "The tool ran"}, // default is allow
		{PermissionReject, "failed", "Permission denied"},
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
			check(t, res.HadToolActivity)
			check(t, res.HadOutput)
			evs := rec.take()
			require(t, len(evs) >= 3)
			equal(t, EventToolCall, evs[0].Kind)
			equal(t, "pending", evs[0].Status)
			equal(t, "read", evs[0].ToolKind)
			check(t, len(evs[0].Title) > 0)
			equal(t, EventToolCallUpdate, evs[1].Kind)
			equal(t, evs[0].ToolCallID, evs[1].ToolCallID)
			equal(t, tc.status, evs[1].Status)
			contains(t, messageText(evs), tc.reply)
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
	equal(t, routingerr.PhaseProcessStart, ev.Phase)
	contains(t, ev.Err, "permission")
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
	equal(t, "cancelled", res.StopReason)
	check(t, res.HadOutput)
	check(t, took < 2*time.Second, "took %v", took)
	check(t, len(rec.take()) > 0)

	// The execution stays usable after a cancelled turn.
	res, err = prompt(t, e, "after cancel")
	noErr(t, err)
	equal(t, "end_turn", res.StopReason)
	equal(t, "Echo: after cancel", messageText(rec.take()))
}

func TestPromptWithCancelledContext(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Prompt(ctx, "never sent")
	ev := mustFail(t, err).Evidence
	check(t, ev.Cancelled)
	equal(t, routingerr.PhasePromptSend, ev.Phase)
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
	check(t, errors.Is(err, ErrTurnInProgress), "%v", err)
	cancel()
	wg.Wait()
	check(t, slowErr == nil, "%v", slowErr)
}

func TestStartWithCancelledContext(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Start(ctx, StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	equal(t, routingerr.PhaseSessionInit, ev.Phase)
	check(t, ev.Cancelled)
	check(t, !ev.HasRPCError)
}

func TestStartTimeoutIsNotACancel(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := m.Start(ctx, StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	equal(t, routingerr.PhaseSessionInit, ev.Phase)
	check(t, !ev.Cancelled)
	contains(t, ev.Err, "deadline")
}

func TestStartRejectsRelativeWorkdir(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	_, err := m.Start(context.Background(), StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: "rel"})
	require(t, err != nil)
	_, isFailure := AsFailure(err)
	check(t, !isFailure)
}

func TestMissingExecutable(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	for _, cmd := range []string{"orchestratord-no-such-agent", "/nonexistent/dir/agent"} {
		_, err := m.Start(context.Background(), StartRequest{
			Profile: Profile{Name: "ghost", Command: cmd}, Workdir: t.TempDir(),
		})
		ev := mustFail(t, err).Evidence
		equal(t, routingerr.PhaseProcessStart, ev.Phase)
		equal(t, `agent executable "`+cmd+`" not found`, ev.Err)
		equal(t, "ghost", ev.Agent)
	}
}

func TestMissingCwdIsAStartFailure(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	prof := mockProfile(t, t.TempDir())
	prof.Cwd = "/nonexistent/cwd"
	_, err := m.Start(context.Background(), StartRequest{Profile: prof, Workdir: t.TempDir()})
	ev := mustFail(t, err).Evidence
	equal(t, routingerr.PhaseProcessStart, ev.Phase)
	contains(t, ev.Err, "/nonexistent/cwd")
}

func TestNewManagerValidates(t *testing.T) {
	t.Parallel()
	_, err := NewManager(Config{KillGrace: -1})
	check(t, err != nil)
	_, err = NewManager(Config{StderrTailBytes: -1})
	check(t, err != nil)
	m, err := NewManager(Config{})
	noErr(t, err)
	equal(t, 3*time.Second, m.cfg.KillGrace)
	equal(t, 16<<10, m.cfg.StderrTailBytes)
	noErr(t, m.Close())
	noErr(t, m.Close())
	_, err = m.Start(context.Background(), StartRequest{Profile: mockProfile(t, t.TempDir()), Workdir: t.TempDir()})
	check(t, errors.Is(err, ErrClosed))
}
