package overload

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// perSession probes on the per-session schedule whatever the number of
// waiters (MinProbeInterval above every step), to test the backoff itself.
var perSession = Config{MinProbeInterval: time.Hour}

func at(d time.Duration) time.Time { return t0.Add(d) }

const s = time.Second

// step is one input to a gate and what must come out of it.
type step struct {
	op      string // failed, due, probe-due, succeeded, leave, expire
	session string
	at      time.Duration
	// Expectations; zero values are not checked unless noted.
	verdict  Verdict
	probe    string        // probe-due: the session picked ("-" means none)
	released []string      // succeeded: sessions released, in order
	expired  *bool         // expire
	state    State         // after the step
	wake     time.Duration // after the step: Wake() at t0+wake; -1 means no wake
	waiting  int           // after the step; -1 means zero
	deadline time.Duration // failed/due: the chain deadline, relative to t0 (0: none)
}

func yes() *bool { v := true; return &v }
func no() *bool  { v := false; return &v }

func run(t *testing.T, g *Gate, steps []step) {
	t.Helper()
	for i, st := range steps {
		name := fmt.Sprintf("step %d (%s %s @%s)", i, st.op, st.session, st.at)
		now := at(st.at)
		var deadline time.Time
		if st.deadline != 0 {
			deadline = at(st.deadline)
		}
		switch st.op {
		case "failed":
			v := g.Failed(st.session, deadline, now)
			if st.verdict != 0 {
				require.Equal(t, st.verdict, v, name)
			}
		case "due":
			v := g.Due(st.session, deadline, now)
			if st.verdict != 0 {
				require.Equal(t, st.verdict, v, name)
			}
		case "probe-due":
			got := g.ProbeDue(now)
			if st.probe == "-" {
				require.Empty(t, got, name)
			} else if st.probe != "" {
				require.Equal(t, st.probe, got, name)
			}
		case "succeeded":
			rel := g.Succeeded(st.session, now)
			var ids []string
			for _, r := range rel {
				ids = append(ids, r.Session)
				require.False(t, r.At.Before(now), name)
				require.True(t, r.At.Before(now.Add(g.Config().ReleaseWindow)), name)
			}
			require.Equal(t, st.released, ids, name)
		case "leave":
			g.Leave(st.session, now)
		case "expire":
			got := g.Expire(st.session, now)
			if st.expired != nil {
				require.Equal(t, *st.expired, got, name)
			}
		default:
			t.Fatalf("unknown op %q", st.op)
		}
		if st.state != "" {
			require.Equal(t, st.state, g.State(), name)
		}
		switch {
		case st.wake == -1:
			_, ok := g.Wake()
			require.False(t, ok, name+": no wake expected")
		case st.wake != 0:
			w, ok := g.Wake()
			require.True(t, ok, name+": a wake expected")
			require.Equal(t, at(st.wake), w, name)
		}
		switch {
		case st.waiting == -1:
			require.Zero(t, g.Waiting(), name)
		case st.waiting != 0:
			require.Equal(t, st.waiting, g.Waiting(), name)
		}
	}
}

func TestGate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{"opens at the threshold of distinct sessions", Config{}, []step{
			{op: "failed", session: "a", verdict: Proceed, state: Closed, wake: -1},
			{op: "failed", session: "a", at: 1 * s, verdict: Proceed, state: Closed}, // the same session counts once
			{op: "failed", session: "b", at: 2 * s, verdict: Proceed, state: Closed},
			{op: "failed", session: "c", at: 3 * s, verdict: Wait, state: Open, wake: 8 * s, waiting: 1},
		}},
		{"failures outside the window do not count", Config{}, []step{
			{op: "failed", session: "a", verdict: Proceed},
			{op: "failed", session: "b", at: 10 * s, verdict: Proceed},
			{op: "failed", session: "c", at: 30 * s, verdict: Proceed, state: Closed}, // a is 30s old: gone
			{op: "failed", session: "d", at: 31 * s, verdict: Wait, state: Open},
		}},
		{"a success while closed resets the count", Config{}, []step{
			{op: "failed", session: "a", verdict: Proceed},
			{op: "failed", session: "b", verdict: Proceed},
			{op: "succeeded", session: "x", at: 1 * s, state: Closed},
			{op: "failed", session: "c", at: 2 * s, verdict: Proceed, state: Closed},
		}},
		{"configurable threshold", Config{Threshold: 2, Window: 5 * s}, []step{
			{op: "failed", session: "a", verdict: Proceed},
			{op: "failed", session: "b", at: 5 * s, verdict: Proceed}, // window is 5s
			{op: "failed", session: "c", at: 6 * s, verdict: Wait, state: Open},
		}},
		{"one probe at a time; others wait", Config{}, []step{
			{op: "failed", session: "a", verdict: Proceed},
			{op: "failed", session: "b", verdict: Proceed},
			{op: "failed", session: "c", verdict: Wait, wake: 5 * s, waiting: 1},
			{op: "due", session: "a", at: 4 * s, verdict: Wait, waiting: 2},                 // before the first probe
			{op: "due", session: "b", at: 5 * s, verdict: Probe, wake: 125 * s, waiting: 2}, // wake: the probe's timeout
			{op: "due", session: "d", at: 5 * s, verdict: Wait, waiting: 3},
			{op: "probe-due", at: 5 * s, probe: "-"}, // the slot is taken
			{op: "failed", session: "e", at: 6 * s, verdict: Wait, waiting: 4},
		}},
		{"the timer picks the longest waiter", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c", verdict: Wait},
			{op: "due", session: "a", at: 1 * s, verdict: Wait},
			{op: "probe-due", at: 4 * s, probe: "-"}, // early
			{op: "probe-due", at: 5 * s, probe: "c", wake: 125 * s, waiting: 1},
		}},
		{"failed probes back off 10/20/40/60/60 and rotate", perSession, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s}, {op: "due", session: "b", at: 1 * s},
			{op: "probe-due", at: 5 * s, probe: "c"},
			{op: "failed", session: "c", at: 6 * s, verdict: Wait, wake: 16 * s, waiting: 3},
			{op: "probe-due", at: 16 * s, probe: "a"},
			{op: "failed", session: "a", at: 16 * s, verdict: Wait, wake: 36 * s},
			{op: "probe-due", at: 36 * s, probe: "b"},
			{op: "failed", session: "b", at: 36 * s, verdict: Wait, wake: 76 * s},
			{op: "probe-due", at: 76 * s, probe: "c"},
			{op: "failed", session: "c", at: 76 * s, verdict: Wait, wake: 136 * s},
			{op: "probe-due", at: 136 * s, probe: "a"},
			{op: "failed", session: "a", at: 136 * s, verdict: Wait, wake: 196 * s},
			{op: "probe-due", at: 196 * s, probe: "b"},
			{op: "failed", session: "b", at: 196 * s, verdict: Wait, wake: 256 * s, state: Open, waiting: 3},
		}},
		{"a successful probe releases every waiter in queue order", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s}, {op: "due", session: "b", at: 2 * s},
			{op: "probe-due", at: 5 * s, probe: "c"},
			{op: "succeeded", session: "c", at: 7 * s, released: []string{"a", "b"}, state: Closed, wake: -1, waiting: -1},
			{op: "due", session: "a", at: 8 * s, verdict: Proceed},
		}},
		{"any success on the key closes an open gate", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s},
			{op: "succeeded", session: "new-prompt", at: 2 * s, released: []string{"c", "a"}, state: Closed},
		}},
		{"deadline ends the wait", Config{Deadline: 60 * s}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s, verdict: Wait},
			{op: "expire", session: "c", at: 59 * s, expired: no()},
			{op: "expire", session: "c", at: 60 * s, expired: yes(), waiting: 1, state: Open},
			{op: "expire", session: "a", at: 61 * s, expired: yes(), state: Closed}, // nobody left: closes
		}},
		{"a chain deadline is carried across gates", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"},
			{op: "failed", session: "c", deadline: 3 * s, verdict: Wait},
			{op: "due", session: "b", at: 3 * s, deadline: 3 * s, verdict: Expired, state: Open},
			{op: "due", session: "c", at: 3 * s, verdict: Expired, state: Closed},
		}},
		{"a probe past its deadline expires when it fails", Config{Deadline: 10 * s}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 5 * s, deadline: 10 * s, verdict: Probe},
			{op: "expire", session: "a", at: 11 * s, expired: no()},
			{op: "failed", session: "a", at: 11 * s, verdict: Expired, state: Open, waiting: 1},
		}},
		{"leaving: waiters, then the probe, then idle close", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s}, {op: "due", session: "b", at: 2 * s},
			{op: "leave", session: "a", at: 3 * s, waiting: 2},
			{op: "probe-due", at: 5 * s, probe: "c"},
			{op: "leave", session: "c", at: 6 * s, wake: 11 * s, waiting: 1, state: Open}, // slot freed one interval later
			{op: "leave", session: "b", at: 7 * s, state: Closed, wake: -1},
		}},
		{"an open gate with nobody left closes on its timer", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 5 * s, verdict: Probe},
			{op: "leave", session: "c", at: 5 * s, state: Open},
			{op: "failed", session: "a", at: 6 * s, verdict: Wait, wake: 16 * s},
			{op: "leave", session: "a", at: 7 * s, state: Closed},
			{op: "probe-due", at: 16 * s, probe: "-", state: Closed},
		}},
		{"a hung probe gives up the slot after ProbeTimeout", Config{ProbeTimeout: 30 * s}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s},
			{op: "probe-due", at: 5 * s, probe: "c", wake: 35 * s}, // the wake is the timeout, not a next probe (NextProbe)
			{op: "probe-due", at: 34 * s, probe: "-"},
			{op: "probe-due", at: 35 * s, probe: "a", wake: 65 * s, waiting: -1, state: Open},
			// The hung turn ends at last: a failure waits again, not as the probe.
			{op: "failed", session: "c", at: 40 * s, verdict: Wait, waiting: 1, wake: 65 * s},
			{op: "succeeded", session: "a", at: 41 * s, released: []string{"c"}, state: Closed},
		}},
		{"many waiters probe more often, never more than every 2s", Config{}, []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"}, {op: "failed", session: "c"},
			{op: "due", session: "a", at: 1 * s}, {op: "due", session: "b", at: 1 * s}, {op: "due", session: "d", at: 1 * s},
			{op: "probe-due", at: 5 * s, probe: "c"},
			// 4 waiting (c again among them): 10s / 4 = 2.5s
			{op: "failed", session: "c", at: 6 * s, verdict: Wait, wake: 8500 * time.Millisecond, waiting: 4},
			{op: "due", session: "e", at: 7 * s}, {op: "due", session: "f", at: 7 * s},
			{op: "due", session: "g", at: 7 * s}, {op: "due", session: "h", at: 7 * s},
			{op: "due", session: "i", at: 7 * s}, {op: "due", session: "j", at: 7 * s, waiting: 10},
			{op: "probe-due", at: 8500 * time.Millisecond, probe: "a"},
			// 10 waiting: 20s / 10 = 2s, the floor
			{op: "failed", session: "a", at: 9 * s, verdict: Wait, wake: 11 * s, waiting: 10},
			{op: "probe-due", at: 11 * s, probe: "b"},
			// 10 waiting: 40s / 10 = 4s
			{op: "failed", session: "b", at: 11 * s, verdict: Wait, wake: 15 * s},
			{op: "leave", session: "c", at: 12 * s}, {op: "leave", session: "d", at: 12 * s},
			{op: "leave", session: "e", at: 12 * s}, {op: "leave", session: "f", at: 12 * s},
			{op: "leave", session: "g", at: 12 * s}, {op: "leave", session: "h", at: 12 * s},
			{op: "leave", session: "i", at: 12 * s}, {op: "leave", session: "j", at: 12 * s, waiting: 2},
			{op: "probe-due", at: 15 * s, probe: "a"},
			// 2 waiting: 60s / 2 = 30s
			{op: "failed", session: "a", at: 15 * s, verdict: Wait, wake: 45 * s},
		}},
		{"scale shrinks every interval", perSession.withScale(0.01), []step{
			{op: "failed", session: "a"}, {op: "failed", session: "b"},
			{op: "failed", session: "c", verdict: Wait, wake: 50 * time.Millisecond},
			{op: "probe-due", at: 50 * time.Millisecond, probe: "c"},
			{op: "failed", session: "c", at: 50 * time.Millisecond, verdict: Wait, wake: 150 * time.Millisecond},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run(t, New("claude", tc.cfg, nil), tc.steps)
		})
	}
}

func TestRevisions(t *testing.T) {
	g := New("k", Config{}, nil)
	r, d := g.Rev(), g.DurableRev()
	g.Failed("a", time.Time{}, t0)
	assert.Greater(t, g.Rev(), r, "a counted failure is visible")
	assert.Equal(t, d, g.DurableRev(), "but not durable")
	g.Failed("b", time.Time{}, t0)
	g.Failed("c", time.Time{}, t0)
	assert.Greater(t, g.DurableRev(), d, "opening is durable")
	d = g.DurableRev()
	g.Due("a", time.Time{}, t0.Add(time.Second))
	assert.Equal(t, d, g.DurableRev(), "a new waiter is not (it is kept with its session)")
}

func TestRestore(t *testing.T) {
	g := New("k", perSession, nil)
	for _, id := range []string{"a", "b", "c"} {
		g.Failed(id, time.Time{}, t0)
	}
	g.Due("a", time.Time{}, at(1*s))
	g.Due("b", time.Time{}, at(5*s)) // b probes
	g.Failed("b", time.Time{}, at(6*s))
	p := g.Persisted()
	require.Equal(t, Open, p.State)
	require.Equal(t, 1, p.FailedProbes)
	require.Equal(t, at(16*s), p.NextProbe)

	// After a restart at t0+60s: the probe is overdue, so the first waiter probes at once.
	ws := g.Waiters()
	slices.Reverse(ws)
	r := Restore(p, ws, perSession, nil)
	w, ok := r.Wake()
	require.True(t, ok)
	assert.Equal(t, at(16*s), w)
	assert.Equal(t, "c", r.ProbeDue(at(60*s)), "oldest waiter first")
	r.Failed("c", time.Time{}, at(61*s))
	w, _ = r.Wake()
	assert.Equal(t, at(81*s), w, "the backoff continues where it stood: 20s after the 2nd failure")

	assert.Equal(t, Closed, Restore(p, nil, Config{}, nil).State(), "nobody waiting: closed")
	p.State = Closed
	assert.Equal(t, Closed, Restore(p, ws, Config{}, nil).State())
}

func TestSpread(t *testing.T) {
	assert.Empty(t, Spread(0, 5*s, nil))
	assert.Equal(t, []time.Duration{0}, Spread(1, 5*s, nil))
	assert.Equal(t, []time.Duration{0, 2500 * time.Millisecond}, Spread(2, 5*s, nil))
	u := 0.999
	for _, n := range []int{2, 3, 10, 1000, 10000} {
		for _, rnd := range []func() float64{nil, func() float64 { return u }, func() float64 { return 0.5 }} {
			offs := Spread(n, 5*s, rnd)
			require.Len(t, offs, n)
			assert.True(t, slices.IsSorted(offs), "in queue order")
			assert.GreaterOrEqual(t, offs[0], time.Duration(0))
			assert.Less(t, offs[n-1], 5*s, "all within the window")
			assert.Greater(t, offs[n-1]-offs[0], 100*time.Millisecond, "never all in the same 100ms")
		}
	}
	bad := func() float64 { return 7 } // out of range: treated as 0
	assert.Equal(t, Spread(3, 3*s, nil), Spread(3, 3*s, bad))
}

func TestSucceededSpreadsReleasesWithJitter(t *testing.T) {
	vals := []float64{0.9, 0.1, 0.5, 0.3}
	i := 0
	g := New("k", Config{ReleaseRate: 2}, func() float64 { v := vals[i%len(vals)]; i++; return v })
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		g.Failed(id, time.Time{}, t0)
	}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		g.Due(id, time.Time{}, t0)
	}
	require.Equal(t, 5, g.Waiting())
	rel := g.Succeeded("x", at(100*s))
	require.Len(t, rel, 5)
	slot := time.Second / 2 // 5 sessions at 2/s
	for k, r := range rel {
		off := r.At.Sub(at(100 * s))
		assert.GreaterOrEqual(t, off, time.Duration(k)*slot)
		assert.Less(t, off, time.Duration(k)*slot+slot/2, "jitter stays in the first half of the slot")
		assert.Equal(t, t0, r.Since)
	}
}

// A few released sessions go within 400ms; many at ReleaseRate; never
// beyond ReleaseWindow.
func TestReleaseWindowFor(t *testing.T) {
	d := Config{}.WithDefaults()
	assert.Equal(t, 400*time.Millisecond, d.ReleaseWindowFor(3))
	assert.Equal(t, time.Second, d.ReleaseWindowFor(1000))
	assert.Equal(t, 2500*time.Millisecond, d.ReleaseWindowFor(2500))
	assert.Equal(t, 4500*time.Millisecond, d.ReleaseWindowFor(10000), "a tenth of the window is left for the last one to start")
	sc := Config{Scale: 0.1}.WithDefaults()
	assert.Equal(t, 40*time.Millisecond, sc.ReleaseWindowFor(3))
	assert.Equal(t, 100*time.Millisecond, sc.ReleaseWindowFor(1000), "the rate scales with time")
	assert.Equal(t, 450*time.Millisecond, sc.ReleaseWindowFor(10000))
}

func TestConfig(t *testing.T) {
	d := Config{}.WithDefaults()
	assert.Equal(t, 3, d.Threshold)
	assert.Equal(t, 30*s, d.Window)
	assert.Equal(t, 5*s, d.FirstProbe)
	assert.Equal(t, DefaultBackoff, d.Backoff)
	assert.Equal(t, 5*s, d.ReleaseWindow)
	assert.Equal(t, 30*time.Minute, d.Deadline)
	assert.Equal(t, 2*s, d.MinProbeInterval)
	assert.Equal(t, 1000.0, d.ReleaseRate)

	sc := Config{Scale: 0.5, Backoff: []time.Duration{2 * s, 4 * s}}.WithDefaults()
	assert.Equal(t, []time.Duration{s, 2 * s}, sc.Backoff)
	assert.Equal(t, 15*time.Minute, sc.Deadline)
	assert.Equal(t, 1.0, sc.Scale)

	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{Config{Threshold: -1}, "Threshold"},
		{Config{Window: -1}, "Window"},
		{Config{Deadline: -s}, "Deadline"},
		{Config{Backoff: []time.Duration{s, 0}}, "Backoff[1]"},
		{Config{Scale: -2}, "Scale"},
		{Config{MinProbeInterval: -s}, "MinProbeInterval"},
		{Config{ReleaseRate: -1}, "ReleaseRate"},
	} {
		err := tc.cfg.Validate()
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, tc.field, ce.Field)
	}
	assert.NoError(t, Config{Threshold: 5, Window: time.Minute, Deadline: 2 * time.Hour}.Validate())
}

func TestGated(t *testing.T) {
	for code, want := range map[string]bool{
		"overloaded": true, "capacity": true, "unavailable": true, "server_error": true,
		"rate_limited": false, "network": false, "transport_lost": false, "quota": false,
		"auth": false, "in_progress": false, "unknown": false, "": false,
	} {
		assert.Equal(t, want, Gated(code), code)
	}
	assert.Equal(t, "claude", Key("claude", ""))
	assert.Equal(t, "claude/opus", Key("claude", "opus"))
}

func (c Config) withScale(f float64) Config { c.Scale = f; return c }

// While a probe is in flight there is no next probe time to show: the next
// one depends on its answer (the timer wakes only for its timeout).
func TestNextProbeIsUnknownWhileProbing(t *testing.T) {
	g := New("k", Config{}, nil)
	for _, id := range []string{"a", "b", "c"} {
		g.Failed(id, time.Time{}, t0)
	}
	next, ok := g.NextProbe()
	require.True(t, ok)
	assert.Equal(t, at(5*s), next)
	require.Equal(t, "c", g.ProbeDue(at(5*s)))
	_, ok = g.NextProbe()
	assert.False(t, ok, "probing")
	wake, ok := g.Wake()
	require.True(t, ok)
	assert.Equal(t, at(5*s+DefaultProbeTimeout), wake, "the timer still wakes for the timeout")
}

// Retry now on a waiting session: it becomes the probe at once when the
// slot is free, and not while another probe is in flight.
func TestProbeNow(t *testing.T) {
	g := New("claude", Config{Threshold: 1}, nil)
	require.Equal(t, Wait, g.Failed("a", time.Time{}, at(0)))
	require.Equal(t, Wait, g.Failed("b", time.Time{}, at(0)))
	require.False(t, g.ProbeNow("nobody", at(time.Second)), "not waiting")
	require.True(t, g.ProbeNow("b", at(time.Second)), "before its next probe is due")
	require.True(t, g.IsProbe("b"))
	require.Equal(t, 1, g.Waiting())
	require.False(t, g.ProbeNow("a", at(2*time.Second)), "a probe is in flight")
	rel := g.Succeeded("b", at(3*time.Second))
	require.Len(t, rel, 1)
	require.Equal(t, "a", rel[0].Session)
	require.False(t, g.ProbeNow("a", at(4*time.Second)), "closed")
}
