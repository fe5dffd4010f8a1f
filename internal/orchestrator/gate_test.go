package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Every test here runs real mock agents that share one provider: the /wall
// scenario fails with a 529 while the wall (a file in the mock's state dir)
// is up. The service runs on the mock clock; the agents in real time.

func (h *harness) setWall(up bool) {
	h.t.Helper()
	require.NoError(h.t, mockagent.SetWall(h.stateDir, mockagent.Wall{Up: up}))
}

// providerRequests counts the /wall prompts that reached the provider.
func (h *harness) providerRequests() int {
	h.t.Helper()
	reqs, err := mockagent.WallRequests(h.stateDir)
	require.NoError(h.t, err)
	return len(reqs)
}

// advanceTo moves the mock clock to target, firing every timer on the way
// in order (the mock clock cannot jump over a timer).
func (h *harness) advanceTo(target time.Time) {
	h.t.Helper()
	for {
		now := h.clock.Now()
		d, ok := h.clock.Peek()
		if !ok || now.Add(d).After(target) {
			if target.After(now) {
				h.clock.Advance(target.Sub(now)).MustWait(h.ctx)
			}
			return
		}
		h.clock.Advance(d).MustWait(h.ctx)
	}
}

// gateFeed follows gate.updated notifications.
type gateFeed struct {
	h   *harness
	sub *Subscription
}

func (h *harness) gates() *gateFeed {
	sub := h.svc.SubscribeTasks(100000)
	h.t.Cleanup(sub.Close)
	return &gateFeed{h: h, sub: sub}
}

// until returns the first gate.updated whose gate matches.
func (g *gateFeed) until(match func(GateInfo) bool) GateInfo {
	g.h.t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case n := <-g.sub.C():
			if n.Action != actionGateUpdated {
				continue
			}
			var body struct{ Gate GateInfo }
			require.NoError(g.h.t, json.Unmarshal(n.Payload, &body))
			if match(body.Gate) {
				return body.Gate
			}
		case <-deadline:
			g.h.t.Fatalf("timed out waiting for gate.updated")
			return GateInfo{}
		}
	}
}

func probeFailed(n int) func(GateInfo) bool {
	return func(g GateInfo) bool { return g.State == overload.Open && !g.Probing && g.FailedProbes == n }
}

func isClosed(g GateInfo) bool { return g.State == overload.Closed }

// parkOne creates a /wall task and waits until its failed first turn is
// parked (on its own timer, or on the gate).
func (h *harness) parkOne(i int) (TaskView, *feed, note) {
	h.t.Helper()
	v, f := h.create(fmt.Sprintf("/wall job %d", i), nil)
	n := f.until(isNotice)
	f.until(isState(store.SessionWaitingForInput))
	return v, f, n
}

// openGate parks n ≥ 3 sessions on the wall one after another: the first
// two on their own 5s timers, the third opens the gate.
func (h *harness) openGate(n int) ([]TaskView, []*feed, []note) {
	h.t.Helper()
	h.setWall(true)
	var vs []TaskView
	var fs []*feed
	var ns []note
	for i := range n {
		v, f, no := h.parkOne(i)
		vs, fs, ns = append(vs, v), append(fs, f), append(ns, no)
	}
	return vs, fs, ns
}

// settled waits until the session's parked retry is not being dispatched.
func (h *harness) settled(sid string, f *feed) {
	h.t.Helper()
	for {
		row, ok := h.pending(sid)
		if !ok || row.State == store.RetryPending {
			return
		}
		f.until(isState(store.SessionWaitingForInput))
	}
}

func (h *harness) gateInfo(key string) (GateInfo, bool) {
	for _, g := range h.svc.Gates().Gates {
		if g.Key == key {
			return g, true
		}
	}
	return GateInfo{}, false
}

func gaugeValue(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 1)
	c.Collect(ch)
	var m dto.Metric
	require.NoError(t, (<-ch).Write(&m))
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// perSessionSchedule makes the gate probe on the per-session schedule
// (10s, 20s, 40s, 60s) however many wait, for tests about other things.
func perSessionSchedule(c *Config) { c.Overload.MinProbeInterval = time.Hour }

func TestGateOpensAtThresholdAndProbesOncePerInterval(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	t0 := h.clock.Now()
	vs, fs, ns := h.openGate(5)
	assert.Equal(t, "Provider overloaded — retrying in 5s (attempt 1/3)", ns[0].Message.Text, "below the threshold: own schedule")
	assert.Equal(t, "Provider overloaded — retrying in 5s (attempt 1/3)", ns[1].Message.Text)
	assert.Equal(t, "Provider overloaded — waiting for it to recover; next check in 5s (1 session waiting)", ns[2].Message.Text)
	assert.Equal(t, "Provider overloaded — waiting for it to recover; next check in 5s (3 sessions waiting)", ns[4].Message.Text)
	meta := ns[4].Message.Metadata
	assert.Equal(t, map[string]any{"key": "mock", "state": "open"}, meta["gate"])
	assert.EqualValues(t, 3, meta["waiting"])
	assert.Equal(t, t0.Add(5*time.Second).UTC().Format(time.RFC3339Nano), meta["retry_at"], "retry_at is the next probe")
	assert.Equal(t, true, meta["retrying"])
	assert.EqualValues(t, 1, meta["attempt"])
	assert.EqualValues(t, 3, meta["max_attempts"])
	assert.Equal(t, "overloaded", meta["failure_code"])
	assert.NotEmpty(t, meta["rule_id"])
	require.Len(t, ns[4].Message.Actions, 2)
	assert.Equal(t, RecoverCancelRetry, ns[4].Message.Actions[0].Payload["action"])
	assert.Equal(t, RecoverRetryNow, ns[4].Message.Actions[1].Payload["action"])
	row, ok := h.pending(vs[4].Sessions[0].ID)
	require.True(t, ok)
	assert.Equal(t, "mock", row.Extra[extraGate], "the wait is durable")

	g, ok := h.gateInfo("mock")
	require.True(t, ok)
	assert.Equal(t, overload.Open, g.State)
	assert.Equal(t, 3, g.Waiting)
	assert.Equal(t, 5, h.providerRequests(), "one request per session so far")
	assert.Equal(t, 1.0, gaugeValue(t, h.svc.cfg.Metrics.gateOpen.WithLabelValues("mock")))
	assert.Equal(t, 3.0, gaugeValue(t, h.svc.cfg.Metrics.gateWaiting.WithLabelValues("mock")))

	// One probe per interval; the intervals back off 10, 20, 40, 60, 60
	// divided by the 5 sessions waiting.
	next := t0.Add(5 * time.Second)
	for i, wantNext := range []time.Duration{2, 4, 8, 12, 12} {
		h.advanceTo(next)
		g := gf.until(probeFailed(i + 1))
		require.NotNil(t, g.NextProbeAt)
		assert.Equal(t, wantNext*time.Second, g.NextProbeAt.Sub(next), "backoff after failed probe %d", i+1)
		assert.Equal(t, 5+i+1, h.providerRequests(), "exactly one probe reached the provider in interval %d", i+1)
		assert.Equal(t, 5, g.Waiting, "everyone waits, the probe included")
		next = *g.NextProbeAt
	}
	assert.Equal(t, 5.0, gaugeValue(t, h.svc.cfg.Metrics.gateProbes.WithLabelValues("mock")))

	// Waiting did not consume budget: 5 failed probes, 3 retries allowed, no banner.
	for i, v := range vs {
		row, ok := h.pending(v.Sessions[0].ID)
		require.True(t, ok, "session %d still waits", i)
		assert.LessOrEqual(t, row.Attempt, row.MaxAttempts)
		for _, m := range h.messages(v.Sessions[0].ID) {
			assert.NotEqual(t, "error", m.Variant, "no banner")
		}
	}
	_ = fs
}

func TestGateSuccessReleasesEveryoneSpreadOverTheWindow(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	releases := make(chan time.Duration, 100)
	trap := h.trapAfterFunc("gate-release")
	ctx, cancel := context.WithCancel(h.ctx)
	collected := make(chan struct{})
	go func() { // lets every trapped release timer through; ends with ctx
		defer close(collected)
		for {
			call, err := trap.Wait(ctx)
			if err != nil {
				return
			}
			releases <- call.Duration
			_ = call.Release(ctx)
		}
	}()
	defer func() {
		cancel()
		<-collected
		trap.Close()
	}()
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(6)
	h.advanceTo(t0.Add(5 * time.Second))
	g := gf.until(probeFailed(1))
	before := h.providerRequests()

	h.setWall(false)
	h.advanceTo(*g.NextProbeAt)
	closed := gf.until(isClosed)
	assert.Equal(t, 0, closed.Waiting)
	var offs []time.Duration
	for range 5 { // six sessions: one probed, five released
		select {
		case d := <-releases:
			offs = append(offs, d)
		case <-time.After(waitLong):
			t.Fatal("releases were not armed")
		}
	}
	slices.Sort(offs)
	assert.GreaterOrEqual(t, offs[0], time.Duration(0))
	assert.Less(t, offs[4], 5*time.Second, "everyone within the release window")
	assert.Greater(t, offs[4]-offs[0], 100*time.Millisecond, "not all in the same 100ms")
	assert.Equal(t, 5.0, gaugeValue(t, h.svc.cfg.Metrics.gateRelease))

	h.advanceTo(h.clock.Now().Add(5 * time.Second))
	for i, v := range vs {
		sid := v.Sessions[0].ID
		fs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
		_, ok := h.pending(sid)
		assert.False(t, ok)
		msgs := h.messages(sid)
		assert.Len(t, byRole(msgs, "user"), 1, "the prompt once in the chat")
		assert.Empty(t, byRole(msgs, "status"), "the notice is gone")
		count := 0
		for _, p := range h.agentPrompts(sid) {
			if p == fmt.Sprintf("/wall job %d", i) {
				count++
			}
		}
		assert.Equal(t, 1, count, "the agent saw the user's turn once")
	}
	assert.Equal(t, before+6, h.providerRequests(), "one more request per session")
	assert.Equal(t, 0.0, gaugeValue(t, h.svc.cfg.Metrics.gateOpen.WithLabelValues("mock")))
}

func TestGateDeadlineEndsTheWaitWithTheBanner(t *testing.T) {
	h := newHarness(t, perSessionSchedule, func(c *Config) { c.Overload.Deadline = 2 * time.Minute })
	gf := h.gates()
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(3)
	next := t0.Add(5 * time.Second)
	for i := range 4 { // probes at 5s, 15s, 35s, 75s; the next would be at 135s
		h.advanceTo(next)
		next = *gf.until(probeFailed(i + 1)).NextProbeAt
	}
	require.Equal(t, t0.Add(135*time.Second), next)
	h.advanceTo(t0.Add(2 * time.Minute))
	for i, v := range vs {
		b := fs[i].until(isBanner)
		assert.Equal(t, "The provider stayed overloaded for 2 minutes.", b.Message.Text)
		assert.Equal(t, kindGateDeadline, b.Message.Metadata["reason"])
		require.Len(t, b.Message.Actions, 2)
		fs[i].until(isState(store.SessionFailed))
		_, ok := h.pending(v.Sessions[0].ID)
		assert.False(t, ok)
	}
	gf.until(isClosed)
}

func TestGateCancelWhileWaitingThenResumeGoesThroughTheGate(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(4)
	h.advanceTo(t0.Add(5 * time.Second))
	g := gf.until(probeFailed(1))
	require.Equal(t, 4, g.Waiting)

	v, f := vs[3], fs[3]
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
	b := f.until(isBanner)
	assert.Contains(t, b.Message.Text, "cancelled")
	g, _ = h.gateInfo("mock")
	assert.Equal(t, 3, g.Waiting, "the cancelled session left the gate")
	_, ok := h.pending(sid)
	assert.False(t, ok)

	// Resume while the gate is open: the session waits on it, nothing is sent.
	requests := h.providerRequests()
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	n := f.until(isNotice)
	assert.Contains(t, n.Message.Text, "waiting for it to recover")
	assert.EqualValues(t, 0, n.Message.Metadata["attempt"], "a manual resume starts a fresh budget")
	f.until(isState(store.SessionWaitingForInput))
	g, _ = h.gateInfo("mock")
	assert.Equal(t, 4, g.Waiting)
	assert.Equal(t, requests, h.providerRequests())
	assert.Empty(t, byRole(h.messages(sid), "agent"))

	h.setWall(false)
	h.advanceTo(*g.NextProbeAt)
	gf.until(isClosed)
	h.advanceTo(h.clock.Now().Add(5 * time.Second))
	for i := range vs {
		fs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	}
	msgs := h.messages(sid)
	assert.Len(t, byRole(msgs, "user"), 1)
	assert.Empty(t, byRole(msgs, "status"), "banner and notice are gone")
	count := 0
	for _, p := range h.agentPrompts(sid) {
		if p == "/wall job 3" {
			count++
		}
	}
	assert.Equal(t, 1, count, "no duplicate user turn after cancel and resume")
}

func TestCancelledSessionIsNotReleased(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	vs, fs, _ := h.openGate(3)
	v := vs[2] // the one that opened the gate: waiting on it
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
	fs[2].until(isBanner)
	// Nobody waits on the gate now: it closes at once.
	gf.until(isClosed)
	h.setWall(false)
	h.advanceTo(h.clock.Now().Add(10 * time.Second))
	for i := range 2 {
		fs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	}
	assert.Empty(t, byRole(h.messages(sid), "agent"), "the cancelled session never ran again")
	require.Len(t, byRole(h.messages(sid), "status"), 1)
}

func TestRateLimitAndNetworkFailuresAreNotGated(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		delay  time.Duration
	}{
		{"/rate-limit:1:7 go", 7 * time.Second},
		{"/conn-closed:1 go", 0},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			h := newHarness(t)
			t0 := h.clock.Now()
			var fs []*feed
			for range 4 {
				_, f := h.create(tc.prompt, nil)
				n := f.until(isNotice)
				assert.Equal(t, t0.Add(tc.delay).UTC().Format(time.RFC3339Nano), n.Message.Metadata["retry_at"],
					"each session keeps its own schedule")
				assert.Nil(t, n.Message.Metadata["gate"])
				fs = append(fs, f)
			}
			for _, g := range h.svc.Gates().Gates {
				assert.Equal(t, overload.Closed, g.State)
			}
			h.advanceTo(h.clock.Now().Add(tc.delay))
			for _, f := range fs {
				f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
			}
		})
	}
}

func TestGateOffRetriesOnOwnSchedule(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Overload.Disabled = true })
	_, _, ns := h.openGate(4)
	for _, n := range ns {
		assert.Equal(t, "Provider overloaded — retrying in 5s (attempt 1/3)", n.Message.Text)
	}
	l := h.svc.Gates()
	assert.False(t, l.Enabled)
	assert.Empty(t, l.Gates)
}

func TestGateSurvivesARestart(t *testing.T) {
	h := newHarness(t, perSessionSchedule)
	gf := h.gates()
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(3)
	h.advanceTo(t0.Add(5 * time.Second))
	gf.until(probeFailed(1))
	h.advanceTo(t0.Add(15 * time.Second))
	g := gf.until(probeFailed(2))
	require.Equal(t, t0.Add(35*time.Second), *g.NextProbeAt)
	for i, v := range vs {
		h.settled(v.Sessions[0].ID, fs[i]) // the last probe is parked again
	}
	h.stop()
	rows, err := h.db.ListGates(h.ctx)
	require.NoError(t, err)
	require.Len(t, rows, 1, "the open gate is stored")
	assert.Equal(t, 2, rows[0].FailedProbes)

	h.start(perSessionSchedule)
	gf = h.gates()
	require.NoError(t, h.svc.Start(h.ctx))
	g, ok := h.gateInfo("mock")
	require.True(t, ok)
	assert.Equal(t, overload.Open, g.State)
	assert.Equal(t, 3, g.Waiting)
	assert.Equal(t, 2, g.FailedProbes)
	assert.Equal(t, t0.Add(35*time.Second), *g.NextProbeAt, "the probe keeps its time")

	var f2 []*feed
	for _, v := range vs {
		sess, err := h.db.GetSession(h.ctx, v.Sessions[0].ID)
		require.NoError(t, err)
		f2 = append(f2, h.follow(sess.ID, sess.LastSeq))
	}
	requests := h.providerRequests()
	h.advanceTo(t0.Add(35 * time.Second))
	g = gf.until(probeFailed(3))
	assert.Equal(t, 40*time.Second, g.NextProbeAt.Sub(t0.Add(35*time.Second)), "the backoff carries on")
	assert.Equal(t, requests+1, h.providerRequests())

	h.setWall(false)
	h.advanceTo(*g.NextProbeAt)
	gf.until(isClosed)
	h.advanceTo(h.clock.Now().Add(5 * time.Second))
	for i, v := range vs {
		f2[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
		assert.Len(t, byRole(h.messages(v.Sessions[0].ID), "user"), 1)
	}
	rows, err = h.db.ListGates(h.ctx)
	require.NoError(t, err)
	assert.Empty(t, rows, "a closed gate is not stored")
}

func TestRestartAfterGateClosedReleasesGradually(t *testing.T) {
	h := newHarness(t)
	vs, _, _ := h.openGate(3)
	h.stop()
	require.NoError(t, h.db.DeleteGate(h.ctx, "mock")) // as if it closed just before the crash
	h.setWall(false)
	h.start()
	require.NoError(t, h.svc.Start(h.ctx))
	var offs []time.Duration
	for _, v := range vs {
		at, ok := h.armedAt(v.Sessions[0].ID)
		if !ok {
			at = h.clock.Now() // its release was due at once, and has fired
		}
		offs = append(offs, at.Sub(h.clock.Now()))
	}
	slices.Sort(offs)
	assert.Equal(t, []time.Duration{5 * time.Second, 5 * time.Second}, offs[1:])
	// Two sessions were on their own timers (due at 5s), one waited on the gate.
	assert.Less(t, offs[0], 5*time.Second)
	var fs []*feed
	for _, v := range vs {
		sess, err := h.db.GetSession(h.ctx, v.Sessions[0].ID)
		require.NoError(t, err)
		fs = append(fs, h.follow(sess.ID, sess.LastSeq))
	}
	h.advanceTo(h.clock.Now().Add(6 * time.Second))
	for _, f := range fs {
		assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	}
}

func TestWatchedNoticeFollowsTheGate(t *testing.T) {
	h := newHarness(t, perSessionSchedule)
	gf := h.gates()
	t0 := h.clock.Now()
	vs, _, _ := h.openGate(3)
	sid := vs[2].Sessions[0].ID
	h.advanceTo(t0.Add(5 * time.Second))
	gf.until(probeFailed(1))
	// A new subscriber sees the current probe time, not the one written at park time.
	res, sub, err := h.svc.SubscribeSession(h.ctx, SubscribeRequest{SessionID: sid}, 100)
	require.NoError(t, err)
	defer sub.Close()
	var notice *store.Message
	for i := range res.Messages {
		if res.Messages[i].Role == "status" {
			notice = &res.Messages[i]
		}
	}
	require.NotNil(t, notice)
	assert.Contains(t, notice.Text, "next check in 10s (3 sessions waiting)")
	assert.Equal(t, t0.Add(15*time.Second).UTC().Format(time.RFC3339Nano), notice.Metadata["retry_at"])
}

func TestUnwatchedNoticesAreNotRewrittenOnEveryProbe(t *testing.T) {
	h := newHarness(t)
	gf := h.gates()
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(4)
	h.advanceTo(t0.Add(5 * time.Second))
	gf.until(probeFailed(1))
	for i, v := range vs {
		h.settled(v.Sessions[0].ID, fs[i])
	}
	// A restart drops every subscriber (and waits for the service's work).
	h.stop()
	h.start()
	gf = h.gates()
	require.NoError(t, h.svc.Start(h.ctx))
	before := map[string]int64{}
	for _, v := range vs {
		sess, err := h.db.GetSession(h.ctx, v.Sessions[0].ID)
		require.NoError(t, err)
		before[sess.ID] = sess.LastSeq
	}
	h.advanceTo(t0.Add(15 * time.Second))
	gf.until(probeFailed(2))
	reqs, err := mockagent.WallRequests(h.stateDir)
	require.NoError(t, err)
	probeTask := reqs[len(reqs)-1].Task
	h.stop() // waits for every goroutine the service started
	for _, v := range vs {
		if v.ID == probeTask {
			continue
		}
		sess, err := h.db.GetSession(h.ctx, v.Sessions[0].ID)
		require.NoError(t, err)
		assert.Equal(t, before[sess.ID], sess.LastSeq, "a waiting session nobody watches is not written on a probe")
	}
}

// A waiting-count change inside the coalescing second still reaches clients
// once the second is up, so a panel never shows a stale count.
func TestGateCountChangeIsPublishedAfterCoalescing(t *testing.T) {
	h := newHarness(t)
	g := h.gates()
	h.openGate(3)
	opened := g.until(func(gi GateInfo) bool { return gi.State == overload.Open })
	h.parkOne(3) // joins the open gate within the same second
	h.advanceTo(h.clock.Now().Add(gatePublishEvery))
	got := g.until(func(gi GateInfo) bool { return gi.Waiting > opened.Waiting })
	assert.Equal(t, opened.Waiting+1, got.Waiting)
}
