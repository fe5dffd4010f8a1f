package orchestrator

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Two profiles of the mock agent stand for one agent with two models: "mock"
// (model opus) names "mock-b" (model sonnet) as its fallback. They share the
// mock's state dir, so the fallback can load the primary's agent session as
// the same agent with another model would; a wall with Models stands for
// one model's overload only.
func withFallback(fallbackEnv map[string]string) harnessOpt {
	return func(c *Config) {
		p := c.Profiles["mock"]
		p.Env["MOCK_MODEL"] = "opus"
		p.Fallback = []string{"mock-b"}
		c.Profiles["mock"] = p
		env := map[string]string{}
		for k, v := range p.Env {
			env[k] = v
		}
		env["MOCK_MODEL"] = "sonnet"
		for k, v := range fallbackEnv {
			env[k] = v
		}
		c.Profiles["mock-b"] = lifecycle.Profile{Name: "mock-b", Command: p.Command, Env: env}
		// One failing session opens a gate; no probe comes before the
		// deadlines in these tests, so only a deadline ends a wait.
		c.Overload.Threshold = 1
		c.Overload.FirstProbe = 24 * time.Hour
		c.Overload.Backoff = []time.Duration{24 * time.Hour}
	}
}

func isFallbackLine(n note) bool {
	return n.Action == "session.message.added" && n.Message != nil && n.Message.Metadata["kind"] == kindFallback
}

func isTurnEnd(reason string) func(note) bool {
	return func(n note) bool { return n.Action == "session.turn.completed" && n.StopReason == reason }
}

// wallModels are the models of the /wall prompts that reached the provider, in order.
func (h *harness) wallModels() []string {
	h.t.Helper()
	reqs, err := mockagent.WallRequests(h.stateDir)
	require.NoError(h.t, err)
	var out []string
	for _, r := range reqs {
		m := r.Model
		if r.Failed {
			m += " (529)"
		}
		out = append(out, m)
	}
	return out
}

// A session held on its overloaded primary past the task's gate deadline
// continues on the fallback, in the same agent session, and says so; it
// stays there, across a restart, until the primary answers again, then
// moves back at its next turn.
func TestFallbackOnLongOverloadAndBack(t *testing.T) {
	opt := withFallback(nil)
	h := newHarness(t, opt)
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: true, Models: []string{"opus"}}))
	t0 := h.clock.Now()
	v, f := h.createWith(CreateTaskRequest{Prompt: "/wall job", Agent: "mock", GateDeadline: time.Minute})
	sid := v.Sessions[0].ID
	n := f.until(isNotice)
	assert.Contains(t, n.Message.Text, "waiting for it to recover", "the first failure opened the gate")
	f.until(isState(store.SessionWaitingForInput))
	agentSession := h.agentSessionID(sid)

	h.advanceTo(t0.Add(time.Minute))
	line := f.until(isFallbackLine)
	assert.Equal(t, "mock stayed overloaded for 1 minute — continuing on mock-b. The session goes back to mock once it answers again.", line.Message.Text)
	assert.Equal(t, "mock-b", line.Message.Metadata["profile"])
	assert.Equal(t, "mock", line.Message.Metadata["from"])
	assert.Equal(t, kindGateDeadline, line.Message.Metadata["reason"])
	f.until(isTurnEnd("end_turn"))

	assert.Equal(t, []string{"opus (529)", "sonnet"}, h.wallModels(), "the parked prompt went to the fallback, which answered")
	assert.Equal(t, agentSession, h.agentSessionID(sid), "the fallback loaded the same agent session")
	for _, m := range h.messages(sid) {
		assert.NotEqual(t, kindRecovery, m.Metadata["kind"], "no banner: %s", m.Text)
		assert.NotEqual(t, kindRetryNotice, m.Metadata["kind"], "the waiting notice is gone")
		assert.NotEqual(t, kindTranscriptResent, m.Metadata["kind"], "the session was loaded, not re-sent")
	}
	g, ok := h.gateInfo("mock")
	require.True(t, ok)
	assert.Equal(t, overload.Closed, g.State, "nobody waits on the primary's gate any more")
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.fallbacks.WithLabelValues("mock", "mock-b", "fallback")))
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.outcomes.WithLabelValues(outcomeFallback)))

	// A restart keeps the session on the fallback: the primary has not
	// answered since (its gate closed only because nobody waits on it).
	h.stop()
	h.start(opt)
	require.NoError(t, h.svc.Start(h.ctx))
	f = h.follow(sid, h.lastSeq(sid))
	h.clock.Advance(time.Second)
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{TaskID: v.ID, SessionID: sid, Text: "/wall second"}))
	f.until(isTurnEnd("end_turn"))
	assert.Equal(t, []string{"opus (529)", "sonnet", "sonnet"}, h.wallModels())

	// The primary recovers and answers another task's turn: the session
	// moves back at its next turn, saying so.
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{}))
	h.clock.Advance(time.Second)
	_, other := h.createWith(CreateTaskRequest{Prompt: "/wall other", Agent: "mock"})
	other.until(isTurnEnd("end_turn"))
	h.clock.Advance(time.Second)
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{TaskID: v.ID, SessionID: sid, Text: "/wall third"}))
	back := f.until(isFallbackLine)
	assert.Equal(t, "mock answers again — back on mock (after 3s on mock-b).", back.Message.Text)
	assert.Equal(t, "mock", back.Message.Metadata["profile"])
	assert.Equal(t, true, back.Message.Metadata["back"])
	f.until(isTurnEnd("end_turn"))
	assert.Equal(t, []string{"opus (529)", "sonnet", "sonnet", "opus", "opus"}, h.wallModels())
	assert.Equal(t, agentSession, h.agentSessionID(sid), "back in the same agent session")
	assert.Equal(t, []string{"/wall job", defaultContinuation, "/wall second", "/wall third"}, h.agentPrompts(sid),
		"one conversation across both models, no prompt twice")
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.fallbacks.WithLabelValues("mock-b", "mock", "back")))
}

// A fallback that cannot load the primary's session gets the conversation
// re-sent, and the chat says so.
func TestFallbackWithoutLoadResendsTranscript(t *testing.T) {
	h := newHarness(t, withFallback(map[string]string{"MOCK_NO_LOAD": "1"}))
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: true, Models: []string{"opus"}}))
	t0 := h.clock.Now()
	v, f := h.createWith(CreateTaskRequest{Prompt: "hello", Agent: "mock", GateDeadline: time.Minute})
	f.until(isTurnEnd("end_turn"))
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{TaskID: v.ID, SessionID: sid, Text: "/wall job"}))
	f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))

	h.advanceTo(t0.Add(time.Minute))
	f.until(isFallbackLine)
	resent := f.until(func(n note) bool {
		return n.Action == "session.message.added" && n.Message != nil && n.Message.Metadata["kind"] == kindTranscriptResent
	})
	assert.Contains(t, resent.Message.Text, "the agent cannot load sessions")
	f.until(isTurnEnd("end_turn"))
	agent := byRole(h.messages(sid), "agent")
	require.NotEmpty(t, agent)
	last := agent[len(agent)-1].Text
	assert.Contains(t, last, "Echo: Your earlier session could not be restored", "the fallback got the conversation")
	assert.Contains(t, last, "User: hello")
	assert.Equal(t, []string{"opus (529)"}, h.wallModels(), "only the first attempt met the primary's wall")
}

// A fallback whose own gate is open is not used: the deadline ends the
// wait with the banner, as without a fallback.
func TestFallbackWithOpenGateIsNotUsed(t *testing.T) {
	h := newHarness(t, withFallback(nil))
	h.setWall(true) // both models
	t0 := h.clock.Now()
	_, fb := h.createWith(CreateTaskRequest{Prompt: "/wall b", Agent: "mock-b", GateDeadline: time.Hour})
	fb.until(isNotice)
	g, ok := h.gateInfo("mock-b")
	require.True(t, ok)
	require.Equal(t, overload.Open, g.State)
	_, f := h.createWith(CreateTaskRequest{Prompt: "/wall a", Agent: "mock", GateDeadline: time.Minute})
	f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))

	h.advanceTo(t0.Add(time.Minute))
	b := f.until(isBanner)
	assert.Equal(t, "The provider stayed overloaded for 1 minute.", b.Message.Text)
	reqs := h.wallModels()
	assert.Equal(t, []string{"sonnet (529)", "opus (529)"}, reqs, "nothing went to the overloaded fallback")
	assert.Equal(t, 0.0, gaugeValue(t, h.svc.cfg.Metrics.fallbacks.WithLabelValues("mock", "mock-b", "fallback")))
}

func TestValidateFallbacks(t *testing.T) {
	p := func(fb ...string) lifecycle.Profile { return lifecycle.Profile{Command: "x", Fallback: fb} }
	for _, tc := range []struct {
		name     string
		profiles map[string]lifecycle.Profile
		err      string
	}{
		{"none", map[string]lifecycle.Profile{"a": p()}, ""},
		{"chain", map[string]lifecycle.Profile{"a": p("b", "c"), "b": p("c"), "c": p()}, ""},
		{"unknown", map[string]lifecycle.Profile{"a": p("sonet"), "sonnet": p()},
			`orchestrator: agent "a": fallback "sonet" is not a configured agent (configured: a, sonnet)`},
		{"itself", map[string]lifecycle.Profile{"a": p("a")}, `orchestrator: agent "a": fallback "a" is the agent itself`},
		{"twice", map[string]lifecycle.Profile{"a": p("b", "b"), "b": p()}, `orchestrator: agent "a": fallback "b" is listed twice`},
		{"cycle", map[string]lifecycle.Profile{"a": p("b"), "b": p("c"), "c": p("a")},
			"orchestrator: agent fallbacks form a cycle: a → b → c → a; list each fallback in one direction only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateFallbacks(tc.profiles)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.err)
		})
	}
}

func (h *harness) agentSessionID(sid string) string {
	h.t.Helper()
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(h.t, err)
	require.NotEmpty(h.t, sess.AgentSessionID)
	return sess.AgentSessionID
}

func (h *harness) lastSeq(sid string) int64 {
	h.t.Helper()
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(h.t, err)
	return sess.LastSeq
}

// With nobody else on the task's profile, nothing says it recovered: the
// session on the fallback tries it again at a turn boundary once a gate
// deadline has passed since the switch (and since its last try); an
// overload sends the turn straight back to the fallback, an answer moves
// the session back.
func TestFallbackTriesTheProfileAgainOncePerDeadline(t *testing.T) {
	h := newHarness(t, withFallback(nil))
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: true, Models: []string{"opus"}}))
	t0 := h.clock.Now()
	v, f := h.createWith(CreateTaskRequest{Prompt: "/wall job", Agent: "mock", GateDeadline: time.Minute})
	sid := v.Sessions[0].ID
	f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))
	h.advanceTo(t0.Add(time.Minute))
	f.until(isFallbackLine)
	f.until(isTurnEnd("end_turn"))
	prompt := func(text string) {
		t.Helper()
		require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{TaskID: v.ID, SessionID: sid, Text: text}))
	}

	h.clock.Advance(30 * time.Second)
	prompt("/wall early") // within a deadline of the switch: no try
	f.until(isTurnEnd("end_turn"))
	assert.Equal(t, []string{"opus (529)", "sonnet", "sonnet"}, h.wallModels())

	h.clock.Advance(30 * time.Second)
	prompt("/wall tried")
	f.until(isTurnEnd(stopFallback))
	still := f.until(isFallbackLine)
	assert.Equal(t, "mock is still overloaded — staying on mock-b.", still.Message.Text)
	assert.Equal(t, "mock-b", still.Message.Metadata["profile"])
	f.until(isTurnEnd("end_turn"))
	assert.Equal(t, []string{"opus (529)", "sonnet", "sonnet", "opus (529)", "sonnet"}, h.wallModels(),
		"one try on the primary, then straight to the fallback: no wait, no retry")
	for _, m := range h.messages(sid) {
		assert.NotEqual(t, kindRecovery, m.Metadata["kind"], "no banner: %s", m.Text)
	}

	h.clock.Advance(30 * time.Second)
	prompt("/wall again") // within a deadline of the last try
	f.until(isTurnEnd("end_turn"))
	assert.Len(t, h.wallModels(), 6)
	assert.Equal(t, "sonnet", h.wallModels()[5])

	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{}))
	h.clock.Advance(30 * time.Second)
	prompt("/wall back")
	back := f.until(isFallbackLine)
	assert.Equal(t, "mock answers again — back on mock (after 2m0s on mock-b).", back.Message.Text)
	assert.Equal(t, "tried", back.Message.Metadata["reason"])
	f.until(isTurnEnd("end_turn"))
	prompt("/wall stays")
	f.until(isTurnEnd("end_turn"))
	assert.Equal(t, []string{"opus", "opus"}, h.wallModels()[6:])
	assert.Equal(t, 2.0, gaugeValue(t, h.svc.cfg.Metrics.fallbacks.WithLabelValues("mock", "mock-b", "fallback")))
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.fallbacks.WithLabelValues("mock-b", "mock", "back")))
}

// A probe still in flight when the deadline passes fails past it: that
// failed turn ends as the switch, and the prompt goes on on the fallback.
func TestFallbackAfterAProbeFailsPastTheDeadline(t *testing.T) {
	h := newHarness(t, withFallback(nil), func(c *Config) { c.Overload.FirstProbe = 5 * time.Second })
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: true, Models: []string{"opus"}}))
	t0 := h.clock.Now()
	v, f := h.createWith(CreateTaskRequest{Prompt: "/wall job", Agent: "mock", GateDeadline: 10 * time.Second})
	f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))
	// The probe's 529 comes slowly, so the clock passes the deadline while it is in flight.
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: true, Models: []string{"opus"}, FailAfter: 3 * time.Second}))
	h.advanceTo(t0.Add(5 * time.Second))
	probe := f.until(func(n note) bool { return n.Action == "session.turn.started" })
	var started struct {
		TurnID string `json:"turn_id"`
	}
	require.NoError(t, json.Unmarshal(probe.raw, &started))
	h.advanceTo(t0.Add(10 * time.Second))

	ended := f.until(isTurnDone)
	assert.Equal(t, stopFallback, ended.StopReason, "the probe's turn ends as the switch, not as a failure")
	line := f.until(isFallbackLine)
	assert.Equal(t, started.TurnID, line.Message.TurnID)
	assert.Equal(t, "mock stayed overloaded for 10 seconds — continuing on mock-b. The session goes back to mock once it answers again.", line.Message.Text)
	f.until(isTurnEnd("end_turn"))
	assert.Equal(t, []string{"opus (529)", "opus (529)", "sonnet"}, h.wallModels())
	_, pending := h.pending(v.Sessions[0].ID)
	assert.False(t, pending, "no retry left behind")
}
