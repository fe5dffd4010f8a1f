package postgres_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
	"github.com/orchestratord/orchestratord/internal/store/storetest"
)

// The daemon's interface, checked at compile time.
var _ orchestrator.Store = (*postgres.DB)(nil)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func factory() storetest.Factory {
	return storetest.Factory{Database: func(t testing.TB) func(t testing.TB) storetest.Store {
		dsn := pgtest.DSN(t)
		return func(t testing.TB) storetest.Store {
			db, err := postgres.Open(t.Context(), dsn)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, db.Close()) })
			return db
		}
	}}
}

// The conformance suite against PostgreSQL: the same tests as the SQLite store's.
func TestConformance(t *testing.T) {
	storetest.Run(t, factory())
}
