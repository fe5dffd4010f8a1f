package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func seedSessions(t *testing.T, db *DB, ids ...string) {
	t.Helper()
	for _, id := range ids {
		require.NoError(t, db.CreateTask(t.Context(),
			store.Task{ID: "t" + id, Title: id, Agent: "mock", State: store.TaskInProgress, CreatedAt: t0, UpdatedAt: t0},
			store.Session{ID: id, TaskID: "t" + id, State: store.SessionRunning, CreatedAt: t0, UpdatedAt: t0}))
	}
}

func ev(session string, seq int64) store.Event {
	return store.Event{SessionID: session, Seq: seq, Type: "session.message.updated", Payload: []byte(`{}`), At: t0.Add(time.Duration(seq) * time.Second)}
}

// planned is a job of w, as AppendEvent queues it.
func planned(t *testing.T, w store.EventWrite) (*job, eventPlan) {
	t.Helper()
	p, err := planEvent(w, true, nil)
	require.NoError(t, err)
	return &job{ctx: t.Context(), stmts: p.stmts, async: p.async, done: make(chan error, 1)}, p
}

// One group, the committer's unit, with writes that fail among writes that
// succeed: each failing write alone gets its error and leaves no trace;
// every other write of the group is committed, including those after it.
func TestGroupFailuresAreTheirOwn(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	seedSessions(t, db, "a", "b", "c", "d")
	require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "c", TaskID: "tc", Generation: 1, Attempt: 2,
		MaxAttempts: 3, State: store.RetryDispatching, RetryAt: t0, CreatedAt: t0})) // already claimed

	ws := []store.EventWrite{
		// 0: fine.
		{Event: ev("a", 1), UpsertMessage: &store.Message{ID: "ma", Role: "agent", Text: "hello"}},
		// 1: the same seq of the same session, after 0 in the group: a conflict.
		{Event: ev("a", 1), UpsertMessage: &store.Message{ID: "ma2", Role: "agent"}},
		// 2: fine.
		{Event: ev("b", 1), Session: &store.Session{ID: "b", State: store.SessionWaitingForInput, Generation: 7}},
		// 3: claims a retry that is not pending: nothing of it is written.
		{Event: ev("c", 1), ClaimRetry: &store.RetryClaim{SessionID: "c", Generation: 1, Attempt: 2},
			UpsertMessage: &store.Message{ID: "mc", Role: "agent"}},
		// 4: a message of session a, upserted by d: refused.
		{Event: ev("d", 1), UpsertMessage: &store.Message{ID: "ma", Role: "agent", Text: "stolen"}},
		// 5: a chunk of a message that is not there: writes nothing, no error.
		{Event: ev("b", 2), AppendText: &store.TextAppend{MessageID: "nope", Delta: "x"}},
		// 6: fine, after all of them.
		{Event: ev("d", 1), Task: &store.Task{ID: "td", Title: "renamed", Agent: "mock", State: store.TaskInProgress}},
	}
	jobs := make([]*job, len(ws))
	plans := make([]eventPlan, len(ws))
	for i, w := range ws {
		jobs[i], plans[i] = planned(t, w)
		jobs[i].async = false // one transaction, for the test
	}
	db.commitGroup(jobs)
	got := make([]error, len(jobs))
	for i, j := range jobs {
		got[i] = db.explain(ctx, ws[i], plans[i], <-j.done)
	}
	require.NoError(t, got[0])
	require.ErrorIs(t, got[1], store.ErrSeqConflict)
	require.NoError(t, got[2])
	require.ErrorIs(t, got[3], store.ErrNotClaimed)
	require.ErrorIs(t, got[4], store.ErrExists)
	require.ErrorIs(t, got[5], store.ErrNotFound)
	require.NoError(t, got[6])

	for id, want := range map[string]int64{"a": 1, "b": 1, "c": 0, "d": 1} {
		s, err := db.GetSession(ctx, id)
		require.NoError(t, err)
		require.Equal(t, want, s.LastSeq, "session %s", id)
	}
	b, err := db.GetSession(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, store.SessionWaitingForInput, b.State)
	require.Equal(t, int64(7), b.Generation)
	m, err := db.GetMessage(ctx, "ma")
	require.NoError(t, err)
	require.Equal(t, "hello", m.Text)
	require.Equal(t, "a", m.SessionID)
	for _, id := range []string{"ma2", "mc"} {
		_, err := db.GetMessage(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "message %s of a failed write", id)
	}
	r, err := db.GetPendingRetry(ctx, "c")
	require.NoError(t, err)
	require.Equal(t, store.RetryDispatching, r.State)
	task, err := db.GetTask(ctx, "td")
	require.NoError(t, err)
	require.Equal(t, "renamed", task.Title)
	evs, err := db.ListEvents(ctx, "d", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
}

// Many writers at once share commits: 200 sessions' chunks and 200
// retries claimed by two racers each, in far fewer commits than writes,
// every answer right.
func TestWritesShareCommits(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	const n = 200
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%03d", i)
	}
	seedSessions(t, db, ids...)
	for _, id := range ids {
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: ev(id, 1), UpsertMessage: &store.Message{ID: "m" + id, Role: "agent"}}))
		require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: id, TaskID: "t" + id, Generation: 1, Attempt: 1,
			MaxAttempts: 3, RetryAt: t0, CreatedAt: t0}))
	}
	start := make(chan struct{})
	errs := make(chan error, 3*n)
	claimed := make(chan bool, 2*n)
	for _, id := range ids {
		go func() {
			<-start
			errs <- db.AppendEvent(ctx, store.EventWrite{Event: ev(id, 2), AppendText: &store.TextAppend{MessageID: "m" + id, Delta: "x"}})
		}()
		for range 2 { // two racers per retry
			go func() {
				<-start
				ok, err := db.ClaimPendingRetry(ctx, id, 1, 1)
				errs <- err
				claimed <- ok
			}()
		}
	}
	close(start)
	wins := 0
	for range 3 * n {
		require.NoError(t, <-errs)
	}
	for range 2 * n {
		if <-claimed {
			wins++
		}
	}
	require.Equal(t, n, wins, "each retry claimed exactly once")
	// A row's xmin is the transaction that wrote it: one per commit.
	txs := func(sql string) int {
		var c int
		require.NoError(t, db.pool.QueryRow(ctx, sql).Scan(&c))
		return c
	}
	chunkTxs := txs(`SELECT count(DISTINCT xmin::text) FROM events WHERE seq = 2`)
	claimTxs := txs(`SELECT count(DISTINCT xmin::text) FROM pending_retries`)
	t.Logf("%d chunks in %d commits, %d claims in %d commits", n, chunkTxs, n, claimTxs)
	require.Less(t, chunkTxs, n/2, "chunks that arrive together share commits")
	require.Less(t, claimTxs, n/2, "claims that arrive together share commits")
	for _, id := range ids {
		m, err := db.GetMessage(ctx, "m"+id)
		require.NoError(t, err)
		require.Equal(t, "x", m.Text)
	}
}

// Close stops the committers: a write after it is refused, and a write
// in flight when it starts is answered.
func TestCloseStopsCommitters(t *testing.T) {
	db, err := Open(t.Context(), pgtest.DSN(t))
	require.NoError(t, err)
	seedSessions(t, db, "a")
	done := make(chan error, 1)
	go func() {
		done <- db.AppendEvent(context.Background(), store.EventWrite{Event: ev("a", 1)})
	}()
	require.NoError(t, db.Close())
	err = <-done
	if err != nil {
		require.ErrorIs(t, err, store.ErrClosed)
	}
	require.ErrorIs(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("a", 2)}), store.ErrClosed)
}

// A write held up in the server (here by another transaction's row lock)
// returns when its caller gives up, as a statement of its own would.
func TestWriteGivesUpWithItsCaller(t *testing.T) {
	db := openTest(t)
	seedSessions(t, db, "a", "b")
	lock, err := db.pool.Begin(t.Context())
	require.NoError(t, err)
	defer func() { _ = lock.Rollback(context.Background()) }()
	_, err = lock.Exec(t.Context(), `SELECT FROM sessions WHERE id = 'a' FOR UPDATE`)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- db.AppendEvent(ctx, store.EventWrite{Event: ev("a", 1)}) }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(30 * time.Second):
		t.Fatal("the write waited for the lock after its caller gave up")
	}
	require.NoError(t, lock.Rollback(t.Context()))
	// The abandoned write may still land (the server can run it once the
	// lock is free: a caller's timeout is not a refusal), so the check
	// writes to another session.
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("b", 1)}), "the committers still work")
}
