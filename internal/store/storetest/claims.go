package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// A batch claims exactly the retries a one-by-one claim would, across the
// statement boundary, and each only once.
func testClaimPendingRetriesMatchesOneByOne(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	const n = 1200
	var claims []store.RetryClaim
	var want []bool
	for i := range n {
		sid := fmt.Sprintf("s%04d", i)
		tid := "t" + sid
		require.NoError(t, db.CreateTask(ctx, newTask(tid, i), newSession(sid, tid, i)))
		require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: sid, TaskID: tid, Generation: 2, Attempt: 1,
			MaxAttempts: 3, RetryAt: at(i), CreatedAt: at(i)}))
		c := store.RetryClaim{SessionID: sid, Generation: 2, Attempt: 1}
		ok := true
		switch i % 5 {
		case 1:
			c.Generation = 1 // superseded by a newer prompt
			ok = false
		case 2:
			c.Attempt = 2
			ok = false
		case 3: // claimed already
			got, err := db.ClaimPendingRetry(ctx, sid, 2, 1)
			require.NoError(t, err)
			require.True(t, got)
			ok = false
		}
		claims, want = append(claims, c), append(want, ok)
	}
	claims = append(claims, store.RetryClaim{SessionID: "missing", Generation: 2, Attempt: 1}, claims[0])
	want = append(want, false, false)

	got, err := db.ClaimPendingRetries(ctx, claims)
	require.NoError(t, err)
	require.Equal(t, want, got)
	for i, c := range claims[:n] {
		r, err := db.GetPendingRetry(ctx, c.SessionID)
		require.NoError(t, err)
		wantState := store.RetryPending
		if want[i] || i%5 == 3 {
			wantState = store.RetryDispatching
		}
		require.Equal(t, wantState, r.State, c.SessionID)
	}
	again, err := db.ClaimPendingRetries(ctx, claims)
	require.NoError(t, err)
	require.NotContains(t, again, true, "a claimed retry is never claimed twice")
	none, err := db.ClaimPendingRetries(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, none)
}

// A turn.started that carries its retry's claim writes the event and the
// claim together, or, when the retry is not claimable, nothing at all; a
// turn.completed that carries the delete removes the row with the event.
func testAppendEventClaimsAndDeletesTheRetry(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	require.NoError(t, db.CreateTask(ctx, newTask("t1", 1), newSession("s1", "t1", 1)))
	require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s1", TaskID: "t1", Generation: 2, Attempt: 1,
		MaxAttempts: 3, RetryAt: at(1), CreatedAt: at(1)}))
	event := func(seq int64, typ string) store.Event {
		return store.Event{SessionID: "s1", Seq: seq, Type: typ, Payload: []byte(`{}`), At: at(int(seq))}
	}

	err := db.AppendEvent(ctx, store.EventWrite{Event: event(1, "session.turn.started"),
		ClaimRetry: &store.RetryClaim{SessionID: "s1", Generation: 1, Attempt: 1}}) // an older generation's timer
	require.ErrorIs(t, err, store.ErrNotClaimed)
	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Empty(t, evs, "nothing of a write whose claim failed")
	r, err := db.GetPendingRetry(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, store.RetryPending, r.State)

	claim := &store.RetryClaim{SessionID: "s1", Generation: 2, Attempt: 1}
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(1, "session.turn.started"), ClaimRetry: claim}))
	r, err = db.GetPendingRetry(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, store.RetryDispatching, r.State)
	require.ErrorIs(t, db.AppendEvent(ctx, store.EventWrite{Event: event(2, "session.turn.started"), ClaimRetry: claim}),
		store.ErrNotClaimed, "claimed once only")

	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(2, "session.turn.completed"), DeleteRetry: true}))
	_, err = db.GetPendingRetry(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	evs, err = db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(3, "session.turn.completed"), DeleteRetry: true}),
		"deleting a missing retry is no error")
}
