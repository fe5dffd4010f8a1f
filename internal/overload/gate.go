package overload

import (
	"container/list"
	"time"
)

// State of a gate.
type State string

const (
	// Closed: sessions retry on their own schedules; the gate counts failures.
	Closed State = "closed"
	// Open: one probe at a time; every other due session waits.
	Open State = "open"
)

// Verdict is what a session does after an input about it.
type Verdict int

const (
	// Proceed: the gate is closed; the session follows its own schedule.
	Proceed Verdict = iota + 1
	// Wait: the session waits on the gate; it spends none of its own budget.
	Wait
	// Probe: the session goes now, as the gate's only probe.
	Probe
	// Expired: the session's deadline has passed; it stops waiting.
	Expired
)

func (v Verdict) String() string {
	switch v {
	case Proceed:
		return "proceed"
	case Wait:
		return "wait"
	case Probe:
		return "probe"
	case Expired:
		return "expired"
	}
	return "invalid"
}

// Waiter is a session waiting on (or probing for) a gate.
type Waiter struct {
	Session  string    `json:"session_id"`
	Since    time.Time `json:"since"`    // when it started waiting on this gate
	Deadline time.Time `json:"deadline"` // when its retry chain stops waiting
}

// Release tells the owner to let a waiting session go at At.
type Release struct {
	Session string
	At      time.Time
	Since   time.Time // when it started waiting (time to release = At - Since)
}

// Persisted is the part of a gate worth keeping across a restart; the
// waiters are kept with their sessions' pending retries.
type Persisted struct {
	Key          string
	State        State
	OpenedAt     time.Time
	NextProbe    time.Time
	FailedProbes int
	ProbesSent   int
}

// Snapshot is a gate as gate.list shows it.
type Snapshot struct {
	Key            string     `json:"key"`
	State          State      `json:"state"`
	OpenedAt       *time.Time `json:"opened_at,omitempty"`     // open gates
	NextProbeAt    *time.Time `json:"next_probe_at,omitempty"` // open, no probe in flight
	Probing        bool       `json:"probing"`                 // a probe is in flight
	ProbeSession   string     `json:"probe_session_id,omitempty"`
	FailedProbes   int        `json:"failed_probes"` // since the gate opened
	ProbesSent     int        `json:"probes_sent"`   // since the gate opened
	Waiting        int        `json:"waiting"`       // sessions waiting, the probe not included
	RecentFailures int        `json:"recent_failures"`
	// Fleet mode: sessions waiting on other daemons of the fleet, and
	// whether this daemon holds the probe right.
	PeersWaiting int  `json:"peers_waiting,omitempty"`
	Fleet        bool `json:"fleet,omitempty"`
	Prober       bool `json:"prober,omitempty"`
}

// Gate is the state machine of one provider key. Create it with New (or
// Restore); it starts closed.
type Gate struct {
	key  string
	cfg  Config // defaults applied
	rand func() float64

	state State
	// recent: closed gates only; the last failure of each session within Window.
	recent map[string]time.Time

	openedAt     time.Time
	nextProbe    time.Time // open: the earliest time of the next probe
	failedProbes int
	probesSent   int
	probe        *Waiter                  // the probe in flight; nil when none
	probeSince   time.Time                // when the probe in flight went
	queue        *list.List               // of *Waiter, in probe order (oldest first)
	waiting      map[string]*list.Element // session → its element of queue

	rev        uint64 // bumps on every observable change
	durableRev uint64 // bumps on every change of Persisted()

	// Fleet mode (fleet.go).
	fleet  bool // the key's gate is the fleet's: probe only as prober, never close when idle
	prober bool // fleet mode: this daemon holds the probe right
	peers  int  // fleet mode: sessions waiting on other daemons
}

// New returns a closed gate. cfg's zero values take their defaults; rand
// (u in [0,1)) jitters releases, nil means none.
func New(key string, cfg Config, rand func() float64) *Gate {
	return &Gate{
		key: key, cfg: cfg.WithDefaults(), rand: rand, state: Closed,
		recent: make(map[string]time.Time), queue: list.New(), waiting: make(map[string]*list.Element),
	}
}

// Restore rebuilds a gate after a restart from its persisted state and the
// sessions still waiting on it (in any order; they queue oldest first). A
// probe that was in flight is not restored: its session was interrupted. An
// open gate with nobody waiting closes; an overdue probe is due at once
// (Wake returns a time in the past), so the first due session probes.
func Restore(p Persisted, waiters []Waiter, cfg Config, rand func() float64) *Gate {
	g := New(p.Key, cfg, rand)
	if p.State != Open || len(waiters) == 0 {
		return g
	}
	g.state, g.openedAt, g.nextProbe = Open, p.OpenedAt, p.NextProbe
	g.failedProbes, g.probesSent = p.FailedProbes, p.ProbesSent
	sorted := append([]Waiter(nil), waiters...)
	sortWaiters(sorted)
	for _, w := range sorted {
		g.enqueue(w)
	}
	return g
}

func sortWaiters(ws []Waiter) {
	// Insertion sort: restarts are rare and lists are mostly sorted already.
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && (ws[j].Since.Before(ws[j-1].Since) ||
			ws[j].Since.Equal(ws[j-1].Since) && ws[j].Session < ws[j-1].Session); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// Key returns the gate's key.
func (g *Gate) Key() string { return g.key }

// State returns whether the gate is open.
func (g *Gate) State() State { return g.state }

// Rev changes whenever anything Snapshot shows changes.
func (g *Gate) Rev() uint64 { return g.rev }

// DurableRev changes whenever Persisted changes.
func (g *Gate) DurableRev() uint64 { return g.durableRev }

// Config returns the effective configuration, defaults and scale applied.
func (g *Gate) Config() Config { return g.cfg }

func (g *Gate) changed(durable bool) {
	g.rev++
	if durable {
		g.durableRev++
	}
}

// deadlineOf: a zero deadline starts a new chain at now.
func (g *Gate) deadlineOf(deadline, now time.Time) time.Time {
	if deadline.IsZero() {
		return now.Add(g.cfg.Deadline)
	}
	return deadline
}

// Failed records a gated failure of session (one the retry policy would
// retry, or has just run out of budget for). On a closed gate it counts
// towards opening it: Proceed, unless this failure opens the gate (Wait).
// On an open gate the session waits (Wait), the failed probe included, which
// backs the gate off; past its deadline it stops (Expired). deadline is the
// session's chain deadline; zero means now + Config.Deadline.
func (g *Gate) Failed(session string, deadline, now time.Time) Verdict {
	if g.probe != nil && g.probe.Session == session {
		w := *g.probe
		g.probe = nil
		g.failedProbes++
		expired := !now.Before(w.Deadline)
		if !expired {
			g.enqueue(w)
		}
		g.nextProbe = now.Add(g.interval())
		g.changed(true)
		if expired {
			g.closeIfIdle()
			return Expired
		}
		return Wait
	}
	deadline = g.deadlineOf(deadline, now)
	if g.state == Open {
		return g.join(session, deadline, now)
	}
	for s, at := range g.recent {
		if now.Sub(at) >= g.cfg.Window {
			delete(g.recent, s)
		}
	}
	g.recent[session] = now
	g.changed(false)
	if len(g.recent) < g.cfg.Threshold {
		return Proceed
	}
	g.state, g.openedAt = Open, now
	g.failedProbes, g.probesSent = 0, 0
	g.nextProbe = now.Add(g.cfg.FirstProbe)
	clear(g.recent)
	g.changed(true)
	return g.join(session, deadline, now)
}

// Due asks whether session, whose own retry is due now, may go. Closed:
// Proceed. Open: the session becomes the probe when the probe slot is free
// and the next probe is due (Probe); otherwise it waits (Wait), or stops
// when its deadline has passed (Expired).
func (g *Gate) Due(session string, deadline, now time.Time) Verdict {
	if g.state != Open {
		return Proceed
	}
	if g.probe != nil && g.probe.Session == session {
		return Probe
	}
	w, queued := g.Waiter(session)
	if !queued {
		w = Waiter{Session: session, Since: now, Deadline: g.deadlineOf(deadline, now)}
	}
	if !now.Before(w.Deadline) {
		g.remove(session)
		g.closeIfIdle()
		return Expired
	}
	if g.probe == nil && g.Prober() && !now.Before(g.nextProbe) {
		g.remove(session)
		g.startProbe(w, now)
		return Probe
	}
	if queued {
		return Wait
	}
	return g.join(session, w.Deadline, now)
}

// ProbeDue is the gate's timer: when the probe slot is free and the next
// probe is due, the session that has waited longest becomes the probe and
// is returned; "" when there is nothing to do. A probe in flight for
// ProbeTimeout gives up the slot first (its turn goes on; if it fails it
// waits again, if it succeeds it closes the gate). An open gate that nobody
// waits on closes.
func (g *Gate) ProbeDue(now time.Time) string {
	if g.state == Open && g.probe != nil && !now.Before(g.probeSince.Add(g.cfg.ProbeTimeout)) {
		g.probe = nil
		g.nextProbe = now
		g.changed(true)
	}
	if g.state != Open || g.probe != nil || !g.Prober() || now.Before(g.nextProbe) {
		return ""
	}
	front := g.queue.Front()
	if front == nil {
		g.closeIfIdle()
		return ""
	}
	w := *front.Value.(*Waiter)
	g.remove(w.Session)
	g.startProbe(w, now)
	return w.Session
}

// ProbeNow makes a waiting session the probe at once, whatever the probe
// schedule says (a user pressed Retry now), when the probe slot is free;
// false when the gate is not open, the session does not wait on it, or
// another probe is in flight.
func (g *Gate) ProbeNow(session string, now time.Time) bool {
	if g.state != Open || g.probe != nil || !g.Prober() {
		return false
	}
	w, ok := g.waiting[session]
	if !ok {
		return false
	}
	waiter := *w.Value.(*Waiter)
	g.remove(session)
	g.startProbe(waiter, now)
	return true
}

// Succeeded records a successful turn on this key: proof that the provider
// answers. An open gate closes and every waiting session is released,
// spread over Config.ReleaseWindow in the order they queued; a closed gate
// forgets the failures it was counting. In fleet mode the spread is the
// fleet's: the other daemons release their Peers over the same window, so
// the provider sees every waiter of the fleet at ReleaseRate, not one
// rate per daemon.
func (g *Gate) Succeeded(session string, now time.Time) []Release {
	if g.state != Open {
		if len(g.recent) > 0 {
			clear(g.recent)
			g.changed(false)
		}
		return nil
	}
	g.probe = nil
	g.remove(session)
	n := g.queue.Len()
	offsets := Spread(n, g.cfg.ReleaseWindowFor(n+g.peers), g.rand)
	out := make([]Release, 0, n)
	for e := g.queue.Front(); e != nil; e = e.Next() {
		w := e.Value.(*Waiter)
		out = append(out, Release{Session: w.Session, At: now.Add(offsets[len(out)]), Since: w.Since})
	}
	g.close()
	return out
}

// Leave removes session from the gate: it was cancelled, superseded,
// stopped, or its probe ended without telling anything about the provider.
// A probe that leaves frees the slot; the next probe comes one interval
// later, so the gate never sends two probes within one interval. A gate
// left with nobody waiting and no probe closes.
func (g *Gate) Leave(session string, now time.Time) {
	switch {
	case g.probe != nil && g.probe.Session == session:
		g.probe = nil
		g.nextProbe = now.Add(g.interval())
		g.changed(true)
	case g.remove(session):
	default:
		if _, ok := g.recent[session]; ok {
			delete(g.recent, session)
			g.changed(false)
		}
		return
	}
	g.closeIfIdle()
}

// Expire ends session's wait when its deadline has passed and reports
// whether it did. A probe in flight is not expired here: its failure is.
func (g *Gate) Expire(session string, now time.Time) bool {
	w, ok := g.Waiter(session)
	if !ok || g.probe != nil && g.probe.Session == session || now.Before(w.Deadline) {
		return false
	}
	g.remove(session)
	g.closeIfIdle()
	return true
}

// Wake returns when the owner's timer must call ProbeDue: the next probe
// of an open gate, or the timeout of the probe in flight.
func (g *Gate) Wake() (time.Time, bool) {
	switch {
	case g.state != Open:
		return time.Time{}, false
	case g.probe != nil:
		return g.probeSince.Add(g.cfg.ProbeTimeout), true
	case !g.Prober():
		return time.Time{}, false // the prober's owner wakes for the fleet
	}
	return g.nextProbe, true
}

// NextProbe returns when the next probe goes: an open gate without a probe
// in flight (while one is, the next depends on its answer).
func (g *Gate) NextProbe() (time.Time, bool) {
	if g.state != Open || g.probe != nil {
		return time.Time{}, false
	}
	return g.nextProbe, true
}

// Waiter returns the waiting (or probing) session's entry.
func (g *Gate) Waiter(session string) (Waiter, bool) {
	if g.probe != nil && g.probe.Session == session {
		return *g.probe, true
	}
	if e, ok := g.waiting[session]; ok {
		return *e.Value.(*Waiter), true
	}
	return Waiter{}, false
}

// IsProbe reports whether session is the probe in flight.
func (g *Gate) IsProbe(session string) bool { return g.probe != nil && g.probe.Session == session }

// Waiters returns the waiting sessions in probe order (the probe excluded).
func (g *Gate) Waiters() []Waiter {
	out := make([]Waiter, 0, g.queue.Len())
	for e := g.queue.Front(); e != nil; e = e.Next() {
		out = append(out, *e.Value.(*Waiter))
	}
	return out
}

// Waiting is the number of waiting sessions, the probe excluded.
func (g *Gate) Waiting() int { return g.queue.Len() }

// Snapshot describes the gate.
func (g *Gate) Snapshot() Snapshot {
	s := Snapshot{Key: g.key, State: g.state, Waiting: g.queue.Len(), RecentFailures: len(g.recent),
		Fleet: g.fleet, Prober: g.fleet && g.prober}
	if g.state == Open {
		s.PeersWaiting = g.peers
	}
	if g.state == Open {
		opened := g.openedAt
		s.OpenedAt = &opened
		s.FailedProbes, s.ProbesSent = g.failedProbes, g.probesSent
		if g.probe != nil {
			s.Probing, s.ProbeSession = true, g.probe.Session
		} else {
			next := g.nextProbe
			s.NextProbeAt = &next
		}
	}
	return s
}

// Persisted returns what to store for a restart.
func (g *Gate) Persisted() Persisted {
	return Persisted{Key: g.key, State: g.state, OpenedAt: g.openedAt, NextProbe: g.nextProbe,
		FailedProbes: g.failedProbes, ProbesSent: g.probesSent}
}

// interval is the current spacing of probes: the step (FirstProbe until a
// probe has failed, then the backoff step of the failures so far) divided
// by the sessions waiting, but at least MinProbeInterval (see Config).
func (g *Gate) interval() time.Duration {
	step := g.cfg.FirstProbe
	if g.failedProbes > 0 {
		b := g.cfg.Backoff
		step = b[min(g.failedProbes, len(b))-1]
	}
	n := max(g.queue.Len()+g.peers, 1)
	return min(step, max(step/time.Duration(n), g.cfg.MinProbeInterval))
}

func (g *Gate) join(session string, deadline, now time.Time) Verdict {
	if !now.Before(deadline) {
		return Expired
	}
	if _, ok := g.waiting[session]; !ok {
		g.enqueue(Waiter{Session: session, Since: now, Deadline: deadline})
	}
	return Wait
}

func (g *Gate) enqueue(w Waiter) {
	g.waiting[w.Session] = g.queue.PushBack(&w)
	g.changed(false)
}

func (g *Gate) remove(session string) bool {
	e, ok := g.waiting[session]
	if !ok {
		return false
	}
	g.queue.Remove(e)
	delete(g.waiting, session)
	g.changed(false)
	return true
}

func (g *Gate) startProbe(w Waiter, now time.Time) {
	g.probe, g.probeSince = &w, now
	g.probesSent++
	g.changed(true)
}

func (g *Gate) closeIfIdle() {
	if !g.fleet && g.Idle() {
		g.close()
	}
}

func (g *Gate) close() {
	g.state = Closed
	g.probe = nil
	g.queue.Init()
	clear(g.waiting)
	clear(g.recent)
	g.openedAt, g.nextProbe = time.Time{}, time.Time{}
	g.failedProbes, g.probesSent = 0, 0
	g.prober, g.peers = false, 0 // fleet mode: the right goes with the gate
	g.changed(true)
}
