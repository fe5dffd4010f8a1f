package pgtest_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Each test gets its own empty database on the throwaway server.
func TestDatabasesAreSeparate(t *testing.T) {
	a, b := pgtest.DSN(t), pgtest.DSN(t)
	require.NotEqual(t, a, b)
	ca, err := pgx.Connect(t.Context(), a)
	require.NoError(t, err)
	defer ca.Close(t.Context())
	_, err = ca.Exec(t.Context(), "CREATE TABLE x (n int); INSERT INTO x VALUES (1)")
	require.NoError(t, err)

	cb, err := pgx.Connect(t.Context(), b)
	require.NoError(t, err)
	defer cb.Close(t.Context())
	var n int
	require.NoError(t, cb.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n))
	require.Zero(t, n, "a table of one test's database must not be in another's")
	var v int
	require.NoError(t, cb.QueryRow(t.Context(), "SELECT current_setting('server_version_num')::int").Scan(&v))
	require.GreaterOrEqual(t, v, 130000)
}
