package realagent

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// gateConfig keeps the gate test short without changing the gate's shape:
// three sessions open it, the first probe 1s after it opens, then one probe
// every 2s for one waiting session — 1s with three waiting, the floor.
const gateConfig = `overload:
  threshold: 3
  window: 60s
  first_probe: 1s
  backoff: [2s]
  min_probe_interval: 1s
  release_window: 2s
`

const (
	gateKeyClaude    = "claude" // the agent's own gate: Claude Code's 529 line names no model
	gateFirstProbe   = time.Second
	gateMinProbeGap  = time.Second
	gateWait         = 2 * time.Minute // three agent starts on a loaded machine, then a probe or two
	probeAnsweredMsg = "overload gate probe answered; closing the gate before its turn ends"
	// gateReply is longer than the 40 bytes of reply text that prove a
	// probe answered (internal/orchestrator/gate_probe.go), so the gate can
	// close at the probe's first output rather than at the end of its turn.
	gateReply = "Done: the bug is fixed and the tests pass again."
)

// gatePrompts: one session each; no prompt contains another.
var gatePrompts = []string{"fix the bug in alpha.go", "fix the bug in beta.go", "fix the bug in gamma.go"}

// gateInfo is one gate of gate.list / gate.updated, the fields read here.
type gateInfo struct {
	Key            string     `json:"key"`
	State          string     `json:"state"`
	OpenedAt       *time.Time `json:"opened_at"`
	NextProbeAt    *time.Time `json:"next_probe_at"`
	Probing        bool       `json:"probing"`
	FailedProbes   int        `json:"failed_probes"`
	ProbesSent     int        `json:"probes_sent"`
	Waiting        int        `json:"waiting"`
	RecentFailures int        `json:"recent_failures"`
}

func (g gateInfo) String() string {
	opened := "-"
	if g.OpenedAt != nil {
		opened = g.OpenedAt.Format("15:04:05.000")
	}
	return fmt.Sprintf("%s: %s (opened %s, probing %v, probes sent %d, failed %d, waiting %d, recent failures %d)",
		g.Key, g.State, opened, g.Probing, g.ProbesSent, g.FailedProbes, g.Waiting, g.RecentFailures)
}

// gateState asks gate.list for the gate of key; ok is false while it does
// not exist yet.
func gateState(t *testing.T, c *daemontest.Client, key string) (gateInfo, bool, []gateInfo) {
	t.Helper()
	var l struct {
		Enabled bool       `json:"enabled"`
		Gates   []gateInfo `json:"gates"`
	}
	require.NoError(t, json.Unmarshal(c.Call("gate.list", map[string]any{}), &l))
	require.True(t, l.Enabled, "the overload gate is on")
	for _, g := range l.Gates {
		if g.Key == key {
			return g, true, l.Gates
		}
	}
	return gateInfo{}, false, l.Gates
}

// waitGate polls gate.list until the gate of key matches; seen is called on
// every answer (the gate's history as this client saw it).
func waitGate(t *testing.T, c *daemontest.Client, key string, timeout time.Duration, what string,
	match func(gateInfo) bool, seen func(gateInfo)) gateInfo {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last []gateInfo
	for time.Now().Before(deadline) {
		g, ok, all := gateState(t, c, key)
		last = all
		if ok {
			if seen != nil {
				seen(g)
			}
			if match(g) {
				return g
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for the gate %q to be %s; gates: %v", timeout, key, what, last)
	return gateInfo{}
}

// TestRealAgentGateRidesOutAWall: three sessions meet a provider that
// answers every turn with 529 until the test lowers its wall. The gate of
// "claude" opens, probes one session at a time (at least one probe fails),
// and when the wall is down the next probe's answer closes it and releases
// the others. Every session ends its turn with end_turn, without a banner,
// with its prompt once in the chat and once in what the model saw; while
// the gate was open, the provider's turn requests came one probe at a time,
// at least min_probe_interval apart.
func TestRealAgentGateRidesOutAWall(t *testing.T) {
	requireAgent(t)
	t.Parallel()
	p := newProvider(t, gateReply)
	p.wall.Store(true)
	d := startWithAgent(t, p, false, gateConfig)
	admin := daemontest.Dial(t, d)

	prompts := gatePrompts
	sessions := make([]*daemontest.Session, len(prompts))
	for i, pr := range prompts {
		// One client per session: Session.Next drops the events of other sessions.
		sessions[i] = daemontest.CreateTask(t, daemontest.Dial(t, d), map[string]any{"prompt": pr, "agent": "claude"})
	}
	t.Cleanup(func() { reportGate(t, d, p, sessions) })

	// The wall stays up until the gate is open and a probe has failed.
	var firstSeenOpen time.Time
	trace := func(g gateInfo) {
		if g.State == "open" && firstSeenOpen.IsZero() {
			firstSeenOpen = time.Now()
			t.Logf("gate seen open at %s: %s", firstSeenOpen.Format("15:04:05.000"), g)
		}
	}
	open := waitGate(t, admin, gateKeyClaude, gateWait, "open with a failed probe",
		func(g gateInfo) bool { return g.State == "open" && g.FailedProbes >= 1 }, trace)
	require.NotNil(t, open.OpenedAt, "an open gate has opened_at")
	openedAt := *open.OpenedAt
	p.wall.Store(false)
	wallDown := time.Now()
	t.Logf("wall lowered at %s (%s after the gate opened): %s", wallDown.Format("15:04:05.000"),
		wallDown.Sub(openedAt).Round(time.Millisecond), open)

	// Every session ends its turn, none with the recovery banner.
	for i, s := range sessions {
		e := s.Until(gateWait, func(e daemontest.Event) bool { return daemontest.TurnEnded(e) || daemontest.IsBanner(e) })
		if daemontest.IsBanner(e) {
			m := e.Body().Message
			t.Fatalf("session %d (%q) showed the recovery banner %q\n  reason=%v failure_code=%v class=%v rule_id=%v",
				i, prompts[i], m.Text, m.Metadata["reason"], m.Metadata["failure_code"], m.Metadata["class"], m.Metadata["rule_id"])
		}
		assert.Equal(t, "end_turn", e.Body().StopReason, "session %d (%q) ends its turn", i, prompts[i])
		t.Logf("session %d (%q) ended its turn %s after the wall was lowered", i, prompts[i], e.At.Sub(wallDown).Round(time.Millisecond))
	}
	waited := 0
	for i, s := range sessions {
		var notices []string
		onGate := false
		for _, e := range s.Seen {
			assert.False(t, daemontest.IsBanner(e), "session %d shows no recovery banner: %s", i, e.Payload)
			if daemontest.IsNotice(e) {
				m := e.Body().Message
				if g, ok := m.Metadata["gate"].(map[string]any); ok && g["key"] == gateKeyClaude {
					onGate = true
				}
				if len(notices) == 0 || notices[len(notices)-1] != m.Text {
					notices = append(notices, m.Text)
				}
			}
		}
		if onGate {
			waited++
		}
		t.Logf("session %d (%q) notices: %q", i, prompts[i], notices)
		expectChat(t, s, prompts[i], gateReply)
	}
	// The session whose failure opened the gate waits on it at once; the
	// others usually do too, but one still on its own schedule may go
	// straight to the probe, or (late enough) after the gate closed.
	t.Logf("%d of %d sessions showed the gate's waiting notice", waited, len(sessions))
	assert.GreaterOrEqual(t, waited, 1, "the gate's waiting notice was shown")

	// The gate ends closed.
	waitGate(t, admin, gateKeyClaude, gateWait, "closed", func(g gateInfo) bool { return g.State == "closed" }, nil)

	// What the model saw: each prompt once in the last request of its session.
	turns := p.turns()
	for _, pr := range prompts {
		var last *providerRequest
		for i := range turns {
			if promptCopies(turns[i], pr) > 0 {
				last = &turns[i]
			}
		}
		if !assert.NotNil(t, last, "a request carried %q", pr) {
			continue
		}
		assert.Equal(t, 200, last.Status, "the last request of %q is answered", pr)
		assert.Equal(t, 1, promptCopies(*last, pr), "the model sees %q once, not a duplicate user turn", pr)
	}

	// One probe at a time while the gate was open: from its opening to the
	// probe that found the provider back (the first request answered after
	// the wall; the others were released only when it answered). A request
	// before opened_at + first_probe cannot be a probe: it is a retry that
	// was on its way when the gate opened.
	var probes []providerRequest
	for _, r := range turns {
		if r.At.Before(openedAt) {
			continue
		}
		if r.At.Before(openedAt.Add(gateFirstProbe)) {
			t.Logf("request at %s, %s after the gate opened: a retry already on its way, not a probe",
				r.At.Format("15:04:05.000"), r.At.Sub(openedAt).Round(time.Millisecond))
			continue
		}
		probes = append(probes, r)
		if r.Status == 200 {
			break
		}
	}
	require.NotEmpty(t, probes, "the gate probed")
	assert.Equal(t, 200, probes[len(probes)-1].Status, "a probe found the provider back")
	var gaps []string
	for i := 1; i < len(probes); i++ {
		gap := probes[i].At.Sub(probes[i-1].At)
		gaps = append(gaps, gap.Round(time.Millisecond).String())
		assert.GreaterOrEqual(t, gap, gateMinProbeGap-slack,
			"probe %d came %s after the previous one, closer than min_probe_interval", i, gap)
		assert.False(t, probes[i].At.Before(probes[i-1].Answered), "one probe at a time: probe %d went before %d was answered", i, i-1)
	}
	for _, r := range probes {
		if r.Status != 200 {
			assert.True(t, r.At.Before(wallDown), "a failed probe went before the wall was lowered")
		}
	}
	t.Logf("while the gate was open: %d provider requests (the last answered 200), spaced %v", len(probes), gaps)

	// Did the gate close at the probe's first output?
	answered := d.LogLines(probeAnsweredMsg)
	t.Logf("%q logged %d time(s): %v", probeAnsweredMsg, len(answered), answered)
	assert.Len(t, answered, 1, "the probe's reply closed the gate before its turn ended")
}

// reportGate logs the gate test's evidence: each session's failed runs, the
// daemon's gate decisions, and the provider's requests.
func reportGate(t *testing.T, d *daemontest.Daemon, p *provider, sessions []*daemontest.Session) {
	t.Helper()
	for i, s := range sessions {
		if s == nil {
			continue
		}
		xs := executions(t, d, s.ID)
		t.Logf("session %d (%s): %d failed execution(s)", i, s.ID, len(xs))
		if len(xs) > 0 {
			c := xs[0].Classification
			t.Logf("  first: code=%v class=%v rule_id=%v\n  evidence: %s", c["code"], c["class"], c["rule_id"], xs[0].RawEvidence)
		}
	}
	reportDaemon(t, d)
	for _, msg := range []string{"overload gate open", "overload gate probe", probeAnsweredMsg,
		"overload gate released its sessions", "overload gate closed"} {
		for _, l := range d.LogLines(msg) {
			t.Logf("daemon at %s: %s: gate=%v session_id=%v waiting=%v released=%v evidence=%v",
				logTime(l), msg, l["gate"], l["session_id"], l["waiting"], l["released"], l["evidence"])
		}
	}
	reportProvider(t, p)
	for i, r := range p.turns() {
		who, copies := "no session's prompt", 0
		if j := sessionOf(r); j >= 0 {
			who, copies = fmt.Sprintf("session %d", j), promptCopies(r, gatePrompts[j])
		}
		t.Logf("turn request %d at %s → %d: %s; prompt copies %d, continuation copies %d", i, r.At.Format("15:04:05.000"),
			r.Status, who, copies, promptCopies(r, "Please continue"))
	}
}

// sessionOf is the index of the gate test's session whose prompt the
// request carries, or -1.
func sessionOf(r providerRequest) int {
	for j, pr := range gatePrompts {
		if promptCopies(r, pr) > 0 {
			return j
		}
	}
	return -1
}

// logTime is a daemon log line's time (zap's ts, seconds since the epoch).
func logTime(l map[string]any) string {
	ts, ok := l["ts"].(float64)
	if !ok {
		return "?"
	}
	return time.Unix(0, int64(ts*float64(time.Second))).Format("15:04:05.000")
}
