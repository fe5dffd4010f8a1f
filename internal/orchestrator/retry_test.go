package orchestrator

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// expectRetry waits for the retry timer to be armed, checks its exact delay,
// and returns the notice that announces it.
func expectRetry(t *testing.T, h *harness, trap *quartz.Trap, f *feed, delay time.Duration, text string) note {
	t.Helper()
	call := trap.MustWait(h.ctx)
	armedAt := h.clock.Now()
	call.MustRelease(h.ctx)
	require.Equal(t, delay, call.Duration, "retry delay")
	n := f.until(isNotice)
	require.Equal(t, text, n.Message.Text)
	require.Equal(t, "warning", n.Message.Variant)
	require.Equal(t, armedAt.Add(delay).UTC().Format(time.RFC3339Nano), n.Message.Metadata["retry_at"])
	f.until(isState(store.SessionWaitingForInput))
	return n
}

// parkFirst creates a task whose first turn fails with a 529 and returns once
// its first retry is parked on the 5s timer.
func parkFirst(t *testing.T, prompt string) (*harness, TaskView, *feed) {
	t.Helper()
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	t.Cleanup(trap.Close)
	v, f := h.create(prompt, nil)
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	return h, v, f
}

func TestOverloadedFirstTurnRecoversOnThirdAttemptWithOneNotice(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:2 fix the login bug", nil)
	sid := v.Sessions[0].ID

	n1 := expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	meta := n1.Message.Metadata
	assert.Equal(t, true, meta["retrying"])
	assert.EqualValues(t, 1, meta["attempt"])
	assert.EqualValues(t, 3, meta["max_attempts"])
	assert.Equal(t, "overloaded", meta["failure_code"])
	assert.NotEmpty(t, meta["rule_id"])
	require.Len(t, n1.Message.Actions, 2, "Cancel and Retry now")
	assert.Equal(t, "session.recover", n1.Message.Actions[0].Action)
	assert.Equal(t, RecoverCancelRetry, n1.Message.Actions[0].Payload["action"])
	assert.Equal(t, RecoverRetryNow, n1.Message.Actions[1].Payload["action"])
	task, err := h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, store.TaskInProgress, task.State, "a parked retry keeps the task in progress")
	row, ok := h.pending(sid)
	require.True(t, ok, "the pending retry is durable")
	assert.Equal(t, "/overloaded:2 fix the login bug", row.Prompt)

	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	n2 := expectRetry(t, h, trap, f, 15*time.Second, "Provider overloaded — retrying in 15s (attempt 2/3)")
	assert.Equal(t, n1.Message.ID, n2.Message.ID, "the same notice is updated, not duplicated")

	h.clock.Advance(15 * time.Second).MustWait(h.ctx)
	done := f.until(isTurnDone)
	assert.Equal(t, "end_turn", done.StopReason)
	f.until(isState(store.SessionWaitingForInput))

	msgs := h.messages(sid)
	assert.Len(t, byRole(msgs, "user"), 1, "the prompt appears once")
	assert.Empty(t, byRole(msgs, "status"), "the notice is removed on recovery")
	require.NotEmpty(t, byRole(msgs, "agent"))
	_, ok = h.pending(sid)
	assert.False(t, ok)
	task, err = h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, store.TaskReview, task.State)

	events, err := h.db.ListEvents(h.ctx, sid, 0, 0)
	require.NoError(t, err)
	added := 0
	for _, e := range events {
		if n := decode(Notification{Action: e.Type, Payload: e.Payload}); isNotice(n) && n.Action == "session.message.added" {
			added++
		}
	}
	assert.Equal(t, 1, added, "exactly one notice for the turn")
}

func TestExhaustedBudgetShowsBannerThenResumeRecovers(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:4 refactor", nil)
	sid := v.Sessions[0].ID
	for i, d := range []time.Duration{5 * time.Second, 15 * time.Second, 30 * time.Second} {
		expectRetry(t, h, trap, f, d, "Provider overloaded — retrying in "+humanDelay(d)+" (attempt "+strconv.Itoa(i+1)+"/3)")
		h.clock.Advance(d).MustWait(h.ctx)
	}
	b := f.until(isBanner)
	assert.Equal(t, "The provider stayed overloaded after 3 retries.", b.Message.Text)
	assert.Equal(t, "error", b.Message.Variant)
	require.Len(t, b.Message.Actions, 2)
	assert.Equal(t, RecoverResume, b.Message.Actions[0].Payload["action"])
	assert.Equal(t, RecoverFreshStart, b.Message.Actions[1].Payload["action"])
	f.until(isState(store.SessionFailed))
	_, ok := h.pending(sid)
	assert.False(t, ok)
	assert.Len(t, byRole(h.messages(sid), "status"), 1, "only the banner remains")

	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	done := f.until(isTurnDone)
	assert.Equal(t, "end_turn", done.StopReason)
	msgs := h.messages(sid)
	assert.Empty(t, byRole(msgs, "status"), "the banner goes once resumed")
	assert.Len(t, byRole(msgs, "user"), 1)
}

func TestMaxAttempts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    *int
		notice string // "" means: no retry, banner at once
	}{
		{"unset uses the policy budget", nil, "Provider overloaded — retrying in 5s (attempt 1/3)"},
		{"1 disables auto-retry", intp(1), ""},
		{"2 is widened by the policy", intp(2), "Provider overloaded — retrying in 5s (attempt 1/3)"},
		{"5 widens the budget", intp(5), "Provider overloaded — retrying in 5s (attempt 1/5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			trap := h.trapAfterFunc("retry")
			defer trap.Close()
			v, f := h.create("/overloaded:1 go", tc.max)
			if tc.notice == "" {
				b := f.until(isBanner)
				assert.Contains(t, b.Message.Text, "Automatic retry is off for this task.")
				_, ok := h.pending(v.Sessions[0].ID)
				assert.False(t, ok)
				return
			}
			expectRetry(t, h, trap, f, 5*time.Second, tc.notice)
			h.clock.Advance(5 * time.Second).MustWait(h.ctx)
			assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
		})
	}
}

func TestCancelDuringWaitShowsBannerAndIsIdempotent(t *testing.T) {
	h, v, f := parkFirst(t, "/overloaded:1 hello")
	sid := v.Sessions[0].ID

	req := RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}
	require.NoError(t, h.svc.Recover(h.ctx, req))
	b := f.until(isBanner)
	assert.Contains(t, b.Message.Text, "cancelled")
	_, ok := h.pending(sid)
	assert.False(t, ok, "the durable retry is gone")
	require.NoError(t, h.svc.Recover(h.ctx, req), "a second cancel is a no-op")

	// The disarmed timer never fires: advancing past retry_at starts no turn.
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	msgs := h.messages(sid)
	require.Len(t, byRole(msgs, "status"), 1)
	assert.Equal(t, "error", byRole(msgs, "status")[0].Variant)
	assert.Empty(t, byRole(msgs, "agent"))
}

func TestCancelRacingTheFireEndsInExactlyOneBanner(t *testing.T) {
	for i := 0; i < 5; i++ {
		h := newHarness(t)
		trap := h.trapAfterFunc("retry")
		v, f := h.create("/overloaded:3 race", nil)
		sid := v.Sessions[0].ID
		expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
		trap.Close()

		var wg sync.WaitGroup
		wg.Go(func() { h.clock.Advance(5 * time.Second).MustWait(h.ctx) })
		wg.Go(func() {
			assert.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
		})
		wg.Wait()
		f.until(isBanner)
		f.until(isState(store.SessionFailed))
		msgs := h.messages(sid)
		require.Len(t, byRole(msgs, "status"), 1, "exactly one banner, no notice")
		assert.Equal(t, "error", byRole(msgs, "status")[0].Variant)
		_, ok := h.pending(sid)
		assert.False(t, ok)
		h.stop()
	}
}

func TestNewPromptDuringWaitSupersedesTheRetry(t *testing.T) {
	h, v, f := parkFirst(t, "/overloaded:1 first")
	sid := v.Sessions[0].ID

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "something else"}))
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	_, ok := h.pending(sid)
	assert.False(t, ok)
	msgs := h.messages(sid)
	assert.Empty(t, byRole(msgs, "status"), "the old notice is gone")
	assert.Len(t, byRole(msgs, "user"), 2)
	// The old timer was disarmed: nothing fires when its time comes.
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	assert.Len(t, byRole(h.messages(sid), "user"), 2)
}

func TestStaleGenerationFireDoesNothing(t *testing.T) {
	h, v, f := parkFirst(t, "/overloaded:1 first")
	sid := v.Sessions[0].ID
	row, ok := h.pending(sid)
	require.True(t, ok)

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "newer prompt"}))
	f.until(isTurnDone)
	before := len(h.messages(sid))
	// A late callback of the old generation's parked retry.
	h.svc.fire([]*parkedRetry{{rec: store.PendingRetry{SessionID: sid, Generation: row.Generation, Attempt: row.Attempt}}})
	assert.Len(t, h.messages(sid), before)
	h.svc.mu.Lock()
	rt := h.svc.sessions[sid]
	h.svc.mu.Unlock()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	assert.Nil(t, rt.turn, "no turn was started")
}

func TestServiceCloseDuringWaitThenRestartFiresAtOriginalRetryAt(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:1 survive a restart", nil)
	sid := v.Sessions[0].ID
	n := expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	trap.Close()

	h.clock.Advance(2 * time.Second).MustWait(h.ctx)
	h.stop()
	row, ok := h.pending(sid)
	require.True(t, ok, "Close keeps the pending retry")
	assert.Equal(t, store.RetryPending, row.State)

	trap = h.trapAfterFunc("retry")
	defer trap.Close()
	h.start()
	go func() { assert.NoError(t, h.svc.Start(h.ctx)) }()
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	assert.Equal(t, 3*time.Second, call.Duration, "re-armed for the time left, not a fresh delay")
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(t, err)
	f2 := h.follow(sid, sess.LastSeq)
	notices := byRole(h.messages(sid), "status")
	require.Len(t, notices, 1)
	assert.Equal(t, n.Message.ID, notices[0].ID, "the notice is intact")

	h.clock.Advance(3 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f2.until(isTurnDone).StopReason)
	assert.Len(t, byRole(h.messages(sid), "user"), 1)
}

func TestRetryFoundMidDispatchAfterCrashBecomesManual(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:1 crash me", nil)
	sid := v.Sessions[0].ID
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	trap.Close()
	h.stop()
	row, _ := h.pending(sid)
	ok, err := h.db.ClaimPendingRetry(h.ctx, sid, row.Generation, row.Attempt) // as if it crashed mid-dispatch
	require.NoError(t, err)
	require.True(t, ok)

	h.start()
	require.NoError(t, h.svc.Start(h.ctx))
	msgs := byRole(h.messages(sid), "status")
	require.Len(t, msgs, 1)
	assert.Equal(t, "error", msgs[0].Variant)
	assert.Contains(t, msgs[0].Text, "Nothing was re-sent automatically")
	_, ok = h.pending(sid)
	assert.False(t, ok)
}

func TestNonTransientFailuresNeverReplay(t *testing.T) {
	for _, tc := range []struct{ prompt, code string }{
		{"/auth", "auth"},
		{"/too-long", "context_overflow"},
		{"/usage-limit", "quota"},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			h := newHarness(t)
			v, f := h.create(tc.prompt+" please", nil)
			b := f.until(isBanner)
			assert.Equal(t, tc.code, b.Message.Metadata["failure_code"])
			f.until(isState(store.SessionFailed))
			_, ok := h.pending(v.Sessions[0].ID)
			assert.False(t, ok)
			if tc.code == "quota" {
				assert.NotEmpty(t, b.Message.Metadata["reset_at"], "the reset time is shown")
				assert.Contains(t, b.Message.Text, "resets at")
			}
		})
	}
}

func TestConnClosedFollowsNetworkScheduleAndResumesWithoutDuplicateTurn(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/conn-closed:2 write the docs", nil)
	sid := v.Sessions[0].ID
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	assert.Equal(t, time.Duration(0), call.Duration, "network failures retry at once")
	first := f.until(isNotice)
	assert.Equal(t, "Connection lost — retrying in 0s (attempt 1/2)", first.Message.Text)
	second := expectRetry(t, h, trap, f, 5*time.Second, "Connection lost — retrying in 5s (attempt 2/2)")
	assert.Equal(t, first.Message.ID, second.Message.ID)
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)

	// Every retry resumed the agent session: the agent saw the user's prompt once.
	prompts := h.agentPrompts(sid)
	count := 0
	for _, p := range prompts {
		if p == "/conn-closed:2 write the docs" {
			count++
		}
	}
	assert.Equal(t, 1, count, "agent history: %q", prompts)
	assert.Len(t, byRole(h.messages(sid), "user"), 1)
}

func TestRateLimitHintIsALowerBound(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	_, f := h.create("/rate-limit:1:7 go", nil)
	expectRetry(t, h, trap, f, 7*time.Second, "Rate limited by the provider — retrying in 7s (attempt 1/3)")
	h.clock.Advance(7 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
}

func TestStopDuringRunningTurn(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("/slow:10000 take your time", nil)
	sid := v.Sessions[0].ID
	f.until(isState(store.SessionRunning))
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: sid}))
	assert.Equal(t, "cancelled", f.until(isTurnDone).StopReason)
	f.until(isState(store.SessionWaitingForInput))
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "again"}), "the session takes prompts after a stop")
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
}

func TestPromptValidationAndOwnership(t *testing.T) {
	h := newHarness(t)
	a, fa := h.create("hello", nil)
	b, fb := h.create("world", nil)
	fa.until(isTurnDone)
	fb.until(isTurnDone)
	errIs(t, h.svc.Prompt(h.ctx, PromptRequest{TaskID: a.ID, SessionID: b.Sessions[0].ID, Text: "x"}), ErrForbidden)
	errIs(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: "nope", Text: "x"}), ErrNotFound)
	errIs(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: a.Sessions[0].ID, Text: "  "}), ErrValidation)
	_, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "x", Agent: "nope"})
	errIs(t, err, ErrValidation)
	_, err = h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "x", Workdir: "relative/dir"})
	errIs(t, err, ErrValidation)
	assert.Len(t, byRole(h.messages(b.Sessions[0].ID), "user"), 1, "a refused prompt changes nothing")
}

func TestReplaySafetyRefusesAfterToolActivity(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("/tool-overloaded:1 edit the file", nil)
	b := f.until(isBanner)
	assert.Equal(t, "replay_unsafe", b.Message.Metadata["reason"])
	assert.Contains(t, b.Message.Text, "not replayed automatically")
	_, ok := h.pending(v.Sessions[0].ID)
	assert.False(t, ok, "nothing is scheduled")
	require.Len(t, byRole(h.messages(v.Sessions[0].ID), "tool"), 1, "the tool card stays")
}

// claude-agent-acp streams its error line as reply text before failing: that
// echo neither blocks the retry nor stays in the chat as the agent's words.
func TestEchoedErrorIsRetriedAndRemovedFromTheChat(t *testing.T) {
	h, v, f := parkFirst(t, "/echo-overloaded:1 build it")
	sid := v.Sessions[0].ID
	assert.Empty(t, byRole(h.messages(sid), "agent"), "the echoed error is not left as a reply")
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	agent := byRole(h.messages(sid), "agent")
	require.Len(t, agent, 1)
	assert.Contains(t, agent[0].Text, "Recovered after 1 failures")
}
