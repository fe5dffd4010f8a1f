package realagent

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

const (
	prompt = "fix the bug"
	reply  = "Done: the bug is fixed."
	// wait bounds one step of a test: an agent start (Node plus the Claude
	// Code CLI, ~3–5s here) and at most one retry delay, with room to spare.
	wait = 60 * time.Second
)

// rig is one test's fake provider, daemon, client and session.
type rig struct {
	p *provider
	d *daemontest.Daemon
	c *daemontest.Client
	s *daemontest.Session
}

// mode says how the daemon reaches the agent.
type mode struct {
	name       string
	echoFilter bool
}

var (
	direct = mode{name: "direct"}
	// filtered runs the agent behind the echo filter (echofilter_test.go).
	filtered = mode{name: "echo_filtered", echoFilter: true}
)

// newRig starts a provider answering faults first, and a daemon whose
// "claude" profile is the real agent pointed at it. The evidence is logged
// when the test ends (see report).
func newRig(t *testing.T, m mode, faults ...fault) *rig {
	t.Helper()
	requireAgent(t)
	t.Parallel()
	r := &rig{p: newProvider(t, reply, faults...)}
	r.d = startWithAgent(t, r.p, m.echoFilter)
	r.c = daemontest.Dial(t, r.d)
	t.Cleanup(func() {
		if r.s != nil {
			report(t, r.d, r.s, r.p)
		}
	})
	return r
}

func (r *rig) create(t *testing.T, extra map[string]any) *daemontest.Session {
	t.Helper()
	payload := map[string]any{"prompt": prompt, "agent": "claude"}
	for k, v := range extra {
		payload[k] = v
	}
	r.s = daemontest.CreateTask(t, r.c, payload)
	return r.s
}

// expectNotice waits for the next retry notice; a recovery banner instead
// means the daemon refused to retry, which fails the test with its reason.
func expectNotice(t *testing.T, s *daemontest.Session) *daemontest.Message {
	t.Helper()
	e := s.Until(wait, func(e daemontest.Event) bool { return daemontest.IsNotice(e) || daemontest.IsBanner(e) })
	m := e.Body().Message
	if daemontest.IsBanner(e) {
		// With the real agent as it is, this is reason=replay_unsafe: it streams
		// the provider's error as an agent_message_chunk before failing the prompt.
		t.Fatalf("no automatic retry: the daemon showed the recovery banner %q\n  reason=%v failure_code=%v class=%v rule_id=%v\n  excerpt=%q",
			m.Text, m.Metadata["reason"], m.Metadata["failure_code"], m.Metadata["class"], m.Metadata["rule_id"], m.Metadata["excerpt"])
	}
	return m
}

// slack: the notice's updated_at is stamped after the instant the daemon
// computed retry_at from (an SQLite write lies between, slow under -race),
// so the measured delay may fall short of the scheduled one by that much.
const slack = 250 * time.Millisecond

// retryAt is the notice's retry_at and how far after the failure it lies.
func retryAt(t *testing.T, m *daemontest.Message) (time.Time, time.Duration) {
	t.Helper()
	s, ok := m.Metadata["retry_at"].(string)
	require.True(t, ok, "the notice carries retry_at: %v", m.Metadata)
	at, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	t.Logf("notice %q (rule_id %v): retry_at %s after the failure", m.Text, m.Metadata["rule_id"], at.Sub(m.UpdatedAt).Round(time.Millisecond))
	return at, at.Sub(m.UpdatedAt)
}

// expectRetryFires waits for the retry's turn and checks it did not start early.
func expectRetryFires(t *testing.T, s *daemontest.Session, at time.Time) {
	t.Helper()
	e := s.Until(wait, func(e daemontest.Event) bool { return e.Action == "session.turn.started" })
	assert.True(t, e.Body().Replay, "a retry re-drives the cached prompt")
	assert.False(t, e.At.Before(at), "the retry fired at %s, before its retry_at %s", e.At.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano))
}

// expectOneUserMessage checks the chat after recovery: one user message, the
// agent's reply once, and nothing of the retry left.
func expectOneUserMessage(t *testing.T, s *daemontest.Session) {
	t.Helper()
	expectChat(t, s, prompt, reply)
}

// expectChat is expectOneUserMessage for a session's own prompt and reply.
func expectChat(t *testing.T, s *daemontest.Session, prompt, reply string) {
	t.Helper()
	users, replies := 0, 0
	for _, m := range s.Snapshot().Messages {
		switch m.Role {
		case "user":
			users++
			assert.Equal(t, prompt, m.Text)
		case "agent":
			if strings.Contains(m.Text, reply) {
				replies++
			}
			assert.NotContains(t, m.Text, "API Error",
				"the provider's error is shown by the notice, not as the agent's own words (message %s)", m.ID)
		case "status":
			t.Errorf("a status message is left after recovery: %q %v", m.Text, m.Metadata)
		}
	}
	assert.Equal(t, 1, users, "exactly one user message")
	assert.Equal(t, 1, replies, "the agent's reply, once")
}

// expectTurns checks what reached the provider: one request per attempt with
// these statuses, and the user's prompt exactly once in the last one.
func expectTurns(t *testing.T, p *provider, statuses ...int) {
	t.Helper()
	turns := p.turns()
	var got []int
	for _, r := range turns {
		got = append(got, r.Status)
	}
	require.Equal(t, statuses, got, "one provider request per attempt")
	assert.Equal(t, 1, promptCopies(turns[len(turns)-1], prompt), "the model sees the prompt once, not a duplicate user turn")
}

// TestRealAgentOverloadedRecovers: two 529s, then the reply. One notice,
// updated in place (attempt 1/3, then 2/3), never firing before its
// retry_at; the reply arrives; one user message; three provider requests.
//
// "direct" is the real agent as it is; "echo_filtered" hides its error echo
// (echofilter_test.go) to show the rest of the chain.
func TestRealAgentOverloadedRecovers(t *testing.T) {
	for _, m := range []mode{direct, filtered} {
		t.Run(m.name, func(t *testing.T) { overloadedRecovers(t, m) })
	}
}

func overloadedRecovers(t *testing.T, m mode) {
	r := newRig(t, m, overloaded, overloaded)
	s := r.create(t, nil)

	first := expectNotice(t, s)
	assert.Equal(t, "overloaded", first.Metadata["failure_code"])
	assert.Contains(t, first.Text, "Provider overloaded — retrying in")
	assert.Contains(t, first.Text, "(attempt 1/3)")
	at, delay := retryAt(t, first)
	assert.GreaterOrEqual(t, delay, time.Second-slack, "the first overloaded retry waits the schedule's 1s")
	expectRetryFires(t, s, at)

	second := expectNotice(t, s)
	assert.Equal(t, first.ID, second.ID, "one notice per turn, updated in place")
	assert.Contains(t, second.Text, "(attempt 2/3)")
	at, delay = retryAt(t, second)
	assert.GreaterOrEqual(t, delay, 2*time.Second-slack, "the second overloaded retry waits the schedule's 2s")
	expectRetryFires(t, s, at)

	assert.Equal(t, "end_turn", s.Until(wait, daemontest.TurnEnded).Body().StopReason)
	expectOneUserMessage(t, s)
	expectTurns(t, r.p, 529, 529, 200)
}

// TestRealAgentAuthIsNeverRetried: a 401 is a banner at once, never a notice,
// and nothing more reaches the provider.
func TestRealAgentAuthIsNeverRetried(t *testing.T) {
	r := newRig(t, direct, badKey)
	s := r.create(t, nil)

	e := s.Until(wait, func(e daemontest.Event) bool { return daemontest.IsNotice(e) || daemontest.IsBanner(e) })
	require.True(t, daemontest.IsBanner(e), "an auth failure is never retried: %s", e.Payload)
	m := e.Body().Message
	assert.Equal(t, "auth", m.Metadata["failure_code"])
	assert.Equal(t, "user_action", m.Metadata["class"])
	assert.Equal(t, "error", m.Variant)
	// Longer than the shortest retry delay plus an agent start: a retry would show.
	assert.Never(t, func() bool { return len(r.p.turns()) > 1 }, 8*time.Second, 100*time.Millisecond,
		"no second request reaches the provider")
	expectTurns(t, r.p, 401)
}

// TestRealAgentRateLimitedWaitsForTheHint: a 429 with retry-after: 3 while
// the rate_limited schedule says 1s. Claude Code (CLAUDE_CODE_MAX_RETRIES=0)
// drops the hint — its error keeps only "Request rejected (429) · …" — so the
// daemon can only follow its schedule: the retry must not come before it,
// and the hint is honoured whenever the evidence carries it.
func TestRealAgentRateLimitedWaitsForTheHint(t *testing.T) {
	for _, m := range []mode{direct, filtered} {
		t.Run(m.name, func(t *testing.T) { rateLimitedWaits(t, m) })
	}
}

func rateLimitedWaits(t *testing.T, m mode) {
	r := newRig(t, m, rateLimit)
	s := r.create(t, nil)

	n := expectNotice(t, s)
	assert.Equal(t, "rate_limited", n.Metadata["failure_code"])
	at, delay := retryAt(t, n)
	floor := 1 * time.Second // the rate_limited schedule
	if xs := executions(t, r.d, s.ID); len(xs) > 0 && xs[0].Classification["retry_after"] != nil {
		floor = 3 * time.Second // the agent passed the provider's retry-after on
	} else {
		t.Logf("the agent's error carried no retry-after hint; the schedule applies")
	}
	assert.GreaterOrEqual(t, delay, floor-slack, "the retry was scheduled %s after the failure", delay)
	expectRetryFires(t, s, at)

	assert.Equal(t, "end_turn", s.Until(wait, daemontest.TurnEnded).Body().StopReason)
	expectOneUserMessage(t, s)
	expectTurns(t, r.p, 429, 200)
}

// TestRealAgentResumeLoadsTheSession: with automatic retry off for the task,
// a 529 is a banner at once; Resume starts a new agent process that loads
// the same ACP session (session/load), finds the prompt in the replayed
// history and sends the continuation instead, so the model never sees the
// user's prompt twice.
func TestRealAgentResumeLoadsTheSession(t *testing.T) {
	r := newRig(t, direct, overloaded)
	s := r.create(t, map[string]any{"max_attempts": 1})

	e := s.Until(wait, func(e daemontest.Event) bool { return daemontest.IsNotice(e) || daemontest.IsBanner(e) })
	require.True(t, daemontest.IsBanner(e), "max_attempts 1: no automatic retry: %s", e.Payload)
	assert.Equal(t, "disabled", e.Body().Message.Metadata["reason"])
	assert.Equal(t, "overloaded", e.Body().Message.Metadata["failure_code"])

	r.c.Call("session.recover", map[string]any{"task_id": s.TaskID, "session_id": s.ID, "action": "resume"})
	assert.Equal(t, "end_turn", s.Until(wait, daemontest.TurnEnded).Body().StopReason)

	started := r.d.LogLines("agent started")
	require.Len(t, started, 2, "one agent process per attempt")
	assert.Equal(t, false, started[0]["resumed"])
	assert.Equal(t, true, started[1]["resumed"], "the second process loaded the session")
	assert.Equal(t, started[0]["agent_session_id"], started[1]["agent_session_id"])

	expectTurns(t, r.p, 529, 200)
	last := r.p.turns()[1]
	assert.Contains(t, lastUser(last), "Please continue", "the resumed agent gets the continuation, not the prompt again")

	users, replies := 0, 0
	for _, m := range s.Snapshot().Messages {
		if m.Role == "user" {
			users++
		}
		if m.Role == "agent" && strings.Contains(m.Text, reply) {
			replies++
		}
	}
	assert.Equal(t, 1, users, "exactly one user message")
	assert.Equal(t, 1, replies, "session/load's history replay is not shown again")

	// SIGTERM with a live agent: a clean exit, and nothing of the agent's
	// process group (node and the Claude Code CLI it spawned) is left.
	r.d.Stop(t)
	stopped := time.Now()
	for _, l := range started {
		pgid := int(l["pid"].(float64))
		gone := func() bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }
		if gone() {
			continue
		}
		t.Logf("agent process group %d outlived the daemon's exit:\n%s", pgid, processGroup(pgid))
		assert.Eventually(t, gone, 10*time.Second, 20*time.Millisecond, "agent process group %d is gone", pgid)
		t.Logf("agent process group %d gone %s after the daemon exited", pgid, time.Since(stopped).Round(time.Millisecond))
	}
}

// processGroup lists the processes of a group, for diagnostics.
func processGroup(pgid int) string {
	out, _ := exec.Command("ps", "-e", "-o", "pid,ppid,pgid,stat,etime,args").Output()
	var b strings.Builder
	for i, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			b.WriteString(truncate(line, 200) + "\n")
		}
	}
	return b.String()
}
