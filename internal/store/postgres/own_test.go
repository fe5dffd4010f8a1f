package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// The daemons of a fleet share the database; a daemon that wants it alone
// and migrate-store are refused while any of them runs, and a fleet
// daemon is refused while a lone one runs.
func TestOwnSharedLetsAFleetIn(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	a, b := open(), open()
	require.NoError(t, a.Own(ctx, postgres.OwnShared))
	require.NoError(t, b.Own(ctx, postgres.OwnShared), "a second daemon of the fleet")
	alone := open()
	err := alone.Own(ctx, postgres.OwnAlone)
	require.ErrorIs(t, err, postgres.ErrInUse)
	require.ErrorContains(t, err, "--fleet")

	src, err := store.Open(ctx, t.TempDir())
	require.NoError(t, err)
	defer src.Close()
	_, err = postgres.Import(ctx, open(), src)
	require.ErrorIs(t, err, postgres.ErrInUse, "migrate-store is refused under a fleet")

	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	require.NoError(t, alone.Own(ctx, postgres.OwnAlone), "the fleet gone, a lone daemon may have it")
	err = open().Own(ctx, postgres.OwnShared)
	require.ErrorIs(t, err, postgres.ErrInUse)
	require.ErrorContains(t, err, "holds it alone")
}
