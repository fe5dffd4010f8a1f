package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// slowNoticeStore takes 300ms (on the mock clock) to save a retry notice,
// as a loaded disk does.
type slowNoticeStore struct {
	Store
	clock *quartz.Mock
}

func (s slowNoticeStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	err := s.Store.AppendEvent(ctx, w)
	if w.SaveRetry != nil {
		s.clock.Advance(300 * time.Millisecond)
	}
	return err
}

func (s slowNoticeStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	errs := s.Store.AppendEvents(ctx, batches...)
	for _, b := range batches {
		for _, w := range b {
			if w.SaveRetry != nil {
				s.clock.Advance(300 * time.Millisecond)
			}
		}
	}
	return errs
}

// The timer counts to retry_at, not the delay from whenever the writes
// that park the retry are done: found by the fault suite (test/chaos),
// where every retry fired as late as its notice took to save.
func TestRetryTimerCountsToRetryAtNotFromTheEndOfItsWrites(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = slowNoticeStore{Store: h.db, clock: h.clock} })
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	failedAt := h.clock.Now()
	v, f := h.create("/overloaded:1 on time", nil)
	call, err := trap.Wait(h.ctx)
	require.NoError(t, err)
	n := f.until(isNotice)
	retryAt, err := time.Parse(time.RFC3339Nano, n.Message.Metadata["retry_at"].(string))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second-300*time.Millisecond, call.Duration, "armed for what is left until retry_at")
	assert.Equal(t, failedAt.Add(5*time.Second).UTC(), retryAt.UTC(), "retry_at is the failure plus the delay")
	call.MustRelease(h.ctx)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	done := f.until(func(n note) bool { return isTurnDone(n) && n.StopReason != "retry_scheduled" })
	assert.Equal(t, "end_turn", done.StopReason)
	assert.Len(t, byRole(h.messages(v.Sessions[0].ID), "user"), 1)
}

// Resume with nothing to recover (a second click once the first resumed
// turn has answered) is refused: it would send the agent, still running
// the same session, the prompt it has already answered. Found by the
// fault suite (test/chaos seed 100).
func TestResumeWithNothingToRecoverIsAConflictAndSendsNothing(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("hello once", nil)
	sid := v.Sessions[0].ID
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	f.until(isState(store.SessionWaitingForInput))

	err := h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume})
	require.ErrorIs(t, err, ErrConflict)
	assert.Contains(t, err.Error(), "nothing to resume")
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	require.Len(t, got, 1, "the agent received the prompt once")
	assert.Equal(t, "hello once", got[0].Text)
	assert.Len(t, byRole(h.messages(sid), "user"), 1)
}

// A new prompt while a retry is parked takes the old notice (and its
// Cancel, which would do nothing) off the screen at once, not when the new
// turn ends (issue 10 #5).
func TestNewPromptTakesTheParkedNoticeAwayAtOnce(t *testing.T) {
	h, v, f := parkFirst(t, "/overloaded:1 first")
	sid := v.Sessions[0].ID
	notice := byRole(h.messages(sid), "status")
	require.Len(t, notice, 1)

	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/slow:300 something else"}))
	deleted := f.until(func(n note) bool {
		return n.Action == "session.message.deleted" || n.Action == "session.message.added" && n.Message != nil && n.Message.Role == "agent"
	})
	assert.Equal(t, "session.message.deleted", deleted.Action, "the notice goes before the new turn replies")
	assert.Equal(t, notice[0].ID, deleted.MessageID)
	assert.Empty(t, byRole(h.messages(sid), "status"))
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
}

// failRetryStartStore refuses the turn.started of a retry's attempt, as a
// disk that filled at the fire does.
type failRetryStartStore struct {
	Store
}

func (s failRetryStartStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	if err := s.fault(w); err != nil {
		return err
	}
	return s.Store.AppendEvent(ctx, w)
}

func (s failRetryStartStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	return batchesVia(ctx, s.Store, batches, s.fault)
}

func (s failRetryStartStore) fault(w store.EventWrite) error {
	if w.Event.Type == "session.turn.started" && strings.Contains(string(w.Event.Payload), `"retry":1`) {
		return fmt.Errorf("%w: database or disk is full", store.ErrUnwritable)
	}
	return nil
}

// A retry whose attempt's start cannot be saved ends with the
// could-not-save banner; it is never left dispatching with nothing running
// (found by the fault suite, test/chaos seed 103: a full disk at the fire).
// The claim rides on that turn.started, so it was not saved either.
func TestRetryThatCannotStartShowsTheBanner(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = failRetryStartStore{Store: h.db} })
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 cannot start", nil)
	sid := v.Sessions[0].ID
	call, err := trap.Wait(h.ctx)
	require.NoError(t, err)
	call.MustRelease(h.ctx)
	f.until(isNotice)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	b := f.until(isBanner)
	assert.Equal(t, kindStoreFailed, b.Message.Metadata["reason"])
	f.until(isState(store.SessionFailed))
	_, pending := h.pending(sid)
	assert.False(t, pending, "no retry is left dispatching")
}

// failClaimStore cannot save a retry's claim, as a full disk at its fire.
type failClaimStore struct {
	Store
}

// AppendEvent: a retry's claim rides on its turn.started (dispatchLocked).
func (s failClaimStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	if err := s.fault(w); err != nil {
		return err
	}
	return s.Store.AppendEvent(ctx, w)
}

func (s failClaimStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	return batchesVia(ctx, s.Store, batches, s.fault)
}

func (s failClaimStore) fault(w store.EventWrite) error {
	if w.ClaimRetry != nil {
		return fmt.Errorf("%w: database or disk is full", store.ErrUnwritable)
	}
	return nil
}

// A due retry whose claim cannot be saved fails visibly: the notice that
// promised it goes, the could-not-save banner with Resume comes, nothing is
// re-sent and nothing is left pending behind the banner. (It used to be
// held and tried again every reconcileEvery behind a notice still saying
// "retrying", silently, and was lost once the user moved on: test/chaos
// seeds 5000 and 5024.)
func TestRetryWhoseClaimCannotBeSavedEndsWithTheBanner(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = failClaimStore{Store: h.db} })
	trap := h.trapAfterFunc("retry")
	defer trap.Close()
	v, f := h.create("/overloaded:1 claim me", nil)
	sid := v.Sessions[0].ID
	call, err := trap.Wait(h.ctx)
	require.NoError(t, err)
	call.MustRelease(h.ctx)
	notice := f.until(isNotice)
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	b := f.until(isBanner)
	assert.Equal(t, kindStoreFailed, b.Message.Metadata["reason"])
	assert.Contains(t, b.Message.Text, "could not save")
	assert.Equal(t, "resume", b.Message.Actions[0].ID)
	f.until(isState(store.SessionFailed))
	_, pending := h.pending(sid)
	assert.False(t, pending, "no retry left behind the banner")
	for _, m := range h.messages(sid) {
		assert.NotEqual(t, notice.Message.ID, m.ID, "no notice still promising the retry")
	}
	assert.Len(t, byRole(h.messages(sid), "user"), 1, "nothing was re-sent")
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	assert.Len(t, got, 1, "the agent got the first attempt only")
}

// A retry row that a full disk kept from being deleted when the banner
// ended its chain is dropped at the next start: it neither fires behind
// the banner nor becomes an "interrupted" one (found by the fault suite,
// test/chaos seed 2049: the daemon replayed the turn after a restart).
func TestStaleRetryRowBehindABannerIsDroppedAtStart(t *testing.T) {
	h := newHarness(t)
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:4 stale row", nil)
	sid := v.Sessions[0].ID
	for _, d := range []time.Duration{5 * time.Second, 15 * time.Second, 30 * time.Second} {
		call, err := trap.Wait(h.ctx)
		require.NoError(t, err)
		call.MustRelease(h.ctx)
		h.clock.Advance(d).MustWait(h.ctx)
	}
	trap.Close()
	b := f.until(isBanner)
	f.until(isState(store.SessionFailed))
	// What a failed delete leaves behind.
	require.NoError(t, h.db.SavePendingRetry(h.ctx, store.PendingRetry{
		SessionID: sid, TaskID: v.ID, Generation: 1, Attempt: 3, MaxAttempts: 3, Code: "overloaded",
		RetryAt: h.clock.Now().Add(-time.Second), Prompt: "/overloaded:4 stale row", Resume: true, State: store.RetryPending,
		CreatedAt: h.clock.Now(),
	}))

	h.stop()
	h.start()
	require.NoError(t, h.svc.Start(h.ctx))
	_, ok := h.pending(sid)
	assert.False(t, ok, "the stale row is gone")
	status := byRole(h.messages(sid), "status")
	require.Len(t, status, 1)
	assert.Equal(t, b.Message.ID, status[0].ID, "the banner stays as it was")
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	assert.Len(t, got, 4, "nothing was re-sent: the first attempt and three retries")
}

// failDeleteOnce cannot delete a pending retry the first time, as a full disk.
type failDeleteOnce struct {
	Store
	failed *atomic.Bool
}

func (s failDeleteOnce) DeletePendingRetry(ctx context.Context, id string) error {
	if s.failed.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: database or disk is full", store.ErrUnwritable)
	}
	return s.Store.DeletePendingRetry(ctx, id)
}

// The row a failed delete left behind is deleted by the next reconcile,
// without a restart.
func TestRetryRowAFullDiskKeptIsDeletedWhenTheStoreWritesAgain(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = failDeleteOnce{Store: h.db, failed: &atomic.Bool{}} })
	retry := h.trapAfterFunc("retry")
	reconcile := h.trapAfterFunc("reconcile")
	defer reconcile.Close()
	v, f := h.create("/overloaded:4 row left", nil)
	sid := v.Sessions[0].ID
	for range 3 {
		call, err := retry.Wait(h.ctx)
		require.NoError(t, err)
		call.MustRelease(h.ctx)
		h.clock.Advance(call.Duration).MustWait(h.ctx)
	}
	retry.Close()
	call, err := reconcile.Wait(h.ctx) // the banner's delete failed: reconcile is armed
	require.NoError(t, err)
	call.MustRelease(h.ctx)
	f.until(isBanner)
	_, ok := h.pending(sid)
	assert.True(t, ok, "the row the full disk kept")
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	_, ok = h.pending(sid)
	assert.False(t, ok, "reconcile deleted it")
}

// failNoticeDeleteOnce cannot delete a message the first time, as a full disk.
type failNoticeDeleteOnce struct {
	Store
	failed *atomic.Bool
}

func (s failNoticeDeleteOnce) AppendEvent(ctx context.Context, w store.EventWrite) error {
	if err := s.fault(w); err != nil {
		return err
	}
	return s.Store.AppendEvent(ctx, w)
}

func (s failNoticeDeleteOnce) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	return batchesVia(ctx, s.Store, batches, s.fault)
}

func (s failNoticeDeleteOnce) fault(w store.EventWrite) error {
	if w.DeleteMessage != "" && s.failed.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: database or disk is full", store.ErrUnwritable)
	}
	return nil
}

// A notice whose deletion a full disk refused does not stay above the
// banner: reconcile deletes it (found by test/chaos seed 2049).
func TestNoticeAFullDiskKeptIsDeletedWhenTheStoreWritesAgain(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = failNoticeDeleteOnce{Store: h.db, failed: &atomic.Bool{}} })
	retry := h.trapAfterFunc("retry")
	reconcile := h.trapAfterFunc("reconcile")
	defer reconcile.Close()
	v, f := h.create("/overloaded:4 notice left", nil)
	sid := v.Sessions[0].ID
	for range 3 {
		call, err := retry.Wait(h.ctx)
		require.NoError(t, err)
		call.MustRelease(h.ctx)
		h.clock.Advance(call.Duration).MustWait(h.ctx)
	}
	retry.Close()
	call, err := reconcile.Wait(h.ctx)
	require.NoError(t, err)
	call.MustRelease(h.ctx)
	f.until(isBanner)
	// The notice the full disk kept is still there; the banner is saved with
	// it, or (when its write carried the refused delete) waits in memory for
	// the same reconcile.
	kept := byRole(h.messages(sid), "status")
	require.NotEmpty(t, kept)
	assert.Equal(t, kindRetryNotice, kept[0].Metadata["kind"], "the notice the full disk kept")
	h.clock.Advance(call.Duration).MustWait(h.ctx)
	status := byRole(h.messages(sid), "status")
	require.Len(t, status, 1)
	assert.Equal(t, kindRecovery, status[0].Metadata["kind"])
}

// failResumeStartStore refuses the turn.started of a manual Resume.
type failResumeStartStore struct {
	Store
}

func (s failResumeStartStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	if err := s.fault(w); err != nil {
		return err
	}
	return s.Store.AppendEvent(ctx, w)
}

func (s failResumeStartStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	return batchesVia(ctx, s.Store, batches, s.fault)
}

func (s failResumeStartStore) fault(w store.EventWrite) error {
	if w.Event.Type == "session.turn.started" && strings.Contains(string(w.Event.Payload), `"replay":true`) {
		return fmt.Errorf("%w: database or disk is full", store.ErrUnwritable)
	}
	return nil
}

// A Resume whose turn cannot be saved puts the banner back: the chat is
// never left with neither the banner nor a turn (found by the fault suite,
// test/chaos seed 4012).
func TestResumeThatCannotBeSavedKeepsABanner(t *testing.T) {
	h := newHarness(t)
	h.stop()
	h.start(func(c *Config) { c.Store = failResumeStartStore{Store: h.db} })
	v, f := h.create("/auth resume me", nil)
	sid := v.Sessions[0].ID
	f.until(isBanner)
	f.until(isState(store.SessionFailed))

	// Answered OK or not, the turn ends at once with the banner back.
	_ = h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume})
	b := f.until(isBanner)
	assert.Equal(t, kindStoreFailed, b.Message.Metadata["reason"])
}
