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
