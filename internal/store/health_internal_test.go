package store

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The maintenance step truncates the WAL once writes have been quiet for
// idleCheckpointAfter, and not before.
func TestMaintainCheckpointsAnIdleWAL(t *testing.T) {
	t.Parallel()
	db, err := OpenWith(t.Context(), t.TempDir(), Options{ManualMaintenance: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	now := time.Now()
	db.health.mu.Lock()
	db.health.now = func() time.Time { return now }
	db.health.mu.Unlock()
	require.NoError(t, db.write(t.Context(), insertTask("a")))
	walSize := func() int64 {
		st, err := os.Stat(db.path + "-wal")
		require.NoError(t, err)
		return st.Size()
	}
	require.Positive(t, walSize())

	require.NoError(t, db.Maintain(t.Context()))
	require.Positive(t, walSize(), "busy: no checkpoint yet")

	db.health.mu.Lock()
	db.health.now = func() time.Time { return now.Add(idleCheckpointAfter) }
	db.health.mu.Unlock()
	require.NoError(t, db.Maintain(t.Context()))
	require.Zero(t, walSize(), "idle: truncated")
	require.True(t, db.WriteHealth().Writable)
}
