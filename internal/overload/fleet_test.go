package overload

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// openFleetGate opens a fleet-mode gate (c's failure opens it) with c, a
// and b waiting, in that order.
func openFleetGate(t *testing.T, cfg Config) *Gate {
	t.Helper()
	g := New("claude", cfg, nil)
	g.SetFleet()
	require.Equal(t, Proceed, g.Failed("a", time.Time{}, at(0)))
	require.Equal(t, Proceed, g.Failed("b", time.Time{}, at(1*s)))
	require.Equal(t, Wait, g.Failed("c", time.Time{}, at(2*s)))
	require.Equal(t, Open, g.State())
	require.Equal(t, Wait, g.Due("a", time.Time{}, at(3*s)))
	require.Equal(t, Wait, g.Due("b", time.Time{}, at(3*s)))
	return g
}

func TestFleetGateProbesOnlyWithTheProbeRight(t *testing.T) {
	g := openFleetGate(t, perSession)
	require.False(t, g.Prober(), "a fleet gate starts without the probe right")
	_, wake := g.Wake()
	require.False(t, wake, "no probe timer without the right: the fleet's prober probes")
	require.Equal(t, Wait, g.Due("a", time.Time{}, at(10*s)), "due past the first probe, but another daemon probes")
	require.Equal(t, 3, g.Waiting())
	require.Empty(t, g.ProbeDue(at(10*s)))
	require.False(t, g.ProbeNow("a", at(10*s)))

	g.SetProber(true)
	w, ok := g.Wake()
	require.True(t, ok)
	require.Equal(t, at(7*s), w, "first probe 5s after opening")
	require.Equal(t, "c", g.ProbeDue(at(10*s)), "with the right, the oldest waiter probes")
	require.True(t, g.Snapshot().Prober)
}

func TestFleetGateStaysOpenWhenNobodyHereWaits(t *testing.T) {
	g := openFleetGate(t, perSession)
	for _, sid := range []string{"a", "b", "c"} {
		g.Leave(sid, at(3*s))
	}
	require.Equal(t, Open, g.State(), "others in the fleet may still wait: the owner closes it")
	require.True(t, g.Idle())
	require.Equal(t, Wait, g.Failed("d", time.Time{}, at(4*s)), "a new failure waits at once")
	require.Equal(t, []string{"d"}, released(g.Succeeded("", at(5*s))), "the fleet's gate closed: whoever waits here goes")
	require.Equal(t, Closed, g.State())
	require.False(t, g.Prober())

	// Outside fleet mode an idle gate closes, as before.
	own := New("claude", perSession, nil)
	for i, sid := range []string{"a", "b", "c"} {
		own.Failed(sid, time.Time{}, at(time.Duration(i)*s))
	}
	for _, sid := range []string{"a", "b", "c"} {
		own.Leave(sid, at(3*s))
	}
	require.Equal(t, Closed, own.State())
}

func TestFleetGateFollowsAndAdoptsTheFleetSchedule(t *testing.T) {
	g := New("claude", Config{}, nil)
	g.SetFleet()
	p := Persisted{Key: "claude", State: Open, OpenedAt: at(0), NextProbe: at(40 * s), FailedProbes: 3, ProbesSent: 4}
	require.True(t, g.Follow(p), "the fleet's gate is open: this daemon's gate opens too")
	require.Equal(t, Open, g.State())
	require.Equal(t, Wait, g.Failed("x", time.Time{}, at(20*s)), "a failure waits at once, not counted towards the threshold")
	next, ok := g.NextProbe()
	require.True(t, ok)
	require.Equal(t, at(40*s), next, "the notice shows the fleet's next probe")

	p.NextProbe, p.FailedProbes, p.ProbesSent = at(80*s), 4, 5
	rev := g.DurableRev()
	require.False(t, g.Follow(p))
	require.NotEqual(t, rev, g.DurableRev())
	next, _ = g.NextProbe()
	require.Equal(t, at(80*s), next)
	require.Equal(t, 1, g.Waiting(), "adopting a schedule keeps the waiters")

	// Taking over the right, the overdue probe goes at once.
	g.SetProber(true)
	require.Equal(t, "x", g.ProbeDue(at(90*s)))
	// After its failure the next probe follows the fleet's backoff (4
	// failed before: 60s for one waiting session).
	require.Equal(t, Wait, g.Failed("x", time.Time{}, at(91*s)))
	next, _ = g.NextProbe()
	require.Equal(t, at(91*s+60*s), next)

	// A gate of its own does not follow.
	own := New("claude", Config{}, nil)
	require.False(t, own.Follow(p))
	require.Equal(t, Closed, own.State())
}

func TestFleetGateCountsPeersInTheCadence(t *testing.T) {
	g := openFleetGate(t, Config{}) // default cadence: 5s, then 10s … ÷ waiting, at least 2s
	g.SetProber(true)
	require.Equal(t, "c", g.ProbeDue(at(7*s)))
	require.Equal(t, Wait, g.Failed("c", time.Time{}, at(8*s)))
	next, _ := g.NextProbe()
	require.Equal(t, at(8*s+10*s/3), next, "3 waiting here: 10s ÷ 3")

	require.Equal(t, "a", g.ProbeDue(next))
	g.SetPeers(297) // 300 waiting in the fleet
	require.Equal(t, 297, g.Snapshot().PeersWaiting)
	require.Equal(t, Wait, g.Failed("a", time.Time{}, next.Add(time.Second)))
	n2, _ := g.NextProbe()
	require.Equal(t, next.Add(time.Second+2*s), n2, "300 waiting in the fleet: the 2s floor")
}

func TestFleetGateReleasesAtTheFleetsRate(t *testing.T) {
	// 300 wait here and 600 on two other daemons. The stagger protects the
	// provider, so the fleet's 900 go at ReleaseRate (1000/s): 0.9s, each
	// daemon's over the whole of it, not 300 per daemon over 0.4s.
	g := New("claude", Config{}, nil)
	g.SetFleet()
	require.True(t, g.Follow(Persisted{Key: "claude", State: Open, OpenedAt: at(0), NextProbe: at(5 * s)}))
	for i := range 300 {
		require.Equal(t, Wait, g.Failed(fmt.Sprint("s", i), time.Time{}, at(s)))
	}
	g.SetPeers(600)
	rel := g.Succeeded("", at(10*s))
	require.Len(t, rel, 300)
	last := rel[len(rel)-1].At.Sub(at(10 * s))
	require.Greater(t, last, 800*time.Millisecond, "the fleet's 900 over 0.9s: this daemon's last near its end")
	require.Less(t, last, 900*time.Millisecond)
	require.Equal(t, 300*time.Millisecond, rel[100].At.Sub(at(10*s)), "evenly over the fleet's window, in queue order")

	// A daemon alone (no peers) keeps its own rate: 300 at 1000/s over the 400ms floor.
	own := New("claude", Config{}, nil)
	own.SetFleet()
	own.Follow(Persisted{Key: "claude", State: Open, OpenedAt: at(0), NextProbe: at(5 * s)})
	for i := range 300 {
		own.Failed(fmt.Sprint("s", i), time.Time{}, at(s))
	}
	rel = own.Succeeded("", at(10*s))
	require.Less(t, rel[len(rel)-1].At.Sub(at(10*s)), 400*time.Millisecond)
}

func released(rs []Release) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Session)
	}
	return out
}

func TestFleetGateRejoinKeepsTheWaitersPlace(t *testing.T) {
	g := openFleetGate(t, perSession) // c (since 2s), a, b (since 3s)
	// d waited since 2.5s on a daemon that died: it goes between c and a.
	require.Equal(t, Wait, g.Rejoin(Waiter{Session: "d", Since: at(2*s + s/2), Deadline: at(time.Hour)}, at(20*s)))
	require.Equal(t, 4, g.Waiting())
	w, ok := g.Waiter("d")
	require.True(t, ok)
	require.Equal(t, at(2*s+s/2), w.Since, "its wait goes on from when it began")
	require.Equal(t, at(time.Hour), w.Deadline, "and its deadline is its chain's")
	require.Equal(t, Wait, g.Rejoin(Waiter{Session: "d", Since: at(30 * s), Deadline: at(time.Hour)}, at(20*s)), "once")
	require.Equal(t, Expired, g.Rejoin(Waiter{Session: "e", Since: at(0), Deadline: at(10 * s)}, at(20*s)), "past its deadline")
	require.Equal(t, []string{"c", "d", "a", "b"}, released(g.Succeeded("", at(21*s))), "released with the others, in order")
	require.Equal(t, Proceed, g.Rejoin(Waiter{Session: "f", Since: at(0), Deadline: at(time.Hour)}, at(22*s)), "the gate closed meanwhile: it goes")
}
