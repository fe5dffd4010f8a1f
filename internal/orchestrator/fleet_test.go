package orchestrator

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// fakeFleet owns whatever it is asked to: the daemons of these tests
// share the harness's SQLite store in turn, one after the other (the
// PostgreSQL fence is the store's, tested there and in test/fleet).
type fakeFleet struct{ self string }

func (f fakeFleet) Self() string { return f.self }
func (fakeFleet) Claim(context.Context, string) (bool, bool, error) {
	return true, false, nil
}
func (fakeFleet) Holder(context.Context, string) (string, error) { return "", nil }
func (fakeFleet) Unpin(string)                                   {}
func (fakeFleet) Release(context.Context, string) (bool, error)  { return false, nil }
func (fakeFleet) Forget(string)                                  {}
func (f fakeFleet) Place(context.Context, string, string) (string, error) {
	return f.self, nil
}
func (fakeFleet) Hand(context.Context, string, string, string) error {
	return errors.New("fakeFleet: no other daemon")
}

func inFleet(self string) harnessOpt {
	return func(c *Config) { c.Fleet = fakeFleet{self: self} }
}

// A daemon that takes over a dead one's session re-arms its parked retry
// for the time left to its original retry_at, and the retry runs there.
func TestAdoptReArmsAParkedRetryAtItsOriginalRetryAt(t *testing.T) {
	h := newHarness(t, inFleet("a"))
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:1 survive a takeover", nil)
	sid := v.Sessions[0].ID
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	trap.Close()
	h.clock.Advance(2 * time.Second).MustWait(h.ctx)
	h.stop() // daemon a is gone; its row stays

	trap = h.trapAfterFunc("retry")
	defer trap.Close()
	h.start(inFleet("b"))
	go func() { assert.NoError(t, h.svc.Adopt(h.ctx, []string{sid}, "takeover")) }()
	call := trap.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	assert.Equal(t, 3*time.Second, call.Duration, "re-armed for the time left to its retry_at")
	sess, err := h.db.GetSession(h.ctx, sid)
	require.NoError(t, err)
	f2 := h.follow(sid, sess.LastSeq)
	h.clock.Advance(3 * time.Second).MustWait(h.ctx)
	assert.Equal(t, "end_turn", f2.until(isTurnDone).StopReason)
	assert.Len(t, byRole(h.messages(sid), "user"), 1, "the prompt was not sent again as a new turn")
	_, parked := h.pending(sid)
	assert.False(t, parked)
}

// A retry the dead daemon was dispatching, and a turn it was running,
// become banners that say another daemon took the task over; nothing is
// re-sent.
func TestAdoptTurnsWorkInFlightIntoBanners(t *testing.T) {
	h := newHarness(t, inFleet("a"))
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:1 dispatching", nil)
	dispatching := v.Sessions[0].ID
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	trap.Close()
	v, f = h.create("/slow:60000 running", nil)
	running := v.Sessions[0].ID
	f.until(isState(store.SessionRunning))
	h.stop()
	row, _ := h.pending(dispatching)
	ok, err := h.db.ClaimPendingRetry(h.ctx, dispatching, row.Generation, row.Attempt) // claimed when a died
	require.NoError(t, err)
	require.True(t, ok)

	h.start(inFleet("b"))
	require.NoError(t, h.svc.Adopt(h.ctx, []string{dispatching, running}, "takeover"))
	for _, sid := range []string{dispatching, running} {
		banners := byRole(h.messages(sid), "status")
		require.NotEmpty(t, banners, sid)
		last := banners[len(banners)-1]
		assert.Equal(t, "error", last.Variant)
		assert.Contains(t, last.Text, "another daemon of the fleet took the task over")
		assert.Contains(t, last.Text, "Nothing was re-sent automatically")
		sess, err := h.db.GetSession(h.ctx, sid)
		require.NoError(t, err)
		assert.Equal(t, store.SessionFailed, sess.State)
	}
	_, parked := h.pending(dispatching)
	assert.False(t, parked)
}

// Where the task's work directory cannot be reached from the taker (it was
// on the machine that went away), the banner says so and the parked retry
// does not fire.
func TestAdoptWithoutTheWorkdirSaysTheMachineWentAway(t *testing.T) {
	h := newHarness(t, inFleet("a"))
	trap := h.trapAfterFunc("retry")
	v, f := h.create("/overloaded:1 far away", nil)
	sid := v.Sessions[0].ID
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	trap.Close()
	h.stop()
	require.NoError(t, os.RemoveAll(v.Workdir))

	h.start(inFleet("b"))
	require.NoError(t, h.svc.Adopt(h.ctx, []string{sid}, "takeover"))
	banners := byRole(h.messages(sid), "status")
	require.Len(t, banners, 1, "the retry notice gave way to the banner")
	assert.Contains(t, banners[0].Text, "The machine running this task went away")
	assert.Contains(t, banners[0].Text, v.Workdir)
	assert.Equal(t, kindMachineGone, banners[0].Metadata["reason"])
	_, parked := h.pending(sid)
	assert.False(t, parked, "no retry left to fire")
}
