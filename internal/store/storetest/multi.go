package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// AppendEvents: each batch all or nothing, batches independent of each
// other, in one call; a turn's start (claim, turn.started, its state)
// is one batch.
func testAppendEventsBatchesAreAtomicApart(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	for _, id := range []string{"1", "2", "3", "4"} {
		seed(t, db, "t"+id, "s"+id)
		require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s" + id, TaskID: "t" + id, Generation: 1, Attempt: 1,
			MaxAttempts: 3, RetryAt: at(1), CreatedAt: at(1)}))
	}
	start := func(sid string, attempt int) []store.EventWrite {
		starting := store.Session{ID: sid, State: store.SessionStarting, Generation: 1, UpdatedAt: at(2)}
		return []store.EventWrite{
			{Event: event(sid, 1, "session.turn.started", map[string]any{"retry": attempt}),
				ClaimRetry: &store.RetryClaim{SessionID: sid, Generation: 1, Attempt: attempt}},
			{Event: event(sid, 2, "session.state_changed", map[string]any{"state": store.SessionStarting}), Session: &starting},
			{Event: event(sid, 3, "session.message.added", map[string]any{"n": 3}),
				UpsertMessage: &store.Message{ID: "m-" + sid, Role: "agent", Text: "hello"}},
		}
	}
	bad := start("s3", 1)
	bad[2].Event.Seq = 7 // a seq conflict at the last write undoes the batch's claim too
	invalid := start("s4", 1)
	invalid[1].Event.Type = ""
	errs := db.AppendEvents(ctx, start("s1", 1), start("s2", 2), bad, invalid)
	require.Len(t, errs, 4)
	require.NoError(t, errs[0])
	require.ErrorIs(t, errs[1], store.ErrNotClaimed, "another attempt's claim")
	require.ErrorIs(t, errs[2], store.ErrSeqConflict)
	require.ErrorIs(t, errs[3], store.ErrInvalid)

	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
	}
	s1, err := db.GetSession(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, int64(3), s1.LastSeq)
	require.Equal(t, store.SessionStarting, s1.State)
	m, err := db.GetMessage(ctx, "m-s1")
	require.NoError(t, err)
	require.Equal(t, "hello", m.Text)
	r, err := db.GetPendingRetry(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, store.RetryDispatching, r.State)

	for _, sid := range []string{"s2", "s3", "s4"} {
		evs, err := db.ListEvents(ctx, sid, 0, 0)
		require.NoError(t, err)
		require.Empty(t, evs, "nothing of a batch that failed: %s", sid)
		s, err := db.GetSession(ctx, sid)
		require.NoError(t, err)
		require.Zero(t, s.LastSeq, sid)
		r, err := db.GetPendingRetry(ctx, sid)
		require.NoError(t, err)
		require.Equal(t, store.RetryPending, r.State, "still claimable: %s", sid)
		_, err = db.GetMessage(ctx, "m-"+sid)
		require.ErrorIs(t, err, store.ErrNotFound)
	}

	// The end of a retried turn: its notice goes, the turn completes with
	// the retry row, the session waits again; one batch.
	waiting := store.Session{ID: "s1", State: store.SessionWaitingForInput, Generation: 1, UpdatedAt: at(5)}
	task := newTask("t1", 0)
	task.State = store.TaskReview
	errs = db.AppendEvents(ctx, []store.EventWrite{
		{Event: event("s1", 4, "session.message.deleted", map[string]any{"message_id": "m-s1"}), DeleteMessage: "m-s1"},
		{Event: event("s1", 5, "session.turn.completed", map[string]any{}), DeleteRetry: true},
		{Event: event("s1", 6, "session.state_changed", map[string]any{}), Session: &waiting, Task: &task},
	})
	require.Equal(t, []error{nil}, errs)
	_, err = db.GetPendingRetry(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	got, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, store.TaskReview, got.State)
	s1, err = db.GetSession(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, int64(6), s1.LastSeq)
	require.Equal(t, store.SessionWaitingForInput, s1.State)

	// Without a batch that fails part-way: s1's retry is gone, s2's claimable.
	errs = db.AppendEvents(ctx, start("s1", 1), start("s2", 1))
	require.ErrorIs(t, errs[0], store.ErrNotClaimed)
	require.NoError(t, errs[1])
	evs, err = db.ListEvents(ctx, "s2", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	s1, err = db.GetSession(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, int64(6), s1.LastSeq, "nothing of the batch whose claim failed")

	require.Empty(t, db.AppendEvents(ctx), "no batches, no answers")
	require.Equal(t, []error{nil}, db.AppendEvents(ctx, nil), "an empty batch writes nothing")
}

// CountMessages counts one role's messages with exactly that text, chunks
// included, in one session only.
func testCountMessages(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	seed(t, db, "t2", "s2")
	add := func(sid string, seq int64, id, role, text string) {
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(sid, seq, "session.message.added", map[string]any{}),
			UpsertMessage: &store.Message{ID: id, Role: role, Text: text}}))
	}
	add("s1", 1, "u1", "user", "fix the bug")
	add("s1", 2, "a1", "agent", "fix the")
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 3, "session.message.updated", map[string]any{}),
		AppendText: &store.TextAppend{MessageID: "a1", Delta: " bug"}}))
	add("s1", 4, "u2", "user", "fix the bug")
	add("s1", 5, "u3", "user", "fix the bug, please")
	add("s2", 1, "u4", "user", "fix the bug")
	for _, tc := range []struct {
		sid, role, text string
		want            int
	}{
		{"s1", "user", "fix the bug", 2},
		{"s1", "agent", "fix the bug", 1}, // its chunk counts
		{"s1", "user", "fix the", 0},
		{"s2", "user", "fix the bug", 1},
		{"nobody", "user", "fix the bug", 0},
	} {
		n, err := db.CountMessages(ctx, tc.sid, tc.role, tc.text)
		require.NoError(t, err)
		require.Equal(t, tc.want, n, "%+v", tc)
	}
}
