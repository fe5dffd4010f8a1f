package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// faultStore is the real store with injected write failures: while fail
// says so, a write answers like a full disk and changes nothing.
type faultStore struct {
	Store
	mu         sync.Mutex                  // guards the fields below
	failEvent  func(store.EventWrite) bool // nil: no failures
	failCreate bool
	failClaim  bool // fails a retry's claim (its turn.started)
	failDelete bool // DeletePendingRetry
	failed     int
}

var errDiskFull = fmt.Errorf("%w: database or disk is full (injected)", store.ErrUnwritable)

func (f *faultStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	if err := f.fault(w); err != nil {
		return err
	}
	return f.Store.AppendEvent(ctx, w)
}

func (f *faultStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	return batchesVia(ctx, f.Store, batches, f.fault)
}

// fault is errDiskFull for a write that fails.
func (f *faultStore) fault(w store.EventWrite) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failEvent != nil && f.failEvent(w) || f.failClaim && w.ClaimRetry != nil { // a retry's claim rides on its turn.started
		f.failed++
		return errDiskFull
	}
	return nil
}

// batchesVia runs AppendEvents through a test store's fault: a batch with a
// write that fails (fault's error) fails whole, as a transaction does, and
// writes nothing; the others go to next.
func batchesVia(ctx context.Context, next Store, batches [][]store.EventWrite, fault func(store.EventWrite) error) []error {
	errs := make([]error, len(batches))
	var pass [][]store.EventWrite
	var idx []int
	for i, b := range batches {
		for _, w := range b {
			if errs[i] = fault(w); errs[i] != nil {
				break
			}
		}
		if errs[i] == nil {
			pass, idx = append(pass, b), append(idx, i)
		}
	}
	if len(pass) > 0 {
		for j, err := range next.AppendEvents(ctx, pass...) {
			errs[idx[j]] = err
		}
	}
	return errs
}

func (f *faultStore) CreateTask(ctx context.Context, t store.Task, s store.Session) error {
	f.mu.Lock()
	fail := f.failCreate
	f.mu.Unlock()
	if fail {
		return errDiskFull
	}
	return f.Store.CreateTask(ctx, t, s)
}

func (f *faultStore) DeletePendingRetry(ctx context.Context, sessionID string) error {
	f.mu.Lock()
	fail := f.failDelete
	f.mu.Unlock()
	if fail {
		return errDiskFull
	}
	return f.Store.DeletePendingRetry(ctx, sessionID)
}

func (f *faultStore) set(fail func(store.EventWrite) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failEvent = fail
}

func failAll(store.EventWrite) bool { return true }

// isReplying: the agent's reply message appeared (with its first chunk).
func isReplying(n note) bool {
	return n.Action == "session.message.added" && n.Message != nil && n.Message.Role == "agent"
}

func isChunk(w store.EventWrite) bool { return w.AppendText != nil }

func withFaults(f *faultStore) harnessOpt {
	return func(c *Config) {
		f.Store = c.Store
		c.Store = f
	}
}

func (h *harness) storedSession(id string) store.Session {
	h.t.Helper()
	s, err := h.db.GetSession(h.ctx, id)
	require.NoError(h.t, err)
	return s
}

func (h *harness) snapshot(id string) SubscribeResult {
	h.t.Helper()
	res, sub, err := h.svc.SubscribeSession(h.ctx, SubscribeRequest{SessionID: id}, 16)
	require.NoError(h.t, err)
	sub.Close()
	return res
}

// A streamed chunk the store refuses is not sent, and the turn stops with
// the "could not save" banner instead of ending as a success with a hole.
func TestChunkThatCannotBeSavedEndsTheTurnWithABanner(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	v, f := h.create("/slow:2000 write it", nil)
	sid := v.Sessions[0].ID
	first := f.until(isReplying)
	faults.set(isChunk) // the disk fills mid-reply: chunks fail, smaller writes still land

	var sent strings.Builder
	sent.WriteString(first.Message.Text)
	var done, banner note
	for {
		n := f.until(func(note) bool { return true })
		if n.Delta != "" {
			sent.WriteString(n.Delta)
		}
		if isBanner(n) {
			banner = n
		}
		if isTurnDone(n) {
			done = n
			break
		}
	}
	require.Equal(t, "failed", done.StopReason, "a turn with an unsaved chunk never ends as a success")
	require.NotNil(t, banner.Message, "the banner comes before the failed turn's end")
	require.Equal(t, kindStoreFailed, banner.Message.Metadata["reason"])
	require.Contains(t, banner.Message.Text, "could not save")
	require.Equal(t, "resume", banner.Message.Actions[0].ID)
	f.until(isState(store.SessionFailed))

	// What clients were sent is exactly what the store holds: no hole.
	agent := byRole(h.messages(sid), "agent")
	require.Len(t, agent, 1)
	require.Equal(t, agent[0].Text, sent.String())
	require.NotContains(t, sent.String(), "step 10/10", "the turn was stopped, not run to its end")
	require.Equal(t, store.SessionFailed, h.storedSession(sid).State)
	require.Len(t, byRole(h.messages(sid), "status"), 1, "the banner was saved")

	// Space is back: Resume runs the prompt again.
	faults.set(nil)
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
}

// A turn whose end cannot be saved at all does not stay RUNNING: the banner
// and the state live in memory (every client sees them, a new subscriber
// too), and are saved once the store takes writes again.
func TestTurnEndThatCannotBeSavedIsHeldThenReconciled(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	v, f := h.create("/slow:2000 write it", nil)
	sid := v.Sessions[0].ID
	f.until(isReplying)
	faults.set(failAll) // nothing lands any more

	banner := f.until(isBanner)
	require.Equal(t, kindStoreFailed, banner.Message.Metadata["reason"])
	require.Equal(t, true, banner.Message.Metadata["unsaved"])
	require.Zero(t, banner.Seq, "not in the event log, so no seq")
	state := f.until(isState(store.SessionFailed))
	require.Zero(t, state.Seq)

	snap := h.snapshot(sid)
	require.Equal(t, store.SessionFailed, snap.Session.State)
	last := snap.Messages[len(snap.Messages)-1]
	require.Equal(t, banner.Message.ID, last.ID, "a new subscriber sees the banner too")
	require.Equal(t, store.SessionRunning, h.storedSession(sid).State, "the store is behind, for now")

	// Resume while the disk is still full changes nothing and says why.
	err := h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume})
	errIs(t, err, ErrStorage)
	require.Contains(t, err.Error(), "nothing was changed")

	// Space is back: the next reconcile saves the banner and the states.
	faults.set(nil)
	h.clock.Advance(reconcileEvery).MustWait(h.ctx)
	saved := f.until(isBanner)
	require.Equal(t, banner.Message.ID, saved.Message.ID)
	require.Positive(t, saved.Seq)
	require.Nil(t, saved.Message.Metadata["unsaved"])
	require.Equal(t, store.SessionFailed, h.storedSession(sid).State)
	task, err := h.db.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	require.Equal(t, store.TaskReview, task.State)
	require.Len(t, byRole(h.messages(sid), "status"), 1)

	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	require.Empty(t, byRole(h.messages(sid), "status"), "Resume retired the banner")
}

// The daemon dies while the store is behind: the next start finds the
// session RUNNING and shows the "interrupted" banner.
func TestUnsavedTurnEndIsInterruptedAfterRestart(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	v, f := h.create("/slow:2000 write it", nil)
	sid := v.Sessions[0].ID
	f.until(isReplying)
	faults.set(failAll)
	f.until(isState(store.SessionFailed))
	h.stop()

	faults.set(nil)
	h.start(withFaults(faults))
	require.NoError(t, h.svc.Start(h.ctx))
	require.Equal(t, store.SessionFailed, h.storedSession(sid).State)
	status := byRole(h.messages(sid), "status")
	require.Len(t, status, 1)
	require.Equal(t, "interrupted", status[0].Metadata["reason"])
}

// Stop ends the turn even when nothing can be saved.
func TestStopEndsATurnWhileWritesFail(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	v, f := h.create("/slow:200000 take your time", nil)
	sid := v.Sessions[0].ID
	f.until(isReplying) // the next chunk is 20s away
	faults.set(failAll)
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: sid}))
	f.until(isBanner) // the banner first, then the turn's end
	f.until(isTurnDone)
	snap := h.snapshot(sid)
	require.NotEqual(t, store.SessionRunning, snap.Session.State)
	require.NotEqual(t, store.SessionStarting, snap.Session.State)
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: sid}), "idempotent")
	// And a new prompt is possible once the disk has room again.
	faults.set(nil)
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "again"}))
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	require.Empty(t, byRole(h.messages(sid), "status"))
}

func TestFailedCreateTaskLeavesNoWorkspace(t *testing.T) {
	faults := &faultStore{failCreate: true}
	h := newHarness(t, withFaults(faults))
	_, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "hello"})
	errIs(t, err, ErrStorage)
	entries, err := os.ReadDir(filepath.Join(h.dataDir, "workspaces"))
	if err == nil {
		require.Empty(t, entries, "no empty workspace left behind")
	}
}

// full makes every write fail, as a full disk does, or none.
func (f *faultStore) full(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failClaim, f.failDelete = on, on
	f.failEvent = nil
	if on {
		f.failEvent = failAll
	}
}

// A parked retry that comes due while the disk is full cannot be claimed,
// so it cannot go safely: the user sees why at once (the could-not-save
// banner, held in memory, in every snapshot, no notice left promising a
// retry), the banner and the row's deletion are saved once the disk has
// room, and Resume then sends the prompt once.
func TestRetryDueOnAFullDiskEndsWithTheBanner(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 fix it", nil)
	sid := v.Sessions[0].ID
	notice := expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")

	faults.full(true)
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	gone := f.until(func(n note) bool { return n.Action == "session.message.deleted" })
	require.Equal(t, notice.Message.ID, gone.MessageID, "the notice stops promising a retry")
	banner := f.until(isBanner)
	require.Equal(t, kindStoreFailed, banner.Message.Metadata["reason"])
	require.Equal(t, true, banner.Message.Metadata["unsaved"])
	f.until(isState(store.SessionFailed))
	snap := h.snapshot(sid)
	require.Equal(t, store.SessionFailed, snap.Session.State)
	require.Equal(t, banner.Message.ID, snap.Messages[len(snap.Messages)-1].ID, "a new subscriber sees the banner")
	for _, m := range snap.Messages {
		require.NotEqual(t, kindRetryNotice, m.Metadata["kind"])
	}
	errIs(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}), ErrStorage)

	faults.full(false)
	h.clock.Advance(reconcileEvery).MustWait(h.ctx)
	saved := f.until(func(n note) bool { return isBanner(n) && n.Seq > 0 })
	require.Equal(t, banner.Message.ID, saved.Message.ID)
	_, ok := h.pending(sid)
	require.False(t, ok, "the row went with it")
	require.Equal(t, store.SessionFailed, h.storedSession(sid).State)

	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	require.Len(t, byRole(h.messages(sid), "user"), 1)
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	require.Len(t, got, 2, "the first attempt, then Resume: nothing behind the user's back")
}

// A notice the store will not delete is gone for the user at once, and
// from the store once it takes writes.
func TestNoticeThatCannotBeDeletedIsGoneForTheUser(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 fix it", nil)
	sid := v.Sessions[0].ID
	notice := expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")

	faults.set(failAll)
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
	gone := f.until(func(n note) bool { return n.Action == "session.message.deleted" })
	require.Equal(t, notice.Message.ID, gone.MessageID)
	f.until(isBanner)
	for _, m := range h.snapshot(sid).Messages {
		require.NotEqual(t, kindRetryNotice, m.Metadata["kind"], "no notice promising a retry")
	}

	faults.set(nil)
	h.clock.Advance(reconcileEvery).MustWait(h.ctx)
	f.until(func(n note) bool { return isBanner(n) && n.Seq > 0 })
	var kinds []any
	for _, m := range h.messages(sid) {
		kinds = append(kinds, m.Metadata["kind"])
	}
	require.Equal(t, []any{kindRecovery}, kinds[len(kinds)-1:])
	require.NotContains(t, kinds, kindRetryNotice)
	_, ok := h.pending(sid)
	require.False(t, ok, "the retry row went too")
}

// Resume whose start cannot be saved, after the parked retry it supersedes
// is gone: the session ends with the banner, not with the retry silently
// dropped (found by make chaos, seed 332).
func TestResumeThatCannotStartEndsWithTheBanner(t *testing.T) {
	faults := &faultStore{}
	h := newHarness(t, withFaults(faults))
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 fix it", nil)
	sid := v.Sessions[0].ID
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	faults.set(func(w store.EventWrite) bool { return w.Event.Type == "session.turn.started" })
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	b := f.until(isBanner)
	require.Equal(t, kindStoreFailed, b.Message.Metadata["reason"])
	f.until(isState(store.SessionFailed))
	_, ok := h.pending(sid)
	require.False(t, ok)
}
