package postgres_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// A fleet daemon appends to a session's log only while it holds the
// session's lease; a refused write is store.ErrNotOwner, writes nothing
// and is no storage fault. A daemon alone on its database is not fenced.
func TestEventsAreFencedByTheSessionLease(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	a, err := postgres.Open(ctx, dsn, postgres.AsDaemon("daemon-a"))
	require.NoError(t, err)
	defer a.Close()
	now := time.Now().UTC()
	task := store.Task{ID: "t1", Title: "x", Agent: "mock", Workdir: "/tmp", State: store.TaskTodo, CreatedAt: now, UpdatedAt: now}
	sess := store.Session{ID: "s1", TaskID: "t1", State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, a.CreateTask(ctx, task, sess))
	ev := func(seq int64) store.EventWrite {
		return store.EventWrite{Event: store.Event{SessionID: "s1", Seq: seq, Type: "session.state_changed", Payload: json.RawMessage(`{}`), At: now}}
	}
	lease := func(holder string) {
		_, err := a.Pool().Exec(ctx, `INSERT INTO fleet_leases (kind, key, holder, acquired_at, expires_at)
			VALUES ('session', 's1', $1, now(), now() + interval '1 minute')
			ON CONFLICT (kind, key) DO UPDATE SET holder = EXCLUDED.holder, fence = fleet_leases.fence + 1`, holder)
		require.NoError(t, err)
	}

	require.ErrorIs(t, a.AppendEvent(ctx, ev(1)), store.ErrNotOwner, "no lease: nobody's to write")
	require.True(t, a.WriteHealth().Writable, "a fenced write is no storage fault")
	lease("daemon-a")
	require.NoError(t, a.AppendEvent(ctx, ev(1)))
	lease("daemon-b")
	require.ErrorIs(t, a.AppendEvent(ctx, ev(2)), store.ErrNotOwner, "the lease passed to b")
	evs, err := a.ListEvents(ctx, "s1", 0, 10)
	require.NoError(t, err)
	require.Len(t, evs, 1)

	alone, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer alone.Close()
	require.NoError(t, alone.AppendEvent(ctx, ev(2)), "a daemon alone on its database is not fenced")
}
