package postgres_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// fill writes a bit of everything into db: tasks created at the same
// instant (their order is the row order), streamed replies left unsealed,
// executions, a parked retry, an open gate.
func fill(t *testing.T, db *store.DB) {
	ctx := t.Context()
	for i := range 4 {
		tid, sid := fmt.Sprintf("t%d", i), fmt.Sprintf("s%d", i)
		require.NoError(t, db.CreateTask(ctx, store.Task{ID: tid, Title: "task " + tid, Agent: "mock", State: store.TaskInProgress,
			CreatedAt: t0, UpdatedAt: t0, GateDeadline: time.Duration(i) * time.Minute},
			store.Session{ID: sid, State: store.SessionRunning, CreatedAt: t0, UpdatedAt: t0}))
		ev := func(seq int64, typ string, p any) store.Event {
			b, _ := json.Marshal(p)
			return store.Event{SessionID: sid, Seq: seq, Type: typ, Payload: b, At: t0.Add(time.Duration(seq) * time.Millisecond)}
		}
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: ev(1, "session.message.added", map[string]string{"id": "u" + sid}),
			UpsertMessage: &store.Message{ID: "u" + sid, Role: "user", Text: "hi", Metadata: map[string]any{"n": float64(i)}}}))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: ev(2, "session.message.added", nil),
			UpsertMessage: &store.Message{ID: "a" + sid, Role: "agent", Actions: []store.Action{{ID: "x", Label: "X", Type: "ws_request", Action: "a"}}}}))
		for seq := int64(3); seq < 10+int64(i); seq++ {
			require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: ev(seq, "session.message.updated", map[string]any{"delta": seq}),
				AppendText: &store.TextAppend{MessageID: "a" + sid, Delta: fmt.Sprintf("<%d>", seq)}}))
		}
		if i%2 == 0 {
			require.NoError(t, db.SealMessages(ctx, "a"+sid))
		}
		end := t0.Add(time.Second)
		require.NoError(t, db.SaveExecution(ctx, store.Execution{ID: "e" + sid, SessionID: sid, Generation: 1, Attempt: 1,
			StartedAt: t0, EndedAt: &end, Outcome: "failed", Evidence: json.RawMessage(`{"code":529}`)}))
		require.NoError(t, db.SaveExecution(ctx, store.Execution{ID: "f" + sid, SessionID: sid, Generation: 1, Attempt: 2, StartedAt: t0, Outcome: "running"}))
	}
	require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s1", TaskID: "t1", Generation: 1, Attempt: 2, MaxAttempts: 5,
		Code: "overloaded", RetryAt: t0.Add(time.Minute), Prompt: "hi", Resume: true, Extra: map[string]any{"gate": "mock"}, CreatedAt: t0}))
	require.NoError(t, db.SaveGate(ctx, store.Gate{Key: "mock", State: store.GateOpen, OpenedAt: t0, NextProbeAt: t0.Add(time.Minute), FailedProbes: 2, UpdatedAt: t0}))
}

type snapshot struct {
	Tasks    []store.Task
	Sessions []store.Session
	Messages map[string][]store.Message
	Events   map[string][]store.Event
	Execs    map[string][]store.Execution
	Retries  []store.PendingRetry
	Gates    []store.Gate
}

func capture(t *testing.T, src postgres.Source) snapshot {
	ctx := t.Context()
	s := snapshot{Messages: map[string][]store.Message{}, Events: map[string][]store.Event{}, Execs: map[string][]store.Execution{}}
	var err error
	s.Tasks, err = src.ListTasks(ctx)
	require.NoError(t, err)
	s.Sessions, err = src.ListAllSessions(ctx)
	require.NoError(t, err)
	for _, x := range s.Sessions {
		s.Messages[x.ID], err = src.ListMessages(ctx, x.ID)
		require.NoError(t, err)
		s.Events[x.ID], err = src.ListEvents(ctx, x.ID, 0, 0)
		require.NoError(t, err)
		s.Execs[x.ID], err = src.ListExecutions(ctx, x.ID)
		require.NoError(t, err)
	}
	s.Retries, err = src.ListPendingRetries(ctx)
	require.NoError(t, err)
	s.Gates, err = src.ListGates(ctx)
	require.NoError(t, err)
	return s
}

// Everything in a data dir's SQLite store arrives in PostgreSQL as it
// was, in the same order; the daemon carries on from the last seq; a
// second copy into the now full database is refused and changes nothing.
func TestImportCopiesEverythingAndRefusesAFullTarget(t *testing.T) {
	ctx := t.Context()
	src, err := store.Open(ctx, t.TempDir())
	require.NoError(t, err)
	defer src.Close()
	fill(t, src)
	want := capture(t, src)

	dst, err := postgres.Open(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	defer dst.Close()
	n, err := postgres.Import(ctx, dst, src)
	require.NoError(t, err)
	require.Equal(t, postgres.Counts{Tasks: 4, Sessions: 4, Messages: 8, Events: 9 + 10 + 11 + 12, Executions: 8, PendingRetries: 1, Gates: 1}, n)
	require.Equal(t, want, capture(t, dst))

	_, err = postgres.Import(ctx, dst, src)
	require.ErrorIs(t, err, postgres.ErrNotEmpty)
	require.Equal(t, want, capture(t, dst))

	// The copied log continues where it stopped.
	last := want.Sessions[0]
	err = dst.AppendEvent(ctx, store.EventWrite{Event: store.Event{SessionID: last.ID, Seq: last.LastSeq, Type: "x", At: t0}})
	require.ErrorIs(t, err, store.ErrSeqConflict)
	require.NoError(t, dst.AppendEvent(ctx, store.EventWrite{Event: store.Event{SessionID: last.ID, Seq: last.LastSeq + 1, Type: "x", At: t0},
		AppendText: &store.TextAppend{MessageID: "a" + last.ID, Delta: "!"}}))
	ok, err := dst.ClaimPendingRetry(ctx, "s1", 1, 2)
	require.NoError(t, err)
	require.True(t, ok)
}

// migrate-store does not write under a running daemon's feet.
func TestImportRefusesATargetADaemonOwns(t *testing.T) {
	ctx := t.Context()
	src, err := store.Open(ctx, t.TempDir())
	require.NoError(t, err)
	defer src.Close()
	fill(t, src)
	dsn := pgtest.DSN(t)
	daemon, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer daemon.Close()
	require.NoError(t, daemon.Own(ctx, postgres.OwnAlone))

	dst, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer dst.Close()
	_, err = postgres.Import(ctx, dst, src)
	require.ErrorIs(t, err, postgres.ErrInUse)
	tasks, err := dst.ListTasks(ctx)
	require.NoError(t, err)
	require.Empty(t, tasks)

	require.NoError(t, daemon.Close()) // the lock goes with it
	_, err = postgres.Import(ctx, dst, src)
	require.NoError(t, err)
}
