package orchestrator

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// The provider is back as soon as the probe streams its reply: the waiting
// sessions are released then, while the probe's own turn is still working.
func TestGateClosesOnTheProbesFirstOutputNotItsTurnEnd(t *testing.T) {
	h := newHarness(t, perSessionSchedule)
	t0 := h.clock.Now()
	h.setWall(true)
	var sids []string
	var fs []*feed
	for i := range 3 {
		// After the wall, each reply streams at once and its turn lingers 10 minutes.
		v, f := h.create(fmt.Sprintf("/wall:600000 job %d: fix the flaky test in the store package", i), nil)
		f.until(isNotice)
		f.until(isState(store.SessionWaitingForInput))
		sids, fs = append(sids, v.Sessions[0].ID), append(fs, f)
	}
	g, ok := h.gateInfo("mock")
	require.True(t, ok)
	require.Equal(t, "open", string(g.State))
	requests := h.providerRequests()
	gf := h.gates() // from here on: closing is news

	h.setWall(false)
	h.advanceTo(t0.Add(5 * time.Second)) // the probe goes
	gf.until(isClosed)
	running := 0
	for _, sid := range sids {
		sess, err := h.db.GetSession(h.ctx, sid)
		require.NoError(t, err)
		if sess.State == store.SessionRunning {
			running++
		}
	}
	assert.Equal(t, 1, running, "the probe's turn is still running when the gate closes")

	h.advanceTo(h.clock.Now().Add(time.Second)) // the release window of two sessions
	for _, f := range fs {
		f.until(isState(store.SessionRunning))
	}
	// "running" is set just before the prompt goes out: wait for the agents.
	require.Eventually(t, func() bool { return h.providerRequests() == requests+3 }, waitLong, 10*time.Millisecond,
		"the probe, then both released sessions reached the provider")
}

func TestLooksLikeError(t *testing.T) {
	for _, s := range []string{
		echoedOverloadLine,
		`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		"Request rejected (429) · rate limit exceeded, please slow down",
	} {
		assert.True(t, looksLikeError(s), s)
	}
	for _, s := range []string{
		"I'll start by reading the failing test in internal/store to see what it expects.",
		"Echo: /wall:600000 job 1: fix the flaky test in the store package",
	} {
		assert.False(t, looksLikeError(s), s)
	}
}

// echoedOverloadLine is what claude-agent-acp streams as text before failing.
const echoedOverloadLine = "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."

// A probe that never answers does not hold the gate until every waiter's
// deadline: after ProbeTimeout the next waiter probes, and its answer
// releases everyone while the hung turn goes on.
func TestHungProbeGivesUpTheSlot(t *testing.T) {
	h := newHarness(t, perSessionSchedule, func(c *Config) { c.Overload.ProbeTimeout = 30 * time.Second })
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(3)
	require.NoError(t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: true, Hang: true}))
	gf := h.gates()
	requests := h.providerRequests()

	h.advanceTo(t0.Add(5 * time.Second)) // the first probe goes, and hangs
	hung := gf.until(func(g GateInfo) bool { return g.Probing }).ProbeSession
	require.Eventually(t, func() bool { return h.providerRequests() == requests+1 }, waitLong, 10*time.Millisecond)
	for _, v := range vs { // the waiting notice says the check is under way, not when the probe would time out
		if sid := v.Sessions[0].ID; sid != hung {
			res, sub, err := h.svc.SubscribeSession(h.ctx, SubscribeRequest{SessionID: sid}, 100)
			require.NoError(t, err)
			sub.Close()
			notice := byRole(res.Messages, "status")
			require.Len(t, notice, 1)
			assert.Contains(t, notice[0].Text, "checking now (2 sessions waiting)")
			break
		}
	}
	h.setWall(false) // new requests are answered again

	h.advanceTo(t0.Add(34 * time.Second))
	assert.Equal(t, requests+1, h.providerRequests(), "no second probe before the timeout")
	h.advanceTo(t0.Add(35 * time.Second)) // the timeout: the next waiter probes
	gf.until(isClosed)
	h.advanceTo(h.clock.Now().Add(time.Second)) // the release
	for i, v := range vs {
		if v.Sessions[0].ID == hung {
			continue
		}
		fs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	}
	sess, err := h.db.GetSession(h.ctx, hung)
	require.NoError(t, err)
	assert.Equal(t, store.SessionRunning, sess.State, "the hung turn goes on until it ends or is stopped")
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.gateHung.WithLabelValues("mock")))
}
