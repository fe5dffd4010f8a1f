package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// usageWait is the config of a daemon whose tasks wait by default.
func usageWaits(c *Config) {
	c.Usage = UsageConfig{Default: store.UsageLimitWait, Margin: 30 * time.Second}
}

// realNow moves the mock clock to the wall clock: the mock agent's
// /usage-limit:N:SECS reset is SECS after the agent's real now.
func realNow(h *harness) {
	h.clock.Set(time.Now().Truncate(time.Second)).MustWait(h.ctx)
}

func usageMeta(t *testing.T, n note) (retryAt, reset time.Time) {
	t.Helper()
	meta := n.Message.Metadata
	retryAt, err := time.Parse(time.RFC3339Nano, meta["retry_at"].(string))
	require.NoError(t, err)
	u, ok := meta["usage"].(map[string]any)
	require.True(t, ok, "usage metadata: %v", meta)
	if s, ok := u["reset_at"].(string); ok {
		reset, err = time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err)
	}
	return retryAt, reset
}

// A usage window with a known reset parks the session like a retry: one
// notice saying when it continues, Cancel and Retry now, a durable row;
// the timer fires exactly at the reset plus the margin (not a millisecond
// before), and the prompt is re-driven to success.
func TestUsageWaitResumesExactlyAtResetPlusMargin(t *testing.T) {
	h := newHarness(t, usageWaits)
	realNow(h)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/usage-limit:1:7200 nightly refactor", nil)
	sid := v.Sessions[0].ID
	call := trap.MustWait(h.ctx)
	n := f.until(isNotice)
	retryAt, reset := usageMeta(t, n)
	require.False(t, reset.IsZero())
	assert.Equal(t, reset.Add(30*time.Second), retryAt, "retry_at is the reset plus the margin")
	assert.Equal(t, retryAt.Sub(h.clock.Now()), call.Duration, "the timer counts to retry_at")
	assert.Equal(t, true, n.Message.Metadata["retrying"])
	assert.Equal(t, "warning", n.Message.Variant)
	assert.Regexp(t, `^Usage limit reached — continuing at (\w{3} )?\d{1,2}:\d\d (AM|PM) \(in 2h 1m\)$`, n.Message.Text)
	var actions []string
	for _, a := range n.Message.Actions {
		actions = append(actions, a.Payload["action"].(string))
	}
	assert.Equal(t, []string{RecoverCancelRetry, RecoverRetryNow}, actions)
	row, ok := h.pending(sid)
	require.True(t, ok, "the wait is durable")
	assert.Equal(t, retryAt, row.RetryAt.UTC())
	f.until(isState(store.SessionWaitingForInput))
	task, err := h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, store.TaskInProgress, task.State, "no REVIEW while it waits")

	call.MustRelease(h.ctx)
	h.clock.Advance(call.Duration - time.Millisecond).MustWait(h.ctx)
	_, still := h.pending(sid)
	require.True(t, still, "nothing fires before retry_at")
	h.clock.Advance(time.Millisecond).MustWait(h.ctx)
	done := f.until(func(n note) bool { return isTurnDone(n) && n.StopReason != "retry_scheduled" })
	assert.Equal(t, "end_turn", done.StopReason)
	msgs := h.messages(sid)
	assert.Empty(t, byRole(msgs, "status"), "the notice is gone once it continued")
	agent := byRole(msgs, "agent")
	require.NotEmpty(t, agent)
	assert.Contains(t, agent[len(agent)-1].Text, "Recovered after 1 failures")
	_, still = h.pending(sid)
	assert.False(t, still)
}

// A daemon restarted during the wait re-arms it at the same moment.
func TestUsageWaitSurvivesARestartAtTheSameMoment(t *testing.T) {
	h := newHarness(t, usageWaits)
	realNow(h)
	v, f := h.create("/usage-limit:1:600 overnight", nil)
	sid := v.Sessions[0].ID
	retryAt, _ := usageMeta(t, f.until(isNotice))
	f.until(isState(store.SessionWaitingForInput))
	h.clock.Advance(4 * time.Minute).MustWait(h.ctx)
	h.stop()

	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	h.start(usageWaits)
	started := make(chan error, 1)
	go func() { started <- h.svc.Start(h.ctx) }()
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	require.NoError(t, <-started)
	assert.Equal(t, retryAt.Sub(h.clock.Now()), call.Duration, "re-armed for the original retry_at")
	f2 := h.follow(sid, 0)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f2.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)
	assert.Empty(t, byRole(h.messages(sid), "status"))
}

// A task that asks (the default) shows the banner with the reset time, as before.
func TestUsageLimitAskShowsTheBanner(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("/usage-limit later", nil)
	b := f.until(isBanner)
	assert.Contains(t, b.Message.Text, "It resets at")
	_, parked := h.pending(v.Sessions[0].ID)
	assert.False(t, parked)
}

// windowAgents is an in-process agent on one usage window: every prompt
// before reset fails with the window's error; from reset on it answers.
// Calls are recorded on the mock clock.
type windowAgents struct {
	clock *quartz.Mock
	mu    sync.Mutex
	reset time.Time
	err   func(reset time.Time) routingerr.Evidence // default: Claude's usage limit with the reset
	hang  bool                                      // answer nothing until cancelled
	calls []windowCall
}

type windowCall struct {
	session string
	at      time.Time
	ok      bool
}

func (a *windowAgents) Start(_ context.Context, req lifecycle.StartRequest) (Execution, error) {
	return &windowExec{a: a, sid: req.Env["ORCHESTRATORD_SESSION_ID"]}, nil
}

func (a *windowAgents) setReset(t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reset = t
}

func (a *windowAgents) log() []windowCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

type windowExec struct {
	a   *windowAgents
	sid string
}

func (e *windowExec) AgentSessionID() string        { return "acp-" + e.sid }
func (e *windowExec) Resumed() bool                 { return false }
func (e *windowExec) ReplayedUserPrompts() []string { return nil }
func (e *windowExec) Close() error                  { return nil }

func (e *windowExec) Prompt(ctx context.Context, _ string) (lifecycle.PromptResult, error) {
	a := e.a
	a.mu.Lock()
	now := a.clock.Now()
	ok := !now.Before(a.reset)
	reset, mk, hang := a.reset, a.err, a.hang
	a.calls = append(a.calls, windowCall{session: e.sid, at: now, ok: ok && !hang})
	a.mu.Unlock()
	if hang {
		<-ctx.Done()
		return lifecycle.PromptResult{StopReason: "cancelled"}, nil
	}
	if ok {
		return lifecycle.PromptResult{StopReason: "end_turn"}, nil
	}
	ev := routingerr.Evidence{HasRPCError: true, RPCCode: -32603, Phase: routingerr.PhasePromptSend,
		RPCMessage: fmt.Sprintf("Internal error: Claude AI usage limit reached|%d", reset.Unix())}
	if mk != nil {
		ev = mk(reset)
	}
	return lifecycle.PromptResult{}, &lifecycle.FailureError{Evidence: ev}
}

// windowHarness runs the service on windowAgents.
func windowHarness(t *testing.T, reset time.Duration, opts ...harnessOpt) (*harness, *windowAgents) {
	t.Helper()
	h := newHarness(t)
	h.stop()
	a := &windowAgents{clock: h.clock, reset: h.clock.Now().Truncate(time.Second).Add(reset)}
	h.start(append([]harnessOpt{usageWaits, func(c *Config) { c.Agents = a }}, opts...)...)
	return h, a
}

// Fifty sessions on one account's window: when it is due, one goes first;
// the others wait for its verdict and follow only once it worked, spread
// over the release window — never all in the same instant.
func TestUsageWindowFiftySessionsOneFirstThenSpread(t *testing.T) {
	const n = 50
	h, a := windowHarness(t, 10*time.Minute)
	var sids []string
	for i := range n {
		v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: fmt.Sprintf("job %d", i), Agent: "mock"})
		require.NoError(t, err)
		sids = append(sids, v.Sessions[0].ID)
	}
	require.Eventually(t, func() bool {
		rows, err := h.db.ListPendingRetries(h.ctx)
		return err == nil && len(rows) == n
	}, waitLong, 10*time.Millisecond, "every session parks on the window")
	rows, err := h.db.ListPendingRetries(h.ctx)
	require.NoError(t, err)
	due := rows[0].RetryAt
	for _, r := range rows {
		require.Equal(t, due, r.RetryAt, "one window, one reset")
		require.Equal(t, "mock", r.Extra[extraUsage])
	}
	require.Equal(t, a.reset.Add(30*time.Second), due.UTC())

	release := h.trapAfterFunc("usage-release")
	first := len(a.log())
	fired := h.clock.Advance(due.Sub(h.clock.Now()))
	// The first one's success releases the others: 49 release timers.
	var offsets []time.Duration
	for range n - 1 {
		call := release.MustWait(h.ctx)
		offsets = append(offsets, call.Duration)
		call.MustRelease(h.ctx)
	}
	release.Close()
	fired.MustWait(h.ctx)
	calls := a.log()[first:]
	// A release due at once (offset 0) may already have run: retries due
	// together are drained by one callback (retrydue.go), which takes the
	// releases queued meanwhile too. It came after the first one's success.
	atOnce := 0
	for _, o := range offsets {
		if o <= 0 {
			atOnce++
		}
	}
	require.NotEmpty(t, calls)
	require.LessOrEqual(t, len(calls), 1+atOnce, "only one session tried the window before it was known to work")
	assert.True(t, calls[0].ok)
	assert.Equal(t, due, calls[0].at.UTC())
	window := DefaultUsageRelease
	assert.True(t, slices.IsSorted(offsets), "released in order: %v", offsets)
	assert.GreaterOrEqual(t, offsets[len(offsets)-1]-offsets[0], window/4, "spread over the release window")
	assert.Less(t, offsets[len(offsets)-1], window)
	sameInstant := 0
	for _, o := range offsets {
		if o < 100*time.Millisecond {
			sameInstant++
		}
	}
	assert.LessOrEqual(t, sameInstant, 2, "not all in the same instant")

	for h.clock.Now().Before(due.Add(offsets[len(offsets)-1])) {
		_, w := h.clock.AdvanceNext()
		w.MustWait(h.ctx)
	}
	require.Eventually(t, func() bool { return len(a.log()) == first+n }, waitLong, 10*time.Millisecond)
	for _, c := range a.log()[first:] {
		assert.True(t, c.ok)
	}
	require.Eventually(t, func() bool {
		rows, err := h.db.ListPendingRetries(h.ctx)
		return err == nil && len(rows) == 0
	}, waitLong, 10*time.Millisecond, "every session continued")
	require.Eventually(t, func() bool {
		for _, sid := range sids {
			if len(byRole(h.messages(sid), "status")) > 0 {
				return false
			}
		}
		return true
	}, waitLong, 10*time.Millisecond, "no notice left")
}

// When the first session finds the window still closed (the reset moved),
// the ones waiting for it follow the window's new time instead of trying.
func TestUsageWindowFollowersFollowANewReset(t *testing.T) {
	h, a := windowHarness(t, 10*time.Minute)
	for i := range 3 {
		_, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: fmt.Sprintf("job %d", i), Agent: "mock"})
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { rows, _ := h.db.ListPendingRetries(h.ctx); return len(rows) == 3 }, waitLong, 10*time.Millisecond)
	rows, _ := h.db.ListPendingRetries(h.ctx)
	due := rows[0].RetryAt
	later := a.reset.Add(time.Hour)
	a.setReset(later) // the provider now says an hour later
	first := len(a.log())
	h.clock.Advance(due.Sub(h.clock.Now())).MustWait(h.ctx)
	require.Eventually(t, func() bool {
		rows, _ := h.db.ListPendingRetries(h.ctx)
		if len(rows) != 3 {
			return false
		}
		for _, r := range rows {
			if !r.RetryAt.UTC().Equal(later.Add(30 * time.Second)) {
				return false
			}
		}
		return true
	}, waitLong, 10*time.Millisecond, "all three wait for the new reset")
	assert.Len(t, a.log()[first:], 1, "only the first one tried")
}

// Retry now sends a waiting session at once, hours before its reset; its
// success ends the wait.
func TestUsageRetryNowSendsAtOnce(t *testing.T) {
	h, a := windowHarness(t, 2*time.Hour)
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock"})
	require.NoError(t, err)
	sid := v.Sessions[0].ID
	f := h.follow(sid, 0)
	n := f.until(isNotice)
	assert.Contains(t, n.Message.Text, "(in 2h 1m)")
	f.until(isState(store.SessionWaitingForInput))
	a.setReset(h.clock.Now()) // the limit lifted early
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverRetryNow}))
	assert.Equal(t, "end_turn", f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)
	calls := a.log()
	require.Len(t, calls, 2)
	assert.Equal(t, calls[0].at, calls[1].at, "sent at once, no time passed")
	_, parked := h.pending(sid)
	assert.False(t, parked)
	err = h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverRetryNow})
	assert.ErrorIs(t, err, ErrConflict, "nothing waits any more")
}

// Retry now on a plain retry notice sends it before its backoff is up.
func TestRetryNowOnAScheduledRetry(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 go", nil)
	sid := v.Sessions[0].ID
	trap.MustWait(h.ctx).MustRelease(h.ctx)
	f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverRetryNow}))
	assert.Equal(t, "end_turn", f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)
	assert.Empty(t, byRole(h.messages(sid), "status"))
}

// Retry now on a session waiting on an open overload gate makes it the probe.
func TestRetryNowThroughAnOpenGateIsTheProbe(t *testing.T) {
	h, a := windowHarness(t, time.Hour, func(c *Config) { c.Overload.Threshold = 1 })
	a.err = func(time.Time) routingerr.Evidence {
		return routingerr.Evidence{HasRPCError: true, RPCCode: -32603, Phase: routingerr.PhasePromptSend,
			RPCMessage: `Internal error: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	}
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock"})
	require.NoError(t, err)
	sid := v.Sessions[0].ID
	f := h.follow(sid, 0)
	n := f.until(isNotice)
	require.NotNil(t, n.Message.Metadata["gate"], "waits on the gate: %q", n.Message.Text)
	f.until(isState(store.SessionWaitingForInput))
	a.setReset(h.clock.Now())
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverRetryNow}))
	assert.Equal(t, "end_turn", f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)
	gl := h.svc.Gates()
	require.Len(t, gl.Gates, 1)
	assert.EqualValues(t, "closed", gl.Gates[0].State, "the probe's answer closed the gate")
	assert.Len(t, a.log(), 2)
}

// With no known reset the window is tried again every 15 minutes, and the
// notice says so.
func TestUsageUnknownResetProbesEveryFifteenMinutes(t *testing.T) {
	h, a := windowHarness(t, time.Hour)
	a.err = func(time.Time) routingerr.Evidence {
		return routingerr.Evidence{HasRPCError: true, RPCCode: -32603, Phase: routingerr.PhasePromptSend,
			RPCMessage: "Internal error: You have exhausted your daily quota on this model."}
	}
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock"})
	require.NoError(t, err)
	var f *feed
	for i := range 4 {
		call := trap.MustWait(h.ctx)
		call.MustRelease(h.ctx)
		if f == nil {
			// Not before: the trapped timer is armed under the session's
			// lock, which a subscription takes (the feed replays from 0).
			f = h.follow(v.Sessions[0].ID, 0)
		}
		require.Equal(t, MinUsageProbe, call.Duration, "probe %d", i)
		n := f.until(isNotice)
		assert.Contains(t, n.Message.Text, "Usage limit reached — reset time unknown; checking again at")
		assert.Contains(t, n.Message.Text, "(in 15m)")
		h.clock.Advance(call.Duration).MustWait(h.ctx)
		if i == 3 {
			break
		}
	}
	// The fourth probe (an hour in) finds the window open.
	assert.Equal(t, "end_turn", f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)
	assert.Len(t, a.log(), 5)
}

// A reset later than the task may wait ends in the banner, saying so.
func TestUsageResetPastTheTaskDeadlineShowsTheBanner(t *testing.T) {
	h, _ := windowHarness(t, 3*time.Hour)
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock", GateDeadline: 2 * time.Hour})
	require.NoError(t, err)
	f := h.follow(v.Sessions[0].ID, 0)
	b := f.until(isBanner)
	assert.Equal(t, kindUsageDeadline, b.Message.Metadata["reason"])
	assert.Contains(t, b.Message.Text, "later than this task may wait (2 hours)")
}

// A 429 asking for 10 minutes is waited out when the task allows it, with
// the same kind of notice; a task that asks gets the banner saying when it
// could have retried.
func TestLongRateLimitHintWaitsOrSaysWhen(t *testing.T) {
	long := func(time.Time) routingerr.Evidence {
		return routingerr.Evidence{HasRPCError: true, RPCCode: -32603, Phase: routingerr.PhasePromptSend,
			RPCMessage: `Internal error: API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}} retry-after: 600`}
	}
	h, a := windowHarness(t, 10*time.Minute)
	a.err = long
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	start := h.clock.Now()
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock"})
	require.NoError(t, err)
	f := h.follow(v.Sessions[0].ID, 0)
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	assert.Equal(t, 10*time.Minute, call.Duration)
	n := f.until(isNotice)
	assert.True(t, strings.HasPrefix(n.Message.Text, "Rate limited by the provider — continuing at"), n.Message.Text)
	retryAt, _ := usageMeta(t, n)
	assert.Equal(t, start.Add(10*time.Minute).UTC(), retryAt)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)

	h2, a2 := windowHarness(t, 10*time.Minute, func(c *Config) { c.Usage.Default = store.UsageLimitAsk })
	a2.err = long
	v2, err := h2.svc.CreateTask(h2.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock"})
	require.NoError(t, err)
	b := h2.follow(v2.Sessions[0].ID, 0).until(isBanner)
	assert.Contains(t, b.Message.Text, "It asked to wait until")
	assert.NotEmpty(t, b.Message.Metadata["could_retry_at"])
}

// A turn that hangs on every attempt is cancelled at the silence limit each
// time, retried within its budget, then ends in a banner that says so.
func TestRepeatedHangsEndInABannerSayingSo(t *testing.T) {
	h, a := windowHarness(t, 0, func(c *Config) { c.SilenceNotice, c.SilenceLimit = -1, 5*time.Minute })
	a.hang = true
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock"})
	require.NoError(t, err)
	f := h.follow(v.Sessions[0].ID, 0)
	advance := func(want time.Duration, what string) {
		t.Helper()
		d, w := h.clock.AdvanceNext()
		w.MustWait(h.ctx)
		require.Equal(t, want, d, what)
	}
	for i := range 3 {
		require.Eventually(t, func() bool { return len(a.log()) == i+1 }, waitLong, 5*time.Millisecond)
		advance(5*time.Minute, "cancelled as hung exactly at the silence limit")
		if i == 0 {
			f.until(isNotice) // the network schedule: at once…
		}
		if i == 1 {
			f.until(isNotice)
			require.Eventually(t, func() bool { _, ok := h.clock.Peek(); return ok }, waitLong, 5*time.Millisecond)
			advance(5*time.Second, "…then after 5s")
		}
	}
	b := f.until(isBanner)
	assert.Equal(t, "The agent stopped responding 3 times in a row (no update within its silence limit), so it was not retried again.", b.Message.Text)
	assert.Len(t, a.log(), 3)
}

func TestOnUsageLimitIsValidated(t *testing.T) {
	h, _ := windowHarness(t, 0)
	_, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock", OnUsageLimit: "sometimes"})
	assert.ErrorIs(t, err, ErrValidation)
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "job", Agent: "mock", OnUsageLimit: store.UsageLimitAsk})
	require.NoError(t, err)
	assert.Equal(t, store.UsageLimitAsk, v.OnUsageLimit)
	require.Error(t, UsageConfig{ProbeEvery: time.Minute}.Validate(), "never more often than every 15 minutes")
}
