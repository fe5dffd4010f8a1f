package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// Daemons starting together on an empty database migrate it once: every
// one of them opens, the schema is current, and nothing was applied twice
// (a second CREATE TABLE would have failed its Open).
func TestConcurrentStartsMigrateOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	const daemons = 6
	var wg sync.WaitGroup
	dbs := make([]*postgres.DB, daemons)
	errs := make([]error, daemons)
	for i := range daemons {
		wg.Go(func() { dbs[i], errs[i] = postgres.Open(t.Context(), dsn) })
	}
	wg.Wait()
	for i := range daemons {
		require.NoError(t, errs[i], "daemon %d", i)
		t.Cleanup(func() { _ = dbs[i].Close() })
	}
	v, err := dbs[0].SchemaVersion(t.Context())
	require.NoError(t, err)
	require.Equal(t, postgres.Migrations(), v)

	// They share one database: a task created through one is seen by all.
	require.NoError(t, dbs[1].CreateTask(t.Context(), store.Task{ID: "t1", State: store.TaskTodo}, store.Session{}))
	for _, db := range dbs {
		_, err := db.GetTask(t.Context(), "t1")
		require.NoError(t, err)
	}
}

// A database written by a newer orchestratord is refused, and left as it was.
func TestOpenRefusesNewerSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := postgres.Open(t.Context(), dsn)
	require.NoError(t, err)
	require.NoError(t, db.CreateTask(t.Context(), store.Task{ID: "t1", State: store.TaskTodo}, store.Session{}))
	require.NoError(t, db.Close())

	raw, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	defer raw.Close(context.Background())
	_, err = raw.Exec(t.Context(), "UPDATE orchestratord_schema SET version = 42")
	require.NoError(t, err)

	_, err = postgres.Open(t.Context(), dsn)
	require.ErrorIs(t, err, store.ErrSchemaTooNew)
	var tooNew *store.SchemaTooNewError
	require.ErrorAs(t, err, &tooNew)
	require.Equal(t, 42, tooNew.Found)
	require.Equal(t, postgres.Migrations(), tooNew.Known)
	require.Contains(t, err.Error(), "left untouched")

	var v, tasks int
	require.NoError(t, raw.QueryRow(t.Context(), "SELECT version FROM orchestratord_schema").Scan(&v))
	require.NoError(t, raw.QueryRow(t.Context(), "SELECT count(*) FROM tasks").Scan(&tasks))
	require.Equal(t, 42, v)
	require.Equal(t, 1, tasks)
}

// Two daemons on one database race for the same pending retries: each is
// claimed by exactly one of them.
func TestClaimExactlyOnceAcrossDaemons(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, err := postgres.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer a.Close()
	b, err := postgres.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer b.Close()
	const n = 50
	var claims []store.RetryClaim
	for i := range n {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		require.NoError(t, a.CreateTask(t.Context(), store.Task{ID: "t" + id, State: store.TaskTodo}, store.Session{ID: "s" + id}))
		require.NoError(t, a.SavePendingRetry(t.Context(), store.PendingRetry{SessionID: "s" + id, TaskID: "t" + id, Generation: 1, Attempt: 2}))
		claims = append(claims, store.RetryClaim{SessionID: "s" + id, Generation: 1, Attempt: 2})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := map[string]int{}
	for _, db := range []*postgres.DB{a, b, a, b} {
		wg.Go(func() {
			got, err := db.ClaimPendingRetries(t.Context(), claims)
			if !assertNoError(t, err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for i, ok := range got {
				if ok {
					wins[claims[i].SessionID]++
				}
			}
		})
		wg.Go(func() {
			for _, c := range claims {
				ok, err := db.ClaimPendingRetry(t.Context(), c.SessionID, c.Generation, c.Attempt)
				if !assertNoError(t, err) {
					return
				}
				if ok {
					mu.Lock()
					wins[c.SessionID]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	require.Len(t, wins, n)
	for id, w := range wins {
		require.Equal(t, 1, w, "retry of %s claimed %d times", id, w)
	}
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
