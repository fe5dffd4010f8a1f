package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// listen returns a connection listening on the events channel.
func listen(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	_, err = c.Exec(t.Context(), "LISTEN "+postgres.EventsChannel)
	require.NoError(t, err)
	return c
}

// next waits up to d for a notification; "" when none came.
func next(t *testing.T, c *pgx.Conn, d time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	n, err := c.WaitForNotification(ctx)
	if err != nil {
		require.ErrorIs(t, err, context.DeadlineExceeded)
		return ""
	}
	require.Equal(t, postgres.EventsChannel, n.Channel)
	return n.Payload
}

func ev(sid string, seq int64, typ string) store.Event {
	b, _ := json.Marshal(map[string]any{"session_id": sid, "seq": seq})
	return store.Event{SessionID: sid, Seq: seq, Type: typ, Payload: b, At: time.Date(2026, 1, 1, 0, 0, int(seq), 0, time.UTC)}
}

// Every committed event write wakes the listeners with the session's id
// and seq, whichever write path it took; a refused write wakes nobody.
func TestEventWritesNotifyAtCommit(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := postgres.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	l := listen(t, dsn)

	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	task := store.Task{ID: "t1", Title: "t", Agent: "mock", Workdir: "/w", State: store.TaskTodo, CreatedAt: now, UpdatedAt: now}
	sess := store.Session{ID: "s1", TaskID: "t1", State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, db.CreateTask(t.Context(), task, sess))
	require.Empty(t, next(t, l, 200*time.Millisecond), "no event, no wake-up")

	// The one-statement path (an event alone).
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 1, "session.state_changed")}))
	require.Equal(t, "s1 1", next(t, l, 10*time.Second))

	// The transaction path (a message with its event).
	m := store.Message{ID: "m1", Role: "assistant", Text: "hi"}
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 2, "session.message.added"), UpsertMessage: &m}))
	require.Equal(t, "s1 2", next(t, l, 10*time.Second))

	// A streamed chunk (the hot path, a single statement of CTEs).
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 3, "session.message.updated"),
		AppendText: &store.TextAppend{MessageID: "m1", Delta: " there"}}))
	require.Equal(t, "s1 3", next(t, l, 10*time.Second))
	sid, seq, err := postgres.ParseEventNotification("s1 3")
	require.NoError(t, err)
	require.Equal(t, "s1", sid)
	require.Equal(t, int64(3), seq)

	// A seq conflict writes nothing and wakes nobody; nor does a chunk of
	// a missing message, refused inside the transaction.
	require.ErrorIs(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 3, "session.state_changed")}), store.ErrSeqConflict)
	require.Error(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 4, "session.message.updated"),
		AppendText: &store.TextAppend{MessageID: "nope", Delta: "x"}}))
	task2 := task
	task2.ID = "missing"
	require.Error(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 4, "session.state_changed"), Task: &task2}),
		"the task update fails after the event's insert: the transaction rolls back")
	require.Empty(t, next(t, l, 300*time.Millisecond), "a rolled-back or refused write sends nothing")

	for _, bad := range []string{"", "s1", "s1 x", " 3", "s1 0"} {
		_, _, err := postgres.ParseEventNotification(bad)
		require.Error(t, err, bad)
	}
}

func listenTasks(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	_, err = c.Exec(t.Context(), "LISTEN "+postgres.TasksChannel)
	require.NoError(t, err)
	return c
}

// A task's creation, change and deletion, and a change of its session's
// state, wake the listeners with the task's id; an event that changes no
// state does not.
func TestTaskChangesNotify(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := postgres.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	l := listenTasks(t, dsn)
	wait := func(d time.Duration) string {
		ctx, cancel := context.WithTimeout(t.Context(), d)
		defer cancel()
		n, err := l.WaitForNotification(ctx)
		if err != nil {
			return ""
		}
		return n.Payload
	}

	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	task := store.Task{ID: "t1", Title: "t", Agent: "mock", Workdir: "/w", State: store.TaskTodo, CreatedAt: now, UpdatedAt: now}
	sess := store.Session{ID: "s1", TaskID: "t1", State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, db.CreateTask(t.Context(), task, sess))
	require.Equal(t, "t1", wait(10*time.Second), "created")
	require.Empty(t, wait(200*time.Millisecond), "one notification for the task and its session")

	// An event that moves the session: the task's id (once per transaction).
	running := sess
	running.State = store.SessionRunning
	inProgress := task
	inProgress.State = store.TaskInProgress
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 1, "session.state_changed"), Session: &running, Task: &inProgress}))
	require.Equal(t, "t1", wait(10*time.Second))
	require.Empty(t, wait(200*time.Millisecond))

	// Streamed text advances the session but changes no state: nothing.
	m := store.Message{ID: "m1", Role: "assistant"}
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 2, "session.message.added"), UpsertMessage: &m, Session: &running}))
	require.NoError(t, db.AppendEvent(t.Context(), store.EventWrite{Event: ev("s1", 3, "session.message.updated"),
		AppendText: &store.TextAppend{MessageID: "m1", Delta: "x"}, Session: &running}))
	require.Empty(t, wait(300*time.Millisecond), "no state change, no wake-up")

	require.NoError(t, db.DeleteTask(t.Context(), "t1"))
	require.Equal(t, "t1", wait(10*time.Second), "deleted")
}

// Writes committed together (the group commit) each wake the listeners;
// a write refused among them wakes nobody, though its batch ran again.
func TestGroupCommittedWritesNotifyAndRefusedOnesDoNot(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := postgres.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const writers, each = 8, 25
	for i := range writers + 1 {
		id := fmt.Sprint("s", i)
		require.NoError(t, db.CreateTask(t.Context(), store.Task{ID: "t" + id, Title: "t", Agent: "mock", Workdir: "/w", State: store.TaskTodo, CreatedAt: now, UpdatedAt: now},
			store.Session{ID: id, TaskID: "t" + id, State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}))
	}
	l := listen(t, dsn)
	var wg sync.WaitGroup
	for i := range writers {
		id := fmt.Sprint("s", i)
		wg.Go(func() {
			for seq := int64(1); seq <= each; seq++ {
				if err := db.AppendEvent(context.Background(), store.EventWrite{Event: ev(id, seq, "session.state_changed")}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	refused := fmt.Sprint("s", writers) // its chunks name no message: each is refused
	wg.Go(func() {
		for range each {
			if err := db.AppendEvent(context.Background(), store.EventWrite{Event: ev(refused, 1, "session.message.updated"),
				AppendText: &store.TextAppend{MessageID: "none", Delta: "x"}}); err == nil {
				t.Error("a chunk of a missing message was written")
			}
		}
	})
	wg.Wait()
	highest := map[string]int64{}
	for {
		p := next(t, l, 500*time.Millisecond)
		if p == "" {
			break
		}
		sid, seq, err := postgres.ParseEventNotification(p)
		require.NoError(t, err)
		highest[sid] = max(highest[sid], seq)
	}
	for i := range writers {
		require.Equal(t, int64(each), highest[fmt.Sprint("s", i)], "the last write of s%d woke the listener", i)
	}
	require.NotContains(t, highest, refused)
}
