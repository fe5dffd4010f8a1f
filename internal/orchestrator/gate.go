package orchestrator

// The overload gate owner (DESIGN §6): overload.Gate decides, this file
// owns what the decisions need around them — one timer per gate for its
// next probe, one timer per released session, one deadline timer per
// waiting session (the session's own retry timer, reused), persistence of
// open gates, metrics, gate.list and gate.updated. The waiting notice is in
// gate_notice.go, the restart in gate_restore.go.
//
// Lock order: a session's mutex, then gateOwner.mu. Nothing here takes a
// session's mutex while holding gateOwner.mu; work on other sessions (a
// probe to start, releases) goes through timers or an owned goroutine.

import (
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Extra keys of a pending retry (store.PendingRetry.Extra).
const (
	extraGate         = "gate"          // key of the gate the session waits on
	extraGateSince    = "gate_since"    // when it started waiting (RFC 3339)
	extraGateDeadline = "gate_deadline" // when its chain stops waiting (RFC 3339)
	extraLastGate     = "last_gate"     // key of the gate its last failure counted on (a retry on its own schedule)
)

// Notification name for gate changes, sent on the task feed (every client).
const actionGateUpdated = "gate.updated"

// gatePublishEvery bounds gate.updated for changes of the waiting count
// alone; state changes, probes and new probe times are published at once.
const gatePublishEvery = time.Second

type gateOwner struct {
	cfg  overload.Config // effective: defaults and scale applied
	rand func() float64

	mu       sync.Mutex // guards gates (releases change under it too); taken after a session's mutex, never before one
	gates    map[string]*gateRT
	releases *releases // the released sessions' timers (stagger.go)
}

// gateRT is one gate with its timer and bookkeeping.
type gateRT struct {
	g        *overload.Gate
	timer    *quartz.Timer // next probe; nil when none
	timerGen uint64        // identifies the armed timer; stale callbacks see another value
	wake     time.Time
	savedRev uint64            // DurableRev last persisted
	pub      overload.Snapshot // last published
	pubRev   uint64
	pubAt    time.Time
	pubTimer *quartz.Timer // trailing gate.updated for a coalesced count change
	code     string        // routing code and rule of the latest gated failure, for notices
	ruleID   string
	updated  time.Time
	fleet    fleetGateRT // fleet mode: the link to the fleet's gate (gate_fleet.go)
}

// gateWait is a session about to wait on a gate.
type gateWait struct {
	key              string
	since, deadline  time.Time
	attempt, max     int
	code, ruleID     string
	prompt           string
	resume           bool
	gen              int64
	fromFailedTurnID string
}

func (s *Service) gateEnabled() bool { return !s.gate.cfg.Disabled }

// gateKey is the gate a session's outcomes count on: the one it waits on or
// probes for, else the one its last failure counted on, else its agent's
// own gate (a session that never failed, or whose failures named no model).
// So a success closes the gate the session was probing, and a session of
// model X never closes the gate of model Y.
func gateKey(rt *sessionRT) string {
	if p := rt.retry; p != nil && p.gate != "" {
		return p.gate
	}
	if rt.gateKey != "" {
		return rt.gateKey
	}
	return overload.Key(rt.agent(), "")
}

// failureGateKey is the gate a failure counts on: the agent and the model
// the failure names; a failure that names none stays on the session's gate,
// so the probe of "claude/claude-opus-4-1" whose error does not repeat the
// model still answers for that gate.
func failureGateKey(rt *sessionRT, c routingerr.Classification) string {
	if c.Model != "" {
		return overload.Key(rt.agent(), c.Model)
	}
	return gateKey(rt)
}

// gateLocked returns the gate of key, creating it closed. gate.mu is held.
func (s *Service) gateLocked(key string) *gateRT {
	gr := s.gate.gates[key]
	if gr == nil {
		gr = &gateRT{g: overload.New(key, s.gate.cfg, s.gate.rand), fleet: fleetGateRT{reported: -1}}
		if s.fleetMode() {
			gr.g.SetFleet()
		}
		gr.savedRev = gr.g.DurableRev()
		gr.pub = gr.g.Snapshot()
		gr.pubRev = gr.g.Rev()
		s.gate.gates[key] = gr
	}
	return gr
}

// afterGateLocked applies a gate's decisions that concern the gate itself:
// its probe timer, its durable row, metrics and gate.updated. gate.mu is held.
func (s *Service) afterGateLocked(gr *gateRT, now time.Time) {
	g := gr.g
	key := g.Key()
	if wake, ok := g.Wake(); !ok {
		if gr.timer != nil {
			gr.timer.Stop()
			gr.timer = nil
		}
	} else if gr.timer == nil || !wake.Equal(gr.wake) {
		if gr.timer != nil {
			gr.timer.Stop()
		}
		gr.timerGen++
		gen := gr.timerGen
		gr.wake = wake
		gr.timer = s.cfg.Clock.AfterFunc(max(wake.Sub(s.now()), 0), func() { s.onProbeTimer(key, gen) }, "gate-probe")
	}
	s.fleetWaitingLocked(gr)
	if g.DurableRev() != gr.savedRev && !s.fleetGateChangedLocked(gr) {
		p := g.Persisted()
		var err error
		if p.State == overload.Open {
			err = s.store.SaveGate(s.storeCtx(), store.Gate{Key: key, State: store.GateOpen, OpenedAt: p.OpenedAt,
				NextProbeAt: p.NextProbe, FailedProbes: p.FailedProbes, ProbesSent: p.ProbesSent, UpdatedAt: now})
		} else {
			err = s.store.DeleteGate(s.storeCtx(), key)
		}
		if err != nil {
			// Not fatal: the waiters are durable on their own, and a gate
			// rebuilt without its row releases them gradually.
			s.log.Error("persist overload gate failed", zap.String("gate", key), zap.Error(err))
		}
		gr.savedRev = g.DurableRev()
	}
	if g.Rev() == gr.pubRev {
		return
	}
	snap := g.Snapshot()
	open := 0.0
	if snap.State == overload.Open {
		open = 1
	}
	s.cfg.Metrics.gateOpen.WithLabelValues(key).Set(open)
	s.cfg.Metrics.gateWaiting.WithLabelValues(key).Set(float64(snap.Waiting))
	gr.updated = now
	transition := snap.State != gr.pub.State || snap.Probing != gr.pub.Probing || !sameTime(snap.NextProbeAt, gr.pub.NextProbeAt)
	if !transition && now.Sub(gr.pubAt) < gatePublishEvery {
		// A count-only change: coalesced, then sent once the second is up
		// (while the gate is open: that is when the panel shows the count).
		if gr.pubTimer == nil && snap.State == overload.Open {
			gr.pubTimer = s.cfg.Clock.AfterFunc(gr.pubAt.Add(gatePublishEvery).Sub(now), func() { s.onGatePublish(key) }, "gate-publish")
		}
		return
	}
	if gr.pubTimer != nil {
		gr.pubTimer.Stop()
		gr.pubTimer = nil
	}
	if transition && snap.State != gr.pub.State {
		s.log.Info("overload gate "+string(snap.State), zap.String("gate", key), zap.Int("waiting", snap.Waiting))
	}
	gr.pub, gr.pubRev, gr.pubAt = snap, g.Rev(), now
	if transition {
		// Watched waiting sessions show the new probe time now; the others
		// are brought up to date when someone subscribes. Started before
		// the change is published, so a Close by whoever saw it still
		// waits for the refresh instead of skipping it.
		s.goTurn(func() { s.refreshWatchedNotices(key) })
	}
	if payload, err := json.Marshal(map[string]any{"gate": gr.info(snap)}); err == nil {
		s.tasks.publish(Notification{Action: actionGateUpdated, Payload: payload, At: now})
	}
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// GateInfo is one gate in gate.list and gate.updated.
type GateInfo struct {
	overload.Snapshot
	FailureCode string    `json:"failure_code,omitempty"` // of the latest gated failure
	UpdatedAt   time.Time `json:"updated_at"`
}

// GateList is the answer to gate.list.
type GateList struct {
	Enabled       bool       `json:"enabled"`
	Threshold     int        `json:"threshold"`
	WindowSeconds float64    `json:"window_seconds"`
	DeadlineSecs  float64    `json:"deadline_seconds"`
	Gates         []GateInfo `json:"gates"`
}

func (gr *gateRT) info(snap overload.Snapshot) GateInfo {
	return GateInfo{Snapshot: snap, FailureCode: gr.code, UpdatedAt: gr.updated}
}

// Gates lists every gate known since start, by key.
func (s *Service) Gates() GateList {
	out := GateList{Enabled: s.gateEnabled(), Threshold: s.gate.cfg.Threshold,
		WindowSeconds: s.gate.cfg.Window.Seconds(), DeadlineSecs: s.gate.cfg.Deadline.Seconds(), Gates: []GateInfo{}}
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	for _, gr := range s.gate.gates {
		out.Gates = append(out.Gates, gr.info(gr.g.Snapshot()))
	}
	sort.Slice(out.Gates, func(i, j int) bool { return out.Gates[i].Key < out.Gates[j].Key })
	return out
}

// gateFailedLocked offers a failed turn to its gate. It returns true when
// the gate took over (the session waits, or its deadline passed); false
// means the retry owner goes on as without a gate.
func (s *Service) gateFailedLocked(rt *sessionRT, t *turn, c routingerr.Classification, d routingerr.Decision, now time.Time) bool {
	if !s.gateEnabled() {
		return false
	}
	prev, key := gateKey(rt), failureGateKey(rt, c)
	retryable := d.Kind == routingerr.DecisionRetry || d.Kind == routingerr.DecisionManual && d.Reason == routingerr.ReasonExhausted
	if !overload.Gated(c.Code) || c.Class != routingerr.ClassTransient || !retryable {
		s.gateAbandonLocked(rt, now) // a probe that failed otherwise tells nothing about the provider
		rt.gateKey = key
		return false
	}
	if key != prev {
		// The failure names another model: the session moves to its gate.
		s.gateLeaveLocked(rt.sess.ID, prev, now)
	}
	rt.gateKey = key
	// The overall deadline runs from the chain's first gated failure.
	rt.chain.setDeadline(s.chainDeadline(rt, now))
	sid := rt.sess.ID
	s.gate.mu.Lock()
	gr := s.gateLocked(key)
	gr.code, gr.ruleID = c.Code, c.RuleID
	wasProbe := gr.g.IsProbe(sid)
	v := gr.g.Failed(sid, rt.chain.deadline(), now)
	w, _ := gr.g.Waiter(sid)
	view := gr.view(sid)
	s.afterGateLocked(gr, now)
	s.gate.mu.Unlock()
	switch v {
	case overload.Proceed:
		return false
	case overload.Expired:
		s.recoveryBannerLocked(rt, t, recoveryReason{kind: kindGateDeadline, class: c, wait: s.gateDeadline(rt)})
		return true
	}
	attempt := d.Retry
	if wasProbe || d.Kind != routingerr.DecisionRetry {
		attempt = t.retry // the gate's probes and waits spend no budget
	}
	gw := gateWait{key: key, since: w.Since, deadline: w.Deadline, attempt: attempt, max: d.MaxAttempts,
		code: c.Code, ruleID: c.RuleID, prompt: t.prompt, resume: true, gen: rt.sess.Generation, fromFailedTurnID: t.id}
	if err := s.parkOnGateLocked(rt, gw, view, nil); err != nil {
		s.gateLeaveLocked(rt.sess.ID, key, now)
		s.recoveryBannerLocked(rt, t, recoveryReason{kind: "persist_failed", class: c})
	}
	return true
}

// gateDueLocked asks the gate whether a parked retry that is due may go.
// It returns true when the gate took over (wait, or deadline); false means
// dispatch it now (the gate is closed, or this session is the probe).
func (s *Service) gateDueLocked(rt *sessionRT, p *parkedRetry) bool {
	if !s.gateEnabled() || !overload.Gated(p.rec.Code) {
		return false
	}
	now := s.now()
	sid := rt.sess.ID
	key := gateKey(rt)
	s.gate.mu.Lock()
	v, w, view := s.dueLocked(s.gateLocked(key), sid, s.chainDeadline(rt, now), now)
	s.gate.mu.Unlock()
	switch v {
	case overload.Proceed:
		p.gate = ""
		return false
	case overload.Probe:
		p.gate, p.probe = key, true
		s.log.Info("overload gate probe", zap.String("gate", key), zap.String("session_id", sid))
		return false
	case overload.Expired:
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindGateDeadline, wait: s.gateDeadline(rt),
			class: routingerr.Classification{Code: p.rec.Code, RuleID: p.rec.RuleID, Class: routingerr.ClassTransient}})
		return true
	}
	gw := gateWait{key: key, since: w.Since, deadline: w.Deadline, attempt: p.rec.Attempt, max: p.rec.MaxAttempts,
		code: p.rec.Code, ruleID: p.rec.RuleID, prompt: p.rec.Prompt, resume: p.rec.Resume, gen: p.rec.Generation}
	if err := s.parkOnGateLocked(rt, gw, view, nil); err != nil {
		s.gateLeaveLocked(sid, key, now)
		return false // could not record the wait: go on the session's own schedule
	}
	return true
}

// dueLocked tells the gate a session is due and applies the gate's side of
// the answer (probe metric, timer, row, gate.updated). gate.mu is held.
func (s *Service) dueLocked(gr *gateRT, sid string, deadline, now time.Time) (overload.Verdict, overload.Waiter, gateView) {
	v := gr.g.Due(sid, deadline, now)
	w, _ := gr.g.Waiter(sid)
	view := gr.view(sid)
	if v == overload.Probe {
		s.cfg.Metrics.gateProbes.WithLabelValues(gr.g.Key()).Inc()
	}
	s.afterGateLocked(gr, now)
	return v, w, view
}

// gateResumeLocked sends a manual Resume (or Start fresh) through an open
// gate: it waits there (waits), or goes now, as the gate's probe (probe)
// or because no gate holds it.
func (s *Service) gateResumeLocked(rt *sessionRT, prompt string, next *store.Session, fresh bool) (waits, probe bool) {
	if !s.gateEnabled() {
		return false, false
	}
	now := s.now()
	sid, key := rt.sess.ID, gateKey(rt)
	s.gate.mu.Lock()
	gr := s.gate.gates[key]
	if gr == nil || gr.g.State() != overload.Open {
		s.gate.mu.Unlock()
		return false, false
	}
	v, w, view := s.dueLocked(gr, sid, now.Add(s.gateDeadline(rt)), now) // a manual recovery starts a new chain
	s.gate.mu.Unlock()
	if v != overload.Wait {
		return false, v == overload.Probe // launch now
	}
	budget := s.policy.Config().Overloaded.Budget
	if rt.task.MaxAttempts >= 2 {
		budget = max(budget, rt.task.MaxAttempts)
	}
	code, rule := view.code, view.ruleID
	if code == "" {
		code = "overloaded"
	}
	gw := gateWait{key: key, since: w.Since, deadline: w.Deadline, attempt: 0, max: budget,
		code: code, ruleID: rule, prompt: prompt, resume: !fresh, gen: next.Generation}
	if err := s.parkOnGateLocked(rt, gw, view, next); err != nil {
		s.gateLeaveLocked(sid, key, now)
		return false, false
	}
	s.log.Info("manual recovery waits on the overload gate", zap.String("session_id", sid), zap.String("gate", key))
	return true, false
}

// gateSucceededLocked tells the session's gate that the provider answered:
// an open gate closes and releases its waiters.
func (s *Service) gateSucceededLocked(rt *sessionRT, now time.Time) {
	if !s.gateEnabled() {
		return
	}
	key := gateKey(rt)
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	if gr := s.gate.gates[key]; gr != nil {
		s.releaseGateLocked(gr, rt.sess.ID, now)
	}
}

// releaseGateLocked closes an open gate on the success of session sid (""
// when the fleet's gate closed elsewhere) and releases its waiters.
// gate.mu is held.
func (s *Service) releaseGateLocked(gr *gateRT, sid string, now time.Time) {
	key := gr.g.Key()
	peers := gr.g.Peers() // fleet mode: they go over the same window (Succeeded)
	rel := gr.g.Succeeded(sid, now)
	for _, r := range rel {
		s.gate.releases.arm(r.Session, key, r.At)
		s.cfg.Metrics.gateRelease.Observe(r.At.Sub(r.Since).Seconds())
	}
	if len(rel) > 0 {
		s.log.Info("overload gate released its sessions", zap.String("gate", key), zap.Int("released", len(rel)),
			zap.Int("released_elsewhere", peers), zap.Duration("window", s.gate.cfg.ReleaseWindowFor(len(rel)+peers)))
	}
	s.afterGateLocked(gr, now)
}

// onGateRelease lets a released session go: it retries as if its own
// timer fired, so a gate that opened again in the meantime holds it back.
func (s *Service) onGateRelease(sid, key string) {
	if !s.enter() {
		return
	}
	defer s.leave()
	s.queueDue(dueItem{sid: sid, gate: key, woke: s.now()}) // released together, claimed together (retrydue.go)
}

// onProbeTimer is a gate's timer: the next probe is due.
func (s *Service) onProbeTimer(key string, gen uint64) {
	if !s.enter() {
		return
	}
	defer s.leave()
	now := s.now()
	s.gate.mu.Lock()
	gr := s.gate.gates[key]
	if gr == nil || gr.timerGen != gen {
		s.gate.mu.Unlock()
		return
	}
	gr.timer = nil
	hung := gr.g.Snapshot().ProbeSession
	sid := gr.g.ProbeDue(now)
	if hung != "" && !gr.g.IsProbe(hung) {
		s.cfg.Metrics.gateHung.WithLabelValues(key).Inc()
		s.log.Warn("overload gate probe gave no answer in time; the slot goes to the next waiter",
			zap.String("gate", key), zap.String("session_id", hung), zap.Duration("timeout", s.gate.cfg.ProbeTimeout))
	}
	if sid != "" {
		s.cfg.Metrics.gateProbes.WithLabelValues(key).Inc()
	}
	s.afterGateLocked(gr, now)
	s.gate.mu.Unlock()
	if sid == "" {
		return
	}
	rt := s.loaded(sid)
	if rt == nil {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	p := rt.retry
	if p == nil || p.gate != key || p.dispatching || rt.turn != nil {
		// It left meanwhile, and its leaving told the gate.
		return
	}
	p.probe = true
	s.log.Info("overload gate probe", zap.String("gate", key), zap.String("session_id", sid))
	s.dispatchLocked(rt, p)
}

// onGateDeadline is a waiting session's own timer: its chain's deadline.
func (s *Service) onGateDeadline(sid string, p *parkedRetry) {
	if !s.enter() {
		return
	}
	defer s.leave()
	rt := s.loaded(sid)
	if rt == nil {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.retry != p || p.gate == "" || p.dispatching {
		return
	}
	p.timer = nil
	now := s.now()
	s.gate.mu.Lock()
	expired, waiting := false, false
	var w overload.Waiter
	if gr := s.gate.gates[p.gate]; gr != nil {
		expired = gr.g.Expire(sid, now)
		w, waiting = gr.g.Waiter(sid)
		s.afterGateLocked(gr, now)
	}
	s.gate.mu.Unlock()
	switch {
	case expired:
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindGateDeadline, wait: s.gateDeadline(rt),
			class: routingerr.Classification{Code: p.rec.Code, RuleID: p.rec.RuleID, Class: routingerr.ClassTransient}})
	case waiting:
		s.armDeadlineLocked(rt, p, w.Deadline) // woke early
	}
}

// armDeadlineLocked arms a waiting session's deadline timer. Delays are
// taken from the clock at the moment of arming, here and for every gate
// timer, so time spent persisting never shifts a deadline.
func (s *Service) armDeadlineLocked(rt *sessionRT, p *parkedRetry, deadline time.Time) {
	sid := rt.sess.ID
	p.timer = s.cfg.Clock.AfterFunc(max(deadline.Sub(s.now()), 0), func() { s.onGateDeadline(sid, p) }, "gate-deadline")
}

// gateLeaveLocked removes a session from its gate (cancelled, superseded,
// stopped) and drops its release. The session's mutex may be held.
func (s *Service) gateLeaveLocked(sid, key string, now time.Time) {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	s.gate.releases.cancel(sid, "")
	if gr := s.gate.gates[key]; gr != nil {
		gr.g.Leave(sid, now)
		s.afterGateLocked(gr, now)
	}
}

// gateAbandonLocked frees the probe slot when the session's probe ended
// without a verdict on the provider (stopped, or a failure of another kind).
func (s *Service) gateAbandonLocked(rt *sessionRT, now time.Time) {
	if !s.gateEnabled() {
		return
	}
	key := gateKey(rt)
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	if gr := s.gate.gates[key]; gr != nil && gr.g.IsProbe(rt.sess.ID) {
		gr.g.Leave(rt.sess.ID, now)
		s.afterGateLocked(gr, now)
	}
}

// onGatePublish sends the coalesced gate.updated of a count change.
func (s *Service) onGatePublish(key string) {
	if !s.enter() {
		return
	}
	defer s.leave()
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	gr := s.gate.gates[key]
	if gr == nil || gr.pubTimer == nil {
		return
	}
	gr.pubTimer = nil
	gr.pubAt = time.Time{} // due: publish whatever changed
	s.afterGateLocked(gr, s.now())
}

// closeGates stops every gate timer; Close waits for running callbacks.
func (s *Service) closeGates() {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	for _, gr := range s.gate.gates {
		if gr.timer != nil {
			gr.timer.Stop()
			gr.timer = nil
		}
		if gr.pubTimer != nil {
			gr.pubTimer.Stop()
			gr.pubTimer = nil
		}
		gr.timerGen++
	}
	s.gate.releases.stop()
}
