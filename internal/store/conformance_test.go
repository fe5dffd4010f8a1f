package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/storetest"
)

// The conformance suite against the SQLite store; internal/store/postgres
// runs the same against PostgreSQL.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Factory{Database: func(t testing.TB) func(t testing.TB) storetest.Store {
		dir := t.TempDir()
		return func(t testing.TB) storetest.Store {
			db, err := store.Open(t.Context(), dir)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, db.Close()) })
			return db
		}
	}})
}
