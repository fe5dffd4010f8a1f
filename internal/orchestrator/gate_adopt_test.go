package orchestrator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/store"
)

// A session that waited on the fleet's gate on a daemon that died is taken
// over by another: it waits on that daemon's gate at once, in its place
// (it began waiting before the sessions that failed after it), sends no
// request of its own, and is released with the others when the fleet's
// probe succeeds.
func TestFleetGateAdoptedWaiterRejoinsTheFleetsGate(t *testing.T) {
	fh := newFleetHarness(t, 2)
	a, b := fh.nodes[0], fh.nodes[1]
	t0 := a.h.clock.Now()
	gfA := a.h.gates()
	vs, fs, _ := a.h.openGate(3)
	fh.eventually("A probes for the fleet", func() bool { return a.gate("mock").Prober })
	fh.eventually("B follows", func() bool { return b.gate("mock").State == overload.Open })
	vb, _, _ := b.h.parkOne(10)
	sid := vb.Sessions[0].ID
	rec, err := fh.db.GetPendingRetry(a.h.ctx, sid)
	require.NoError(t, err)
	_, since, _ := gateOfRetry(rec)
	fh.sync(b, a)
	require.Equal(t, 1, a.gate("mock").PeersWaiting)
	// A fourth session fails on A a second after B's began waiting.
	a.h.advanceTo(t0.Add(time.Second))
	v4, f4, _ := a.h.parkOne(11)
	vs, fs = append(vs, v4), append(fs, f4)
	before := a.h.providerRequests()

	// B's machine goes away with its session waiting; A takes it over.
	b.fg.cut.Store(true)
	b.h.stop()
	require.NoError(t, a.h.svc.Adopt(a.h.ctx, []string{sid}, "takeover"))
	var sess store.Session
	// A's first two wait on their own 5s timers still (they opened the
	// gate); the third and the fourth wait on it, and now B's.
	assert.Equal(t, 3, a.gate("mock").Waiting, "it waits on A's gate at once, not when its own timer would fire")
	a.h.svc.gate.mu.Lock()
	w, _ := a.h.svc.gate.gates["mock"].g.Waiter(sid)
	order := a.h.svc.gate.gates["mock"].g.Waiters()
	a.h.svc.gate.mu.Unlock()
	assert.True(t, since.Equal(w.Since), "its wait goes on from when it began on B")
	require.Len(t, order, 3)
	assert.Equal(t, []string{vs[2].Sessions[0].ID, sid, v4.Sessions[0].ID}, []string{order[0].Session, order[1].Session, order[2].Session},
		"in its place: before the session that failed after it")
	sess, err = fh.db.GetSession(a.h.ctx, sid)
	require.NoError(t, err)
	fa := a.h.follow(sid, sess.LastSeq)

	// The fleet's first probe is A's gate's; the adopted session sends
	// nothing of its own.
	a.h.advanceTo(t0.Add(5 * time.Second))
	g := gfA.until(probeFailed(1))
	assert.Equal(t, before+1, a.h.providerRequests(), "one probe, and no request of the adopted session")

	// The wall ends; the next probe succeeds: the adopted session goes with
	// the others.
	a.h.setWall(false)
	a.h.advanceTo(*g.NextProbeAt)
	gfA.until(isClosed)
	a.h.advanceTo(a.h.clock.Now().Add(5 * time.Second)) // the release window
	assert.Equal(t, "end_turn", fa.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)
	for i := range vs {
		fs[i].until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	}
	msgs, err := fh.db.ListMessages(a.h.ctx, sid)
	require.NoError(t, err)
	for _, m := range msgs {
		assert.NotEqual(t, "error", m.Variant, "no banner")
	}
	assert.Len(t, byRole(msgs, "user"), 1)
	assert.Equal(t, before+2+4, a.h.providerRequests(), "the two probes, then the four others once each")
}

// An adopted waiter's notice is the dead daemon's, naming the next check
// as that daemon last saw it; the fleet's probe failed since and moved it
// on. Adopted, the session's notice (in the store, where a client on any
// daemon reads it) and its retry row name the gate's next check as the
// adopter has it.
func TestFleetGateAdoptedWaiterNoticeNamesTheGatesNextCheck(t *testing.T) {
	fh := newFleetHarness(t, 2)
	a, b := fh.nodes[0], fh.nodes[1]
	ctx := a.h.ctx
	t0 := a.h.clock.Now()
	gfA := a.h.gates()
	a.h.openGate(3)
	fh.eventually("A probes for the fleet", func() bool { return a.gate("mock").Prober })
	fh.eventually("B follows", func() bool { return b.gate("mock").State == overload.Open })
	vb, _, _ := b.h.parkOne(10)
	sid := vb.Sessions[0].ID
	fh.sync(b, a)
	notice := func() store.Message {
		t.Helper()
		rec, err := fh.db.GetPendingRetry(ctx, sid)
		require.NoError(t, err)
		msgs, err := fh.db.ListMessages(ctx, sid)
		require.NoError(t, err)
		for _, m := range msgs {
			if m.ID == rec.NoticeID {
				return m
			}
		}
		t.Fatalf("no notice %s", rec.NoticeID)
		return store.Message{}
	}
	old := notice()

	// B dies with its session waiting; A's probe fails meanwhile and
	// moves the next check on.
	b.fg.cut.Store(true)
	b.h.stop()
	a.h.advanceTo(t0.Add(5 * time.Second))
	next := *gfA.until(probeFailed(1)).NextProbeAt
	require.NotEqual(t, next.UTC().Format(time.RFC3339Nano), old.Metadata["retry_at"], "B's notice names the check that failed")
	evs, err := fh.db.ListEvents(ctx, sid, 0, 0)
	require.NoError(t, err)
	before := len(evs)

	require.NoError(t, a.h.svc.Adopt(ctx, []string{sid}, "takeover"))
	m := notice()
	assert.Equal(t, next.UTC().Format(time.RFC3339Nano), m.Metadata["retry_at"], "the gate's next check as A has it")
	assert.Contains(t, m.Text, "next check in "+humanDelay(next.Sub(a.h.clock.Now())))
	rec, err := fh.db.GetPendingRetry(ctx, sid)
	require.NoError(t, err)
	assert.True(t, next.Equal(rec.RetryAt), "its retry row too")
	evs, err = fh.db.ListEvents(ctx, sid, 0, 0)
	require.NoError(t, err)
	require.Equal(t, before+1, len(evs), "one write: the notice, published")
	assert.Equal(t, "session.message.updated", evs[before].Type)
	a.h.svc.gate.mu.Lock()
	_, waits := a.h.svc.gate.gates["mock"].g.Waiter(sid)
	a.h.svc.gate.mu.Unlock()
	assert.True(t, waits, "it waits on A's gate")
}
