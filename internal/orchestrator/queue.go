package orchestrator

import (
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// A queue, not a stampede: Config.MaxAgents bounds the agent processes
// alive at once. A turn that needs a new process when every slot is taken
// waits in line — its session QUEUED, with its place — and starts when a
// slot frees, oldest first. Joining the line stops the least recently used
// idle agent (one that can resume its session), so finished tasks give way
// to waiting ones before anyone waits on a running turn. A thousand tasks
// created at once no longer start a thousand agents.

// agentSlots counts live agent processes and their waiting line.
type agentSlots struct {
	max int // 0: unbounded

	mu    sync.Mutex // guards live, line
	live  int
	line  []*slotWaiter
	moved atomic.Bool // positions changed; a publisher is on its way
}

type slotWaiter struct {
	rt      *sessionRT
	granted chan struct{} // closed when the slot is this waiter's
}

// take returns nil with a slot taken, or the waiter that joined the line
// and its 1-based position.
func (q *agentSlots) take(rt *sessionRT) (*slotWaiter, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.max <= 0 || q.live < q.max {
		q.live++
		return nil, 0
	}
	w := &slotWaiter{rt: rt, granted: make(chan struct{})}
	q.line = append(q.line, w)
	return w, len(q.line)
}

// give frees a slot: the first waiter gets it, else the count drops.
// It reports whether the line moved.
func (q *agentSlots) give() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.line) > 0 {
		w := q.line[0]
		q.line[0] = nil
		q.line = q.line[1:]
		close(w.granted)
		return true
	}
	if q.live > 0 {
		q.live--
	}
	return false
}

// leave takes a waiter out of the line; false when it was granted a slot
// meanwhile (the caller then owns it, and must give it back).
func (q *agentSlots) leave(w *slotWaiter) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, x := range q.line {
		if x == w {
			q.line = append(q.line[:i], q.line[i+1:]...)
			return true
		}
	}
	return false
}

// waiting reports whether anyone is in line.
func (q *agentSlots) waiting() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.line) > 0
}

// positions maps each waiting session to its place in line (1-based).
func (q *agentSlots) positions() map[*sessionRT]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make(map[*sessionRT]int, len(q.line))
	for i, w := range q.line {
		out[w.rt] = i + 1
	}
	return out
}

// position is the session's place in line (1-based), 0 when not waiting.
func (q *agentSlots) position(rt *sessionRT) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, w := range q.line {
		if w.rt == rt {
			return i + 1
		}
	}
	return 0
}

// head returns the first n waiters' sessions.
func (q *agentSlots) head(n int) []*sessionRT {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]*sessionRT, 0, min(n, len(q.line)))
	for _, w := range q.line[:min(n, len(q.line))] {
		out = append(out, w.rt)
	}
	return out
}

// waitSlot takes a slot for a new agent process of rt, waiting in line
// (visibly: session QUEUED with its position) when there is none.
func (s *Service) waitSlot(rt *sessionRT, t *turn) error {
	w, pos := s.slots.take(rt)
	if w == nil {
		return nil
	}
	if !s.claimed(t) { // a due retry is QUEUED once its start is durable (retrydue.go)
		if !s.slots.leave(w) {
			s.releaseSlot()
		} else {
			s.queueMoved()
		}
		return errNotClaimed
	}
	rt.mu.Lock()
	if rt.turn == t {
		next := rt.sess
		next.State = store.SessionQueued
		_ = s.emitLocked(rt, "session.state_changed",
			map[string]any{"task_id": rt.task.ID, "state": store.SessionQueued, "queue_position": pos}, change{sess: &next})
	}
	rt.mu.Unlock()
	s.log.Info("agent slots full; the turn waits in line", zap.String("session_id", rt.sess.ID),
		zap.Int("position", pos), zap.Int("max_agents", s.slots.max))
	s.reapIdle(rt)
	select {
	case <-w.granted:
		return nil
	case <-t.ctx.Done():
		if !s.slots.leave(w) {
			s.releaseSlot() // granted as we gave up: pass it on
		} else {
			s.queueMoved()
		}
		return t.ctx.Err()
	}
}

// releaseSlot frees the slot of an agent process that ended.
func (s *Service) releaseSlot() {
	if s.slots.give() {
		s.queueMoved()
	}
}

// queuePositionsShown bounds the waiters told their new place each time
// the line moves; the rest learn it when they come this far (or ask).
const queuePositionsShown = 20

// queueMoved republishes the places of the first waiters, once per burst
// of moves, off the caller's goroutine (it may hold another session's lock).
func (s *Service) queueMoved() {
	if !s.slots.moved.CompareAndSwap(false, true) {
		return
	}
	if !s.goTurn(func() {
		s.slots.moved.Store(false)
		for _, rt := range s.slots.head(queuePositionsShown) {
			rt.mu.Lock()
			s.publishTask(rt)
			rt.mu.Unlock()
		}
	}) {
		s.slots.moved.Store(false)
	}
}

// reapIdle stops the least recently used idle agent that can resume its
// session (never self's), so its slot goes to the line.
func (s *Service) reapIdle(self *sessionRT) {
	s.mu.Lock()
	rts := make([]*sessionRT, 0, len(s.sessions))
	for _, rt := range s.sessions {
		if rt != self {
			rts = append(rts, rt)
		}
	}
	s.mu.Unlock()
	var pick *sessionRT
	var pickAt int64
	for _, rt := range rts {
		rt.mu.Lock()
		idle := rt.exec != nil && rt.turn == nil
		if r, ok := rt.exec.(resumer); idle && ok && !r.CanResume() {
			idle = false // stopping it would lose the conversation
		}
		at := rt.sess.UpdatedAt.UnixNano()
		rt.mu.Unlock()
		if idle && (pick == nil || at < pickAt) {
			pick, pickAt = rt, at
		}
	}
	if pick == nil {
		return
	}
	pick.mu.Lock()
	ex := pick.exec
	if ex == nil || pick.turn != nil {
		pick.mu.Unlock()
		return // taken meanwhile; the line waits for the next slot
	}
	pick.exec = nil
	s.stopIdleLocked(pick)
	sid := pick.sess.ID
	pick.mu.Unlock()
	s.log.Info("idle agent stopped for a queued task (the next prompt resumes its session)", zap.String("session_id", sid))
	if !s.goTurn(func() { _ = ex.Close() }) {
		_ = ex.Close()
	}
}

// slotExec is an execution holding an agent slot, given back once on Close.
type slotExec struct {
	Execution
	once    sync.Once
	release func()
}

func (e *slotExec) Close() error {
	err := e.Execution.Close()
	e.once.Do(e.release)
	return err
}

// CanResume, PID and ResumeFailure forward what the execution can tell
// (idle.go, transcript.go, tests).
func (e *slotExec) CanResume() bool {
	r, ok := e.Execution.(resumer)
	return !ok || r.CanResume()
}

func (e *slotExec) PID() int {
	if p, ok := e.Execution.(interface{ PID() int }); ok {
		return p.PID()
	}
	return 0
}

func (e *slotExec) ResumeFailure() string { return resumeFailureOf(e.Execution) }
