package orchestrator

// Retries due together are claimed together (issue 13: due retries
// claimed in one transaction per tick). A retry timer's callback, and an
// overload gate's or a usage window's release of a session, only queue the
// session; the first callback
// of a burst drains the queue: it takes every retry due so far (at most
// maxDueRound), asks each one's usage window and overload gate, and claims
// all that go — each with its session.turn.started and STARTING — in one
// store call (AppendEvents: one transaction, one atomic batch per
// session), then publishes them and starts their attempts, each in its
// own goroutine, off the timer's path. Callbacks that come while it works
// only queue, so ten thousand due at once cost ten transactions, not ten
// thousand commits and as many goroutine stacks; releases that come due
// while a round commits go with the next round.
//
// The drainer holds the mutexes of a round's sessions until its commit
// returns (a session's mutex is held while its events are persisted, so
// seq order is delivery order). It is the only code that holds two
// sessions' mutexes; nothing that holds one waits for the drainer.

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// maxDueRound bounds the claims of one transaction, so the first of ten
// thousand is published without waiting for the last.
const maxDueRound = 1000

// dueQueue holds the retries whose time came, for the drainer.
type dueQueue struct {
	mu       sync.Mutex // guards the fields below
	items    []dueItem
	draining bool // a callback is draining; the others only queue
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
}

// queueDue queues a due retry and drains the queue, unless a drainer is
// at work already. Call it from a callback that entered the service.
func (s *Service) queueDue(it dueItem) {
	q := &s.due
	q.mu.Lock()
	q.items = append(q.items, it)
	if q.draining {
		q.mu.Unlock()
		return
	}
	q.draining = true
	q.mu.Unlock()
	for {
		q.mu.Lock()
		n := min(len(q.items), maxDueRound)
		if s.ctx.Err() != nil {
			n = 0 // closing: what is left stays pending, re-armed at the next start
		}
		if n == 0 {
			q.items = nil
			q.draining = false
			q.mu.Unlock()
			return
		}
		round := make([]dueItem, n)
		copy(round, q.items)
		q.items = append(q.items[:0:0], q.items[n:]...)
		q.mu.Unlock()
		s.dispatchRound(round)
	}
}

// dueStart is a claim being made: the session is locked until it is settled.
type dueStart struct {
	rt *sessionRT
	p  *parkedRetry
	t  *turn
	bs []builtEvent
}

// dispatchRound claims and starts the retries of one round that may go.
func (s *Service) dispatchRound(round []dueItem) {
	starts := make([]dueStart, 0, len(round))
	batches := make([][]store.EventWrite, 0, len(round))
	held := make(map[*sessionRT]bool, len(round))
	for _, it := range round {
		rt := s.loaded(it.sid)
		if rt == nil || held[rt] {
			continue // a session queued twice (its timer and a release) goes once; its lock is held
		}
		rt.mu.Lock()
		p := rt.retry
		if it.p != nil {
			if p != it.p {
				rt.mu.Unlock()
				continue // superseded or cancelled
			}
			p.timer = nil // this one fired
			s.noteLateTimerLocked(rt, p, it.woke)
		} else if it.usage != "" {
			if p == nil || usageKeyOf(p) != it.usage {
				rt.mu.Unlock()
				continue // it left the window meanwhile
			}
			if p.timer != nil {
				p.timer.Stop()
				p.timer = nil
			}
		} else if p == nil || p.gate != it.gate {
			rt.mu.Unlock()
			continue // it left the gate meanwhile
		}
		if p.dispatching || rt.turn != nil || s.usageDueLocked(rt, p) || s.gateDueLocked(rt, p) {
			rt.mu.Unlock()
			continue
		}
		t, evs := s.dispatchEventsLocked(rt, p)
		bs, ws, err := s.buildAllLocked(rt, evs)
		if err != nil {
			s.dispatchedLocked(rt, p, t, err, 0)
			rt.mu.Unlock()
			continue
		}
		held[rt] = true
		starts = append(starts, dueStart{rt: rt, p: p, t: t, bs: bs})
		batches = append(batches, ws)
	}
	if len(starts) == 0 {
		return
	}
	began := s.now()
	errs := s.store.AppendEvents(s.storeCtx(), batches...)
	claim := s.now().Sub(began)
	if len(starts) > 1 {
		s.log.Debug("due retries claimed together", zap.Int("claims", len(starts)), zap.Duration("took", claim))
	}
	for i, d := range starts {
		s.dispatchedLocked(d.rt, d.p, d.t, s.settleLocked(d.rt, d.bs, errs[i]), claim)
		d.rt.mu.Unlock()
	}
}
