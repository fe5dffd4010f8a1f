package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

func testReopenKeepsEverythingInOrder(t *testing.T, f Factory) {
	t.Parallel()
	open := f.Database(t)
	ctx := t.Context()
	db := open(t)
	var err error

	for i := range 3 {
		taskID, sessID := fmt.Sprintf("t%d", i), fmt.Sprintf("s%d", i)
		require.NoError(t, db.CreateTask(ctx, newTask(taskID, i), newSession(sessID, taskID, i)))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
			Event:         event(sessID, 1, "session.message.added", map[string]string{"id": "u" + sessID}),
			UpsertMessage: &store.Message{ID: "u" + sessID, Role: "user", Text: "hi"},
		}))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
			Event:         event(sessID, 2, "session.message.added", map[string]string{"id": "a" + sessID}),
			UpsertMessage: &store.Message{ID: "a" + sessID, Role: "agent"},
		}))
		for seq := int64(3); seq <= 10; seq++ {
			require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
				Event:      event(sessID, seq, "session.message.updated", map[string]int64{"n": seq}),
				AppendText: &store.TextAppend{MessageID: "a" + sessID, Delta: fmt.Sprintf("%d ", seq)},
			}))
		}
		require.NoError(t, db.SaveExecution(ctx, store.Execution{ID: "e" + sessID, SessionID: sessID, Attempt: 1, StartedAt: at(i), Outcome: "running"}))
	}
	require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s1", TaskID: "t1", Generation: 1, Attempt: 2, MaxAttempts: 3, RetryAt: at(60)}))

	type state struct {
		Tasks    []store.Task
		Sessions []store.Session
		Messages [][]store.Message
		Events   [][]store.Event
		Execs    [][]store.Execution
		Retries  []store.PendingRetry
	}
	capture := func(db Store) state {
		var s state
		var err error
		s.Tasks, err = db.ListTasks(ctx)
		require.NoError(t, err)
		s.Sessions, err = db.ListAllSessions(ctx)
		require.NoError(t, err)
		for _, sess := range s.Sessions {
			ms, err := db.ListMessages(ctx, sess.ID)
			require.NoError(t, err)
			s.Messages = append(s.Messages, ms)
			evs, err := db.ListEvents(ctx, sess.ID, 0, 0)
			require.NoError(t, err)
			s.Events = append(s.Events, evs)
			ex, err := db.ListExecutions(ctx, sess.ID)
			require.NoError(t, err)
			s.Execs = append(s.Execs, ex)
		}
		s.Retries, err = db.ListPendingRetries(ctx)
		require.NoError(t, err)
		return s
	}
	want := capture(db)
	require.Len(t, want.Tasks, 3)
	require.Equal(t, "3 4 5 6 7 8 9 10 ", want.Messages[0][1].Text)
	require.NoError(t, db.Close())

	for range 2 {
		db = open(t)
		require.Equal(t, want, capture(db))
		require.NoError(t, db.Close())
	}

	// The log continues where it stopped.
	db = open(t)
	err = db.AppendEvent(ctx, store.EventWrite{Event: event("s0", 10, "x", nil)})
	require.ErrorIs(t, err, store.ErrSeqConflict)
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s0", 11, "x", nil)}))
}

func testCloseIsIdempotentAndFinal(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	require.NoError(t, db.Close())
	require.NoError(t, db.Close())

	ctx := t.Context()
	for name, call := range map[string]func() error{
		"CreateTask":         func() error { return db.CreateTask(ctx, newTask("t", 0), store.Session{}) },
		"GetTask":            func() error { _, err := db.GetTask(ctx, "t"); return err },
		"ListTasks":          func() error { _, err := db.ListTasks(ctx); return err },
		"AppendEvent":        func() error { return db.AppendEvent(ctx, store.EventWrite{Event: event("s", 1, "x", nil)}) },
		"ListEvents":         func() error { _, err := db.ListEvents(ctx, "s", 0, 0); return err },
		"ClaimPendingRetry":  func() error { _, err := db.ClaimPendingRetry(ctx, "s", 1, 1); return err },
		"ListPendingRetries": func() error { _, err := db.ListPendingRetries(ctx); return err },
		"SessionSnapshot":    func() error { _, _, err := db.SessionSnapshot(ctx, "s"); return err },
	} {
		require.ErrorIs(t, call(), store.ErrClosed, name)
	}
}

func testContextIsRespected(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	seed(t, db, "t1", "s1")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	err := db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "x", nil)})
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.ListEvents(ctx, "s1", 0, 0)
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.GetTask(ctx, "t1")
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.ClaimPendingRetry(ctx, "s1", 0, 1)
	require.ErrorIs(t, err, context.Canceled)

	// Nothing was written.
	s, err := db.GetSession(t.Context(), "s1")
	require.NoError(t, err)
	require.Zero(t, s.LastSeq)

}
