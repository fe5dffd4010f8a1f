package fleet_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
)

func TestFleetGateIsOneForEveryDaemon(t *testing.T) {
	p := pool(t)
	ctx := t.Context()
	a, err := fleet.NewGates(p, uuid.NewString(), time.Minute)
	require.NoError(t, err)
	b, err := fleet.NewGates(p, uuid.NewString(), time.Minute)
	require.NoError(t, err)

	opened := time.Date(2026, 12, 2, 1, 0, 0, 123456789, time.UTC)
	rowA, first, err := a.Open(ctx, fleet.GateRow{Key: "claude", OpenedAt: opened, NextProbeAt: opened.Add(5 * time.Second), Code: "overloaded"})
	require.NoError(t, err)
	require.True(t, first)
	require.Equal(t, opened.Truncate(time.Microsecond), rowA.OpenedAt, "read back as written, to the microsecond")

	// B opens the same key a moment later: it joins A's gate.
	rowB, first, err := b.Open(ctx, fleet.GateRow{Key: "claude", OpenedAt: opened.Add(time.Second), NextProbeAt: opened.Add(6 * time.Second)})
	require.NoError(t, err)
	require.False(t, first)
	require.Equal(t, rowA.OpenedAt, rowB.OpenedAt)
	require.Equal(t, rowA.NextProbeAt, rowB.NextProbeAt)

	// Waiting counts: each daemon sees the others'.
	require.NoError(t, a.Report(ctx, "claude", rowA.OpenedAt, 3))
	require.NoError(t, b.Report(ctx, "claude", rowA.OpenedAt, 300))
	listA, err := a.List(ctx)
	require.NoError(t, err)
	require.Len(t, listA, 1)
	require.Equal(t, 300, listA[0].PeersWaiting)
	listB, err := b.List(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, listB[0].PeersWaiting)

	// One probe right: A takes it, B cannot; only A writes the schedule.
	la, ok, err := a.AcquireProbe(ctx, "claude")
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = b.AcquireProbe(ctx, "claude")
	require.NoError(t, err)
	require.False(t, ok, "the probe right is one for the fleet")
	next := rowA
	next.NextProbeAt, next.FailedProbes, next.ProbesSent = opened.Add(20*time.Second), 1, 1
	require.NoError(t, a.Schedule(ctx, la, next))
	require.ErrorIs(t, b.Schedule(ctx, fleet.Lease{Kind: fleet.GateLeaseKind, Key: "claude", Holder: b.Self(), Fence: la.Fence}, next), fleet.ErrLeaseLost)
	listB, err = b.List(ctx)
	require.NoError(t, err)
	require.Equal(t, next.NextProbeAt.Truncate(time.Microsecond), listB[0].NextProbeAt)
	require.Equal(t, 1, listB[0].FailedProbes)

	// A gives the right up: B takes it over with a new fence; A's old
	// lease writes nothing.
	require.NoError(t, a.ReleaseProbe(ctx, la))
	lb, ok, err := b.AcquireProbe(ctx, "claude")
	require.NoError(t, err)
	require.True(t, ok)
	require.Greater(t, lb.Fence, la.Fence)
	require.ErrorIs(t, a.Schedule(ctx, la, next), fleet.ErrLeaseLost)

	// B's probe succeeds: the gate closes for everyone, once.
	closed, err := b.Close(ctx, "claude", rowA.OpenedAt)
	require.NoError(t, err)
	require.True(t, closed)
	closed, err = a.Close(ctx, "claude", rowA.OpenedAt)
	require.NoError(t, err)
	require.False(t, closed, "already closed")
	listA, err = a.List(ctx)
	require.NoError(t, err)
	require.Empty(t, listA)
}

func TestFleetGateOpeningAndClosingAreNotified(t *testing.T) {
	p := pool(t)
	a, err := fleet.NewGates(p, uuid.NewString(), time.Minute)
	require.NoError(t, err)
	b, err := fleet.NewGates(p, uuid.NewString(), time.Minute)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	heard := make(chan string, 16)
	var wg sync.WaitGroup
	wg.Go(func() { b.ListenGates(ctx, 10*time.Millisecond, func(k string) { heard <- k }) })
	defer func() { cancel(); wg.Wait() }()
	wait := func(want string) {
		t.Helper()
		select {
		case k := <-heard:
			require.Equal(t, want, k)
		case <-time.After(30 * time.Second):
			t.Fatalf("no notification %q", want)
		}
	}
	wait("") // connected: everything is to be re-read

	opened := time.Now().UTC()
	row, _, err := a.Open(t.Context(), fleet.GateRow{Key: "codex/gpt-5", OpenedAt: opened, NextProbeAt: opened})
	require.NoError(t, err)
	wait("codex/gpt-5")
	_, err = a.Close(t.Context(), "codex/gpt-5", row.OpenedAt)
	require.NoError(t, err)
	wait("codex/gpt-5")
}
