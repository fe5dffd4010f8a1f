package orchestrator

// Retries due together are claimed together (issue 13: due retries
// claimed in one transaction per tick), and each one's start is published
// at its due time, not after the claims of all those due with it.
//
// The retry timers' callback (duetimers.go: every retry then due, in one
// call), and an overload gate's or a usage window's release of a session,
// start the retry at once: first every one due is marked dispatching and
// its clients are told it is STARTING (markDueLocked; task.updated, from
// memory), then each one's attempt becomes its session's turn
// (startMarkedLocked), unless a cancel, stop or prompt took the retry in
// between. Its durable claim —
// session.turn.started with the claim, and STARTING — is queued: a
// callback of the burst drains the queue, up to maxDueRound claims (one atomic batch per session) in one
// store call (AppendEvents: one transaction), its agent starting
// meanwhile (process start, session/load). The prompt goes to the agent
// only once the claim is durable (claimed), so the restart rule of DESIGN
// §4 holds: a claim that is durable may have been sent (the next start
// shows manual recovery), one that is not was never sent (the next start
// re-arms it at its retry_at). A claim refused (a cancel or stop that came
// first, another claimant, a fleet peer owning the session, a write error)
// closes the execution it started, sends nothing, and the clients get the
// state as it is (the could-not-save banner for a write error).
//
// The drainer holds the mutexes of a round's sessions until its commit
// returns (a session's mutex is held while its events are persisted, so
// seq order is delivery order). It is the only code that holds two
// sessions' mutexes; nothing that holds one waits for the drainer.

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// maxDueRound bounds the claims of one transaction, so the first of ten
// thousand is durable without waiting for the last, and other writers get
// the committer between rounds.
const maxDueRound = 1000

// errNotClaimed: a due retry's attempt whose claim was refused; nothing
// of it was sent (retrydue.go).
var errNotClaimed = errors.New("the retry was not claimed")

// dueQueue holds the due retries to start, and the claims of those
// started, for the starter and the drainer.
type dueQueue struct {
	mu       sync.Mutex // guards the fields below
	due      []dueItem  // to start
	items    []dueStart // started, to claim
	starting bool       // a callback is starting what is due; the others only queue
	draining bool       // a callback is claiming; the others only queue
}

// dueItem is one session to dispatch: its own timer fired (p set), its
// overload gate released it (gate set), or its usage window did (usage
// set). Both staggered releases end here, one path for both.
type dueItem struct {
	sid   string
	p     *parkedRetry
	gate  string
	usage string
	woke  time.Time
	late  *lateStarts // of the retries due with it, logged once; nil: alone
}

// dueStart is a due retry started, its claim not yet settled.
type dueStart struct {
	rt *sessionRT
	p  *parkedRetry
	t  *turn
}

// queueDue starts due retries and queues their claims. The first callback
// of a burst starts the retries due, one after another (ten thousand
// callbacks each taking the session's, the gate's and the service's locks
// at once queue behind each other for seconds), and then, when no other
// callback is claiming, claims them, round after round; callbacks that
// come while it claims start the next ones meanwhile, so a start never
// waits for a commit. Call it from a callback that entered the service,
// holding no session's lock.
func (s *Service) queueDue(its ...dueItem) {
	q := &s.due
	q.mu.Lock()
	q.due = append(q.due, its...)
	if q.starting {
		q.mu.Unlock()
		return
	}
	q.starting = true
	for len(q.due) > 0 {
		due := q.due
		q.due = nil
		q.mu.Unlock()
		// All of them are told they start before any of them is started:
		// building ten thousand turns first would have the last ones hear
		// of theirs tens of milliseconds after their retry_at.
		marked := s.markDue(due)
		started := make([]dueStart, 0, len(marked))
		for _, m := range marked {
			m.rt.mu.Lock()
			if d, ok := s.startMarkedLocked(m.rt, m.p); ok {
				started = append(started, d)
			}
			m.rt.mu.Unlock()
		}
		q.mu.Lock()
		q.items = append(q.items, started...)
	}
	q.starting = false
	if q.draining {
		q.mu.Unlock()
		return
	}
	q.draining = true
	q.mu.Unlock()
	for {
		q.mu.Lock()
		n := min(len(q.items), maxDueRound)
		if n == 0 {
			q.items = nil
			q.draining = false
			q.mu.Unlock()
			return
		}
		round := make([]dueStart, n)
		copy(round, q.items)
		q.items = append(q.items[:0:0], q.items[n:]...)
		q.mu.Unlock()
		s.claimRound(round)
	}
}

// markParallelFrom: this many due together are marked by one goroutine
// per core, each its share; fewer by the starter alone.
const markParallelFrom = 512

// markDue marks the retries of due that go (markDueLocked), spread over
// the cores when there are many, and logs their lateness once.
func (s *Service) markDue(due []dueItem) []dueMark {
	var late *lateStarts
	if len(due) > 1 {
		late = &lateStarts{of: len(due)}
	}
	mark := func(due []dueItem, late *lateStarts) []dueMark {
		marked := make([]dueMark, 0, len(due))
		for _, it := range due {
			it.late = late
			if rt := s.loaded(it.sid); rt != nil {
				rt.mu.Lock()
				if p, ok := s.markDueLocked(rt, it); ok {
					marked = append(marked, dueMark{rt: rt, p: p})
				}
				rt.mu.Unlock()
			}
		}
		return marked
	}
	k := runtime.GOMAXPROCS(0)
	if len(due) < markParallelFrom || k < 2 {
		marked := mark(due, late)
		if late != nil {
			late.log(s.log)
		}
		return marked
	}
	parts := make([][]dueMark, k)
	lates := make([]lateStarts, k)
	var wg sync.WaitGroup // waited here: the goroutines end with this call
	for i := range k {
		share := due[len(due)*i/k : len(due)*(i+1)/k]
		wg.Go(func() { parts[i] = mark(share, &lates[i]) })
	}
	wg.Wait()
	var marked []dueMark
	for i := range k {
		marked = append(marked, parts[i]...)
		late.n += lates[i].n
		late.wokeLate, late.wait = max(late.wokeLate, lates[i].wokeLate), max(late.wait, lates[i].wait)
	}
	late.log(s.log)
	return marked
}

// dueMark is a due retry told it starts, its turn not yet built.
type dueMark struct {
	rt *sessionRT
	p  *parkedRetry
}

// markDueLocked decides that a due retry goes, and tells the clients: it
// is dispatching from here (no other path starts it), and STARTING.
// startMarkedLocked builds its turn next, unless something came first.
func (s *Service) markDueLocked(rt *sessionRT, it dueItem) (*parkedRetry, bool) {
	p := rt.retry
	switch {
	case it.p != nil:
		if p != it.p {
			return nil, false // superseded or cancelled
		}
		s.noteLateTimerLocked(rt, p, it.woke, it.late)
	case it.usage != "":
		if p == nil || usageKeyOf(p) != it.usage {
			return nil, false // it left the window meanwhile
		}
	case p == nil || p.gate != it.gate:
		return nil, false // it left the gate meanwhile
	}
	if p.dispatching || rt.turn != nil || rt.gone {
		return nil, false
	}
	if it.usage != "" {
		s.stopTimersLocked(p)
	}
	if s.usageDueLocked(rt, p) || s.gateDueLocked(rt, p) {
		return nil, false
	}
	p.dispatching = true // no other path starts it meanwhile
	s.publishStartingLocked(rt)
	return p, true
}

// startMarkedLocked builds the turn of a retry markDueLocked let go. A
// stop, cancel, new prompt or close that came in between took the retry
// (or the service) away and published the state it left: nothing starts.
func (s *Service) startMarkedLocked(rt *sessionRT, p *parkedRetry) (dueStart, bool) {
	if rt.retry != p || rt.turn != nil || rt.gone || s.ctx.Err() != nil {
		if rt.retry == p {
			p.dispatching = false // the service closing: it stays pending, re-armed at the next start
		}
		return dueStart{}, false
	}
	t := s.newTurn(rt, p.rec.Prompt)
	t.replay, t.retry, t.fresh, t.probe = true, p.rec.Attempt, !p.rec.Resume, p.probe
	t.claim = make(chan struct{})
	s.fallbackBoundaryLocked(rt, t)
	rt.turn = t
	t.in = s.execInputsLocked(rt, t)
	s.stopIdleLocked(rt)
	return dueStart{rt: rt, p: p, t: t}, true // its attempt runs from its claim round (claimRound)
}

// publishStartingLocked tells the task's clients that its session starts,
// before that is durable: the session.turn.started and STARTING that say
// so in its log follow once claimed, or the state as it is if not.
func (s *Service) publishStartingLocked(rt *sessionRT) {
	v := s.withModel(rt.view(), rt.agent())
	v.State = store.TaskInProgress
	v.Sessions[0].State = store.SessionStarting
	v.Sessions[0].UpdatedAt = s.now()
	s.publishTaskView(v)
}

// claimRound claims the retries of one round in one store call.
func (s *Service) claimRound(round []dueStart) {
	claims := round[:0:0]
	builds := make([][]builtEvent, 0, len(round))
	batches := make([][]store.EventWrite, 0, len(round))
	for _, d := range round {
		rt := d.rt
		rt.mu.Lock()
		if s.unclaimableLocked(rt, d.p, d.t) {
			s.keepExecLocked(rt, d.t)
			rt.mu.Unlock()
			continue
		}
		// The attempt runs from here, its agent starting while the claim
		// commits: not from startMarkedLocked, where a goroutine's start for
		// each of thousands due at once came before the next one's news.
		t := d.t
		if !s.goTurn(func() { s.runTurn(rt, t) }) {
			s.unstartLocked(rt, d.p, t, ErrClosed) // closing: it stays pending, re-armed at the next start
			s.keepExecLocked(rt, t)
			rt.mu.Unlock()
			continue
		}
		claim := store.RetryClaim{SessionID: rt.sess.ID, Generation: d.p.rec.Generation, Attempt: d.p.rec.Attempt}
		bs, ws, err := s.buildAllLocked(rt, s.turnStartedEvents(d.t, change{claim: &claim}))
		if err != nil {
			s.claimedLocked(rt, d.p, d.t, err, 0)
			rt.mu.Unlock()
			continue
		}
		claims = append(claims, d)
		builds = append(builds, bs)
		batches = append(batches, ws)
	}
	if len(claims) == 0 {
		return
	}
	began := s.now()
	errs := s.store.AppendEvents(s.storeCtx(), batches...)
	took := s.now().Sub(began)
	if len(claims) > 1 {
		s.log.Debug("due retries claimed together", zap.Int("claims", len(claims)), zap.Duration("took", took))
	}
	for i, d := range claims {
		s.claimedLocked(d.rt, d.p, d.t, s.settleLocked(d.rt, builds[i], errs[i]), took)
		d.rt.mu.Unlock()
	}
}

// unclaimableLocked settles a started retry that must not be claimed any
// more: stopped, cancelled, its session gone, or the service closing.
func (s *Service) unclaimableLocked(rt *sessionRT, p *parkedRetry, t *turn) bool {
	switch {
	case rt.turn != t:
		s.unstartLocked(rt, p, t, errNotClaimed) // ended meanwhile
	case rt.gone || rt.retry != p:
		s.unstartLocked(rt, p, t, errNotClaimed)
	case s.ctx.Err() != nil:
		s.unstartLocked(rt, p, t, ErrClosed) // stays pending, re-armed at the next start
	case t.cancelledRetry:
		s.unstartLocked(rt, p, t, errNotClaimed)
		s.gateAbandonLocked(rt, s.now())
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindRetryCancelled})
	case t.stopped:
		s.unstartLocked(rt, p, t, errNotClaimed)
		s.gateAbandonLocked(rt, s.now())
		s.disarmLocked(rt, outcomeCancelled) // as StopTurn on a parked retry
		s.dropNoticeLocked(rt)
		if err := s.setStateLocked(rt, store.SessionWaitingForInput, store.TaskReview); err != nil {
			s.forceStateLocked(rt, store.SessionWaitingForInput, store.TaskReview)
		}
	default:
		return false
	}
	return true
}

// keepExecLocked gives the session back the live agent process a fresh
// retry took from it (execInputsLocked) when its attempt never ran: only
// runTurn closes that process, so otherwise it, and its agent slot, would
// be orphaned.
func (s *Service) keepExecLocked(rt *sessionRT, t *turn) {
	in := t.in
	if in == nil || !t.fresh || in.ex == nil {
		return
	}
	if rt.exec == nil {
		rt.exec = in.ex
	} else {
		_ = in.ex.Close()
	}
	in.ex = nil
}

// unstartLocked undoes a started retry that was not claimed: its attempt
// ends without sending anything (runTurn closes the execution it
// started), and the retry is parked again as it was, timer aside.
func (s *Service) unstartLocked(rt *sessionRT, p *parkedRetry, t *turn, err error) {
	if rt.turn == t {
		s.stopSilenceLocked(rt, t)
		rt.turn = nil
	}
	p.dispatching = false
	t.claimErr = err
	close(t.claim)
	t.cancel()
}

// claimedLocked goes on from a due retry's claim: err nil, its prompt may
// go (runTurn); otherwise nothing was sent, and the clients, told it was
// starting, get the state as it is. took is how long the claim's commit
// took.
func (s *Service) claimedLocked(rt *sessionRT, p *parkedRetry, t *turn, err error, took time.Duration) {
	if err == nil {
		s.stopTimersLocked(p) // a waiting session's deadline
		p.rec.State = store.RetryDispatching
		s.armSilenceLocked(rt, t)
		close(t.claim)
		s.log.Info("retry firing", zap.String("session_id", rt.sess.ID), zap.Int("attempt", p.rec.Attempt), zap.Bool("probe", p.probe),
			zap.Duration("claim", took)) // the claim with the turn's start
		return
	}
	s.unstartLocked(rt, p, t, err)
	if errors.Is(err, store.ErrUnwritable) {
		s.claimUnsavedLocked(rt, p, err) // the banner, and the state, published
		return
	}
	if errors.Is(err, store.ErrNotClaimed) {
		err = nil
	}
	s.log.Warn("retry not claimed", zap.String("session_id", rt.sess.ID), zap.Bool("claimable", false), zap.Error(err))
	if p.probe {
		s.gateAbandonLocked(rt, s.now())
	}
	if !rt.gone {
		s.publishTask(rt) // it is not starting after all
	}
}

// claimed waits for the claim of t, a due retry's attempt, and reports
// whether it was claimed; true at once for any other turn.
func (s *Service) claimed(t *turn) bool {
	if t.claim == nil {
		return true
	}
	<-t.claim
	return t.claimErr == nil
}
