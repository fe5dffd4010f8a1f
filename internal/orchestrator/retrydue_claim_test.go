package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// countAgents counts the agent processes started and closed.
type countAgents struct {
	Agents
	mu              sync.Mutex // guards started, closed
	started, closed int
}

func (a *countAgents) Start(ctx context.Context, req lifecycle.StartRequest) (Execution, error) {
	ex, err := a.Agents.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.started++
	a.mu.Unlock()
	return &countExec{Execution: ex, a: a}, nil
}

func (a *countAgents) counts() (started, closed int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.started, a.closed
}

type countExec struct {
	Execution
	a    *countAgents
	once sync.Once
}

func (e *countExec) Close() error {
	e.once.Do(func() {
		e.a.mu.Lock()
		e.a.closed++
		e.a.mu.Unlock()
	})
	return e.Execution.Close()
}

func withCountAgents(a *countAgents) harnessOpt {
	return func(c *Config) { a.Agents = c.Agents; c.Agents = a }
}

// startDueLocked starts a due retry as a burst's two passes do (mark, then
// build): its turn, published as STARTING, its prompt held until claimed.
// false: nothing started.
func (s *Service) startDueLocked(rt *sessionRT, it dueItem) (dueStart, bool) {
	p, ok := s.markDueLocked(rt, it)
	if !ok {
		return dueStart{}, false
	}
	return s.startMarkedLocked(rt, p)
}

// startedDue parks a first failure and starts its retry as its timer's
// callback would, without claiming it: the test decides what comes
// between the published start and the claim.
func startedDue(t *testing.T, h *harness, prompt string) (TaskView, *feed, *Subscription, dueStart) {
	t.Helper()
	v, f, tasks, rt := parkedFirst(t, h, prompt)
	rt.mu.Lock()
	d, ok := h.svc.startDueLocked(rt, dueItem{sid: rt.sess.ID, p: rt.retry, woke: h.clock.Now()})
	rt.mu.Unlock()
	require.True(t, ok, "the retry starts")
	return v, f, tasks, d
}

// parkedFirst parks a first failure, its retry due in 5s, with a task feed
// from before it.
func parkedFirst(t *testing.T, h *harness, prompt string) (TaskView, *feed, *Subscription, *sessionRT) {
	t.Helper()
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	tasks := h.svc.SubscribeTasks(1024)
	t.Cleanup(tasks.Close)
	v, f := h.create(prompt, nil)
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	rt := h.svc.loaded(v.Sessions[0].ID)
	require.NotNil(t, rt)
	rt.mu.Lock()
	defer rt.mu.Unlock()
	require.NotNil(t, rt.retry)
	return v, f, tasks, rt
}

// untilTaskState reads task.updated until the task's session shows state.
func untilTaskState(t *testing.T, sub *Subscription, state string) {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case n := <-sub.C():
			var x struct{ Task TaskView }
			if n.Action == "task.updated" && json.Unmarshal(n.Payload, &x) == nil && len(x.Task.Sessions) > 0 &&
				x.Task.Sessions[0].State == state {
				return
			}
		case <-deadline:
			t.Fatalf("no task.updated with the session %s", state)
		}
	}
}

// retryStarts counts the session's durable turn starts.
func (h *harness) retryStarts(sid string) int {
	h.t.Helper()
	evs, err := h.db.ListEvents(h.ctx, sid, 0, 0)
	require.NoError(h.t, err)
	n := 0
	for _, e := range evs {
		if e.Type == "session.turn.started" {
			n++
		}
	}
	return n
}

// sentNothing: the agent got the first attempt's prompt only, and every
// agent process started for the retry was closed.
func sentNothing(t *testing.T, h *harness, a *countAgents) {
	t.Helper()
	require.Eventually(t, func() bool { s, c := a.counts(); return s == c }, waitLong, 10*time.Millisecond,
		"the execution started for the retry is closed")
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	assert.Len(t, got, 1, "the agent got the first attempt only")
}

// A cancel that comes after the retry's start was published, before its
// claim: the claim is never made, the started agent is closed, nothing is
// sent, and the chain ends in exactly one banner.
func TestDueRetryCancelledBeforeItsClaimSendsNothing(t *testing.T) {
	h := newHarness(t)
	a := &countAgents{}
	h.stop()
	h.start(withCountAgents(a))
	v, f, tasks, d := startedDue(t, h, "/overloaded:1 cancel me")
	sid := v.Sessions[0].ID
	untilTaskState(t, tasks, store.SessionStarting)
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
	h.svc.claimRound([]dueStart{d})
	b := f.until(isBanner)
	assert.Equal(t, kindRetryCancelled, b.Message.Metadata["reason"])
	untilTaskState(t, tasks, store.SessionFailed)
	require.Len(t, byRole(h.messages(sid), "status"), 1, "one banner, no notice")
	_, pending := h.pending(sid)
	assert.False(t, pending)
	assert.Equal(t, 1, h.retryStarts(sid), "the retry never started durably")
	sentNothing(t, h, a)
}

// Stop before the claim ends the retry as Stop ends a parked one.
func TestDueRetryStoppedBeforeItsClaimSendsNothing(t *testing.T) {
	h := newHarness(t)
	a := &countAgents{}
	h.stop()
	h.start(withCountAgents(a))
	v, f, tasks, d := startedDue(t, h, "/overloaded:1 stop me")
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{TaskID: v.ID, SessionID: sid}))
	h.svc.claimRound([]dueStart{d})
	f.until(func(n note) bool { return n.Action == "session.message.deleted" })
	untilTaskState(t, tasks, store.SessionWaitingForInput)
	assert.Empty(t, byRole(h.messages(sid), "status"), "the notice is gone, no banner")
	_, pending := h.pending(sid)
	assert.False(t, pending)
	assert.Equal(t, 1, h.retryStarts(sid))
	sentNothing(t, h, a)
}

// A claim lost to another claimant (the store's conditional update finds
// the row taken): nothing is sent, and the clients, told it was starting,
// see the session waiting again.
func TestDueRetryLostToAnotherClaimantSendsNothing(t *testing.T) {
	h := newHarness(t)
	a := &countAgents{}
	h.stop()
	h.start(withCountAgents(a))
	v, _, tasks, d := startedDue(t, h, "/overloaded:1 taken")
	sid := v.Sessions[0].ID
	untilTaskState(t, tasks, store.SessionStarting)
	row, ok := h.pending(sid)
	require.True(t, ok)
	taken, err := h.db.ClaimPendingRetry(h.ctx, sid, row.Generation, row.Attempt)
	require.NoError(t, err)
	require.True(t, taken)
	h.svc.claimRound([]dueStart{d})
	untilTaskState(t, tasks, store.SessionWaitingForInput)
	assert.Equal(t, 1, h.retryStarts(sid))
	rt := h.svc.loaded(sid)
	rt.mu.Lock()
	assert.Nil(t, rt.turn, "no turn runs")
	rt.mu.Unlock()
	sentNothing(t, h, a)
}

// notOwnerStore refuses a retry's claim as a fleet peer's fence does.
type notOwnerStore struct{ Store }

func (s notOwnerStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	return batchesVia(ctx, s.Store, batches, func(w store.EventWrite) error {
		if w.ClaimRetry != nil {
			return store.ErrNotOwner
		}
		return nil
	})
}

// A claim the fleet refuses (another daemon owns the session now): nothing
// is sent and the started agent is closed; the owner carries on.
func TestDueRetryRefusedByTheFleetSendsNothing(t *testing.T) {
	h := newHarness(t)
	a := &countAgents{}
	h.stop()
	h.start(withCountAgents(a), func(c *Config) { c.Store = notOwnerStore{Store: h.db} })
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 not mine", nil)
	sid := v.Sessions[0].ID
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	f.until(isNotice)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	rt := h.svc.loaded(sid)
	rt.mu.Lock()
	assert.True(t, rt.gone, "nothing more is written here")
	assert.Nil(t, rt.turn)
	rt.mu.Unlock()
	assert.Equal(t, 1, h.retryStarts(sid))
	sentNothing(t, h, a)
}

// holdClaimStore holds a retry's claim until the test answers it.
type holdClaimStore struct {
	Store
	held   chan struct{} // a claim arrived
	answer chan error    // nil: commit it; else it fails, nothing written
	quit   chan struct{} // the test ended: fail the claim, so Close can finish
}

func (s holdClaimStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	for _, b := range batches {
		for _, w := range b {
			if w.ClaimRetry == nil {
				continue
			}
			var err error
			select {
			case s.held <- struct{}{}:
				select {
				case err = <-s.answer:
				case <-s.quit:
					err = errors.New("the test ended")
				}
			case <-s.quit:
				err = errors.New("the test ended")
			}
			if err != nil {
				errs := make([]error, len(batches))
				for i := range errs {
					errs[i] = err
				}
				return errs
			}
			return s.Store.AppendEvents(ctx, batches...)
		}
	}
	return s.Store.AppendEvents(ctx, batches...)
}

// The agent starts while the claim is on its way, but the prompt waits
// for it; a claim that never became durable (the daemon died before its
// commit) was never sent: the next start re-arms the retry at its
// original retry_at, and the prompt goes once.
func TestDueRetryNotDurableBeforeACrashIsReArmedAndSentOnce(t *testing.T) {
	h := newHarness(t)
	a := &countAgents{}
	hold := holdClaimStore{Store: h.db, held: make(chan struct{}), answer: make(chan error), quit: make(chan struct{})}
	h.stop()
	h.start(withCountAgents(a), func(c *Config) { c.Store = hold })
	t.Cleanup(func() { close(hold.quit) }) // before the harness's stop
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:1 crash before the claim", nil)
	sid := v.Sessions[0].ID
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	trap.Close()
	f.until(isNotice)
	fired := make(chan struct{})
	go func() {
		defer close(fired)
		h.clock.Advance(call.Duration).MustWait(h.ctx)
	}()
	within(t, hold.held, "the retry's claim")
	require.Eventually(t, func() bool { s, _ := a.counts(); return s == 2 }, waitLong, 10*time.Millisecond,
		"the retry's agent starts while its claim is on its way")
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	assert.Len(t, got, 1, "no prompt before the claim is durable")
	sendWithin(t, hold.answer, errors.New("the daemon died before its commit"), "the held claim")
	within(t, fired, "the retry's fire")
	h.stop()
	row, ok := h.pending(sid)
	require.True(t, ok)
	assert.Equal(t, store.RetryPending, row.State, "never claimed")

	h.start()
	require.NoError(t, h.svc.Start(h.ctx))
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(t, err)
	f2 := h.follow(sid, sess.LastSeq)
	assert.Equal(t, "end_turn", f2.until(isTurnDone).StopReason, "re-armed at its retry_at, now past: it goes at once")
	assert.Empty(t, byRole(h.messages(sid), "status"), "no interrupted banner")
	got, err = mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	assert.Len(t, got, 2, "the first attempt and the retry, once")
}

// keptExec is an agent process the session keeps between turns.
type keptExec struct {
	hangExec
	closed bool
}

func (e *keptExec) Close() error { e.closed = true; return nil }

// A fresh retry takes the session's kept agent process for its attempt;
// refused before the attempt ran (here a stop), the process goes back to
// the session instead of belonging to nobody (and holding its slot).
func TestDueFreshRetryRefusedBeforeItRanKeepsTheAgent(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 keep my agent", nil)
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	sid := v.Sessions[0].ID
	rt := h.svc.loaded(sid)
	require.NotNil(t, rt)
	kept := &keptExec{}
	rt.mu.Lock()
	p := rt.retry
	require.NotNil(t, p)
	if rt.exec != nil {
		_ = rt.exec.Close()
	}
	rt.exec = kept
	p.rec.Resume = false // a fresh start: the attempt takes the kept process to close it
	d, ok := h.svc.startDueLocked(rt, dueItem{sid: sid, p: p, woke: h.clock.Now()})
	taken := rt.exec == nil
	rt.mu.Unlock()
	require.True(t, ok, "the retry starts")
	require.True(t, taken, "the fresh attempt took the kept process")
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{TaskID: v.ID, SessionID: sid}))
	h.svc.claimRound([]dueStart{d})
	rt.mu.Lock()
	back := rt.exec
	rt.mu.Unlock()
	assert.Equal(t, Execution(kept), back, "the session keeps its agent process")
	assert.False(t, kept.closed)
}

// markedDue parks a first failure and tells the clients its retry starts,
// as the first pass over retries due together does, without building its
// turn: the test decides what comes in between.
func markedDue(t *testing.T, h *harness, prompt string) (TaskView, *feed, *Subscription, dueMark) {
	t.Helper()
	v, f, tasks, rt := parkedFirst(t, h, prompt)
	rt.mu.Lock()
	p, ok := h.svc.markDueLocked(rt, dueItem{sid: rt.sess.ID, p: rt.retry, woke: h.clock.Now()})
	rt.mu.Unlock()
	require.True(t, ok, "the retry goes")
	untilTaskState(t, tasks, store.SessionStarting)
	return v, f, tasks, dueMark{rt: rt, p: p}
}

// A cancel between a due retry's published start and its turn: no turn is
// built, nothing is sent, and the chain ends in one banner.
func TestDueRetryCancelledBeforeItsTurnIsBuiltStartsNothing(t *testing.T) {
	h := newHarness(t)
	a := &countAgents{}
	h.stop()
	h.start(withCountAgents(a))
	v, f, tasks, m := markedDue(t, h, "/overloaded:1 cancel me early")
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
	m.rt.mu.Lock()
	_, started := h.svc.startMarkedLocked(m.rt, m.p)
	turn := m.rt.turn
	m.rt.mu.Unlock()
	assert.False(t, started)
	assert.Nil(t, turn, "no turn runs")
	b := f.until(isBanner)
	assert.Equal(t, kindRetryCancelled, b.Message.Metadata["reason"])
	untilTaskState(t, tasks, store.SessionFailed)
	_, pending := h.pending(sid)
	assert.False(t, pending)
	assert.Equal(t, 1, h.retryStarts(sid), "the retry never started")
	sentNothing(t, h, a)
}

// A new prompt between a due retry's published start and its turn: the
// user's prompt runs, the retry never does.
func TestDueRetrySupersededBeforeItsTurnIsBuiltLetsThePromptRun(t *testing.T) {
	h := newHarness(t)
	v, f, _, m := markedDue(t, h, "/overloaded:1 old prompt")
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{TaskID: v.ID, SessionID: sid, Text: "the newer prompt"}))
	m.rt.mu.Lock()
	_, started := h.svc.startMarkedLocked(m.rt, m.p)
	m.rt.mu.Unlock()
	assert.False(t, started, "the superseded retry does not start")
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	var texts []string
	for _, r := range got {
		texts = append(texts, r.Text)
	}
	assert.Equal(t, []string{"/overloaded:1 old prompt", "the newer prompt"}, texts, "the old prompt was not sent again")
}
