package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

func testGateLifecycle(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()

	gates, err := db.ListGates(ctx)
	require.NoError(t, err)
	require.NotNil(t, gates)
	require.Empty(t, gates)

	g := store.Gate{Key: "claude", State: store.GateOpen, OpenedAt: base, NextProbeAt: base.Add(5*time.Second + time.Nanosecond),
		FailedProbes: 0, ProbesSent: 0, UpdatedAt: base}
	require.NoError(t, db.SaveGate(ctx, g))
	g.FailedProbes, g.ProbesSent, g.NextProbeAt = 2, 3, base.Add(time.Minute)
	require.NoError(t, db.SaveGate(ctx, g), "saving again replaces")
	require.NoError(t, db.SaveGate(ctx, store.Gate{Key: "codex", State: store.GateOpen, OpenedAt: base, NextProbeAt: base, UpdatedAt: base}))

	gates, err = db.ListGates(ctx)
	require.NoError(t, err)
	require.Len(t, gates, 2)
	g.OpenedAt, g.NextProbeAt, g.UpdatedAt = g.OpenedAt.UTC(), g.NextProbeAt.UTC(), g.UpdatedAt.UTC()
	require.Equal(t, g, gates[0])
	require.Equal(t, "codex", gates[1].Key)

	require.NoError(t, db.DeleteGate(ctx, "claude"))
	require.NoError(t, db.DeleteGate(ctx, "claude"), "idempotent")
	gates, err = db.ListGates(ctx)
	require.NoError(t, err)
	require.Len(t, gates, 1)

	for _, bad := range []store.Gate{{State: store.GateOpen}, {Key: "k", State: "closed"}} {
		err := db.SaveGate(ctx, bad)
		require.True(t, errors.Is(err, store.ErrInvalid), "%v", err)
	}
}
