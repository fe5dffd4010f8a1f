package orchestrator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// noticeOf is the session's stored retry notice.
func (h *harness) noticeOf(sid string) store.Message {
	h.t.Helper()
	for _, m := range h.messages(sid) {
		if m.Role == "status" {
			return m
		}
	}
	h.t.Fatalf("session %s has no notice", sid)
	return store.Message{}
}

// A waiting session another daemon shows to a client (it asked for the
// session's marks) has its notice brought up to date at once and kept
// current on the gate's next probes, as for a client of its own.
func TestARemotelyWatchedNoticeFollowsTheGate(t *testing.T) {
	h := newHarness(t, perSessionSchedule)
	gf := h.gates()
	t0 := h.clock.Now()
	vs, fs, _ := h.openGate(3)
	h.advanceTo(t0.Add(5 * time.Second))
	gf.until(probeFailed(1))
	var ids []string
	for i, v := range vs {
		h.settled(v.Sessions[0].ID, fs[i])
		fs[i].sub.Close() // nobody watches here
		ids = append(ids, v.Sessions[0].ID)
	}
	h.svc.Marks(ids) // another daemon's client looks at them
	for _, id := range ids {
		n := h.noticeOf(id)
		assert.Contains(t, n.Text, "next check in 10s (3 sessions waiting)", "brought up to date when asked")
		assert.Equal(t, t0.Add(15*time.Second).UTC().Format(time.RFC3339Nano), n.Metadata["retry_at"])
	}
	h.advanceTo(t0.Add(15 * time.Second))
	gf.until(probeFailed(2))
	reqs, err := mockagent.WallRequests(h.stateDir)
	require.NoError(t, err)
	probeTask := reqs[len(reqs)-1].Task
	h.stop() // waits for the refresh the probe started
	rewritten := 0
	for _, v := range vs {
		if v.ID == probeTask {
			continue
		}
		n := h.noticeOf(v.Sessions[0].ID)
		assert.NotEqual(t, t0.Add(15*time.Second).UTC().Format(time.RFC3339Nano), n.Metadata["retry_at"],
			"the notice names the next check after the second probe")
		rewritten++
	}
	assert.Equal(t, 2, rewritten)
}

// askingRelay is fakeRelay noting every ask for marks.
type askingRelay struct {
	fakeRelay
	mu   sync.Mutex // guards asks
	asks [][]string
}

func (r *askingRelay) Marks(_ context.Context, ids []string) map[string]Marks {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks = append(r.asks, ids)
	return nil
}

func (r *askingRelay) asked() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.asks)
}

// A client's subscription to a session another daemon runs tells that
// daemon, at once and again while it lasts; no more once it ends.
func TestARemoteSubscriptionTellsTheOwnerWhileItLasts(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("hello", nil)
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput))
	sid := v.Sessions[0].ID
	r := &askingRelay{fakeRelay: fakeRelay{db: h.db}}
	trap := h.trapNewTimer("remote-watch")
	defer trap.Close()
	_, sub, err := h.svc.SubscribeRemote(h.ctx, SubscribeRequest{SessionID: sid}, 16, r)
	require.NoError(t, err)
	trap.MustWait(h.ctx).MustRelease(h.ctx)
	require.Equal(t, 1, r.asked(), "told when the client subscribes")
	assert.Equal(t, []string{sid}, r.asks[0])
	h.clock.Advance(remoteWatchRenew).MustWait(h.ctx)
	trap.MustWait(h.ctx).MustRelease(h.ctx)
	require.Equal(t, 2, r.asked(), "told again before the owner forgets")
	sub.Close()
	trap.Close()
	h.clock.Advance(remoteWatchRenew).MustWait(h.ctx) // its next renewal's time
	assert.Never(t, func() bool { return r.asked() > 2 }, 100*time.Millisecond, time.Millisecond,
		"not told again once the subscription ended")
	h.stop()
}
