package overload

// A gate in a fleet (issue 17). Several daemons share one database, and
// the gate of a key is one for all of them: its state (open since when,
// the probe schedule) lives in the database, one daemon at a time holds
// the right to probe, and every daemon's sessions wait while it is open.
// Each daemon still keeps a Gate per key for its own sessions — their
// queue, deadlines and release — and its owner keeps it in step with the
// fleet's:
//
//   - SetFleet puts the gate in fleet mode: it probes only while it holds
//     the probe right (SetProber), and it does not close by itself when
//     nobody here waits any more, since others in the fleet may: the
//     owner closes it (Succeeded) when the fleet's gate closed or when
//     nobody in the fleet waits.
//   - Follow opens the gate because the fleet's is open (opened on
//     another daemon), so this daemon's failing sessions wait at once
//     instead of counting towards the threshold and retrying on their own.
//   - Adopt takes the fleet's probe schedule: the prober's, written after
//     each probe, shown in the waiting notices, and taken over by a
//     daemon that becomes the prober.
//   - SetPeers counts the sessions waiting on other daemons in the probe
//     cadence: n waiting in the whole fleet probe n times as often.
//
// The pure contract is unchanged: no clock, no I/O, the owner serialises.

import "time"

// SetFleet puts the gate in fleet mode (see above); it starts without the
// probe right. A gate not in fleet mode is its daemon's own, as before.
func (g *Gate) SetFleet() {
	if g.fleet {
		return
	}
	g.fleet, g.prober = true, false
	g.changed(false)
}

// Fleet reports whether the gate is in fleet mode.
func (g *Gate) Fleet() bool { return g.fleet }

// SetProber grants (true) or takes away (false) the right to probe. Only
// the prober starts probes; a probe in flight when the right goes keeps
// going and still answers for the gate. Outside fleet mode the gate is
// always its own prober and this does nothing.
func (g *Gate) SetProber(on bool) {
	if !g.fleet || g.prober == on {
		return
	}
	g.prober = on
	g.changed(true)
}

// Prober reports whether this gate may start probes.
func (g *Gate) Prober() bool { return !g.fleet || g.prober }

// SetPeers sets how many sessions wait on this gate's key on other
// daemons; they count in the probe interval like the ones waiting here.
func (g *Gate) SetPeers(n int) {
	n = max(n, 0)
	if g.peers == n {
		return
	}
	g.peers = n
	g.changed(false)
}

// Peers is the number of sessions waiting on other daemons (SetPeers).
func (g *Gate) Peers() int { return g.peers }

// Follow opens a closed gate in fleet mode because the fleet's gate is
// open, with the fleet's schedule; an open one adopts it. It returns
// whether the gate opened. A gate not in fleet mode is left alone.
func (g *Gate) Follow(p Persisted) bool {
	if !g.fleet {
		return false
	}
	if g.state == Open {
		g.Adopt(p)
		return false
	}
	g.state = Open
	g.openedAt, g.nextProbe = p.OpenedAt, p.NextProbe
	g.failedProbes, g.probesSent = p.FailedProbes, p.ProbesSent
	clear(g.recent)
	g.changed(true)
	return true
}

// Adopt takes the fleet's opening time and probe schedule (next probe,
// failed probes, probes sent) on an open gate; its waiters stay as they
// are.
func (g *Gate) Adopt(p Persisted) {
	if g.state != Open {
		return
	}
	if g.openedAt.Equal(p.OpenedAt) && g.nextProbe.Equal(p.NextProbe) &&
		g.failedProbes == p.FailedProbes && g.probesSent == p.ProbesSent {
		return
	}
	g.openedAt, g.nextProbe = p.OpenedAt, p.NextProbe
	g.failedProbes, g.probesSent = p.FailedProbes, p.ProbesSent
	g.changed(true)
}

// Idle reports an open gate with nobody waiting here and no probe in
// flight: outside fleet mode it would have closed; in fleet mode it stays
// open while others in the fleet wait.
func (g *Gate) Idle() bool {
	return g.state == Open && g.probe == nil && g.queue.Len() == 0
}

// Rejoin puts back in the queue a session that waited on this key on
// another daemon of the fleet — one that died, whose session this daemon
// took over — with its own Since and Deadline, in its place by Since: it
// waits (Wait) with this daemon's other waiters, probes only when the
// gate picks it, and is released with them. Past its deadline it stops
// (Expired). A gate that is not open (the fleet's closed meanwhile)
// answers Proceed: the session goes. A session already here stays as it is.
func (g *Gate) Rejoin(w Waiter, now time.Time) Verdict {
	if g.state != Open {
		return Proceed
	}
	if !now.Before(w.Deadline) {
		g.remove(w.Session)
		return Expired
	}
	if _, ok := g.waiting[w.Session]; ok || g.probe != nil && g.probe.Session == w.Session {
		return Wait
	}
	e := g.queue.Back()
	for e != nil && w.Since.Before(e.Value.(*Waiter).Since) {
		e = e.Prev()
	}
	if e == nil {
		g.waiting[w.Session] = g.queue.PushFront(&w)
	} else {
		g.waiting[w.Session] = g.queue.InsertAfter(&w, e)
	}
	g.changed(false)
	return Wait
}
