package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
)

// live makes id a live member of the fleet with room for room more agents.
func live(t *testing.T, p *pgxpool.Pool, id string, room int) {
	t.Helper()
	_, err := p.Exec(t.Context(), `INSERT INTO fleet_members (id, addr, max_agents, load, started_at, heartbeat_at, expires_at)
		VALUES ($1, '127.0.0.1:1', $2, 0, now(), now(), now() + interval '1 hour')`, id, room)
	require.NoError(t, err)
}

// gone makes id a member whose heartbeat lease has run out: it died.
func gone(t *testing.T, p *pgxpool.Pool, id string, room int) {
	t.Helper()
	_, err := p.Exec(t.Context(), `INSERT INTO fleet_members (id, addr, max_agents, load, started_at, heartbeat_at, expires_at)
		VALUES ($1, '127.0.0.1:1', $2, 0, now() - interval '1 hour', now() - interval '1 minute', now() - interval '1 second')`, id, room)
	require.NoError(t, err)
}

// The live daemons split a dead one's expired leases by their room: each
// takes its share once, none twice; a share its taker does not take is
// anyone's once it has been expired for the grace.
func TestTakeExpiredShareSplitsByRoom(t *testing.T) {
	p := pool(t)
	l := fleet.NewLeases(p)
	const n = 300
	for range n {
		_, ok, err := l.Acquire(t.Context(), "session", uuid.NewString(), "dead", time.Minute)
		require.NoError(t, err)
		require.True(t, ok)
	}
	gone(t, p, "dead", 8) // its heartbeat ran out: not a taker
	live(t, p, "B", 10)
	live(t, p, "C", 20)
	live(t, p, "D", 10) // live, but never takes its share
	expire(t, p, "session")

	taken := map[string]string{}
	for _, taker := range []string{"B", "C", "B", "C"} {
		got, err := l.TakeExpiredShare(t.Context(), "session", taker, time.Minute, time.Minute, 1000)
		require.NoError(t, err)
		for _, ls := range got {
			prev, dup := taken[ls.Key]
			require.False(t, dup, "lease %s taken by %s and %s", ls.Key, prev, taker)
			taken[ls.Key] = taker
		}
	}
	by := map[string]int{}
	for _, h := range taken {
		by[h]++
	}
	t.Logf("shares of %d leases (rooms B 10, C 20, D 10): %v", n, by)
	// Expected 75, 150 and 75 left for D; a hash's spread is a few tens.
	require.InDelta(t, n/4, by["B"], 35)
	require.InDelta(t, n/2, by["C"], 45)
	left := n - len(taken)
	require.InDelta(t, n/4, left, 35, "D's share waits for D")

	// D's share, expired for longer than the grace, is anyone's.
	_, err := p.Exec(t.Context(), `UPDATE fleet_leases SET expires_at = now() - interval '2 minutes' WHERE holder = 'dead'`)
	require.NoError(t, err)
	got, err := l.TakeExpiredShare(t.Context(), "session", "B", time.Minute, time.Minute, 1000)
	require.NoError(t, err)
	require.Equal(t, left, len(got))

	// A taker that is not a live member takes whatever it finds.
	for range 5 {
		_, _, err := l.Acquire(t.Context(), "session", uuid.NewString(), "dead", time.Minute)
		require.NoError(t, err)
	}
	_, err = p.Exec(t.Context(), `UPDATE fleet_leases SET expires_at = now() - interval '1 second' WHERE holder = 'dead'`)
	require.NoError(t, err)
	got, err = l.TakeExpiredShare(t.Context(), "session", "E", time.Minute, time.Minute, 1000)
	require.NoError(t, err)
	require.Equal(t, 5, len(got))
}

// A released lease has no holder: it is never taken over, and whoever
// claims it next gets it; a pinned lease is not released.
func TestReleasedLeaseIsTheNextClaimers(t *testing.T) {
	p := pool(t)
	a := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Second, Clock: quartz.NewMock(t)})
	b := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Second, Clock: quartz.NewMock(t)})
	ctx := context.Background()
	ok, _, err := a.Claim(ctx, "s1")
	require.NoError(t, err)
	require.True(t, ok)
	released, err := a.Release(ctx, "s1")
	require.NoError(t, err)
	require.False(t, released, "pinned by its claim")
	a.Unpin("s1")
	released, err = a.Release(ctx, "s1")
	require.NoError(t, err)
	require.True(t, released)
	require.False(t, a.Owns("s1"))
	holder, err := a.Holder(ctx, "s1")
	require.NoError(t, err)
	require.Empty(t, holder)

	require.NoError(t, b.TakeOver(ctx))
	require.False(t, b.Owns("s1"), "a released lease is not a dead daemon's work")
	ok, fresh, err := b.Claim(ctx, "s1")
	require.NoError(t, err)
	require.True(t, ok && fresh, "the next claimer gets it")
	b.Unpin("s1")
	holder, err = a.Holder(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, b.Self(), holder)
}

// Liveness is the heartbeat lease in fleet_members only. A live daemon
// that let one of its own session leases run out (a renewal lost to a
// database hiccup) among a dead peer's is still a member: it takes its
// share of the dead one's leases, not all of them, and its peers count it.
// A dead daemon whose heartbeat has not run out yet keeps its share until
// the grace has passed.
func TestTakeExpiredShareJudgesLivenessByHeartbeatOnly(t *testing.T) {
	p := pool(t)
	l := fleet.NewLeases(p)
	const n = 200
	for range n {
		_, ok, err := l.Acquire(t.Context(), "session", uuid.NewString(), "dead", time.Minute)
		require.NoError(t, err)
		require.True(t, ok)
	}
	_, ok, err := l.Acquire(t.Context(), "session", "Bs-own", "B", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	gone(t, p, "dead", 10)
	live(t, p, "B", 10)
	live(t, p, "C", 10)
	live(t, p, "late", 10) // died, its heartbeat not run out yet
	for range n / 2 {
		_, _, err := l.Acquire(t.Context(), "session", uuid.NewString(), "late", time.Minute)
		require.NoError(t, err)
	}
	expire(t, p, "session")

	taken := map[string]string{}
	for _, taker := range []string{"B", "C"} {
		got, err := l.TakeExpiredShare(t.Context(), "session", taker, time.Minute, time.Minute, 1000)
		require.NoError(t, err)
		for _, ls := range got {
			prev, dup := taken[ls.Key]
			require.False(t, dup, "lease %s taken by %s and %s", ls.Key, prev, taker)
			taken[ls.Key] = taker
		}
	}
	by := map[string]int{}
	for _, h := range taken {
		by[h]++
	}
	total := n + n/2 + 1
	t.Logf("shares of %d leases (B, C and late live by heartbeat, room 10 each): %v", total, by)
	require.InDelta(t, total/3, by["B"], 35, "B is live: its own expired lease does not make it a taker of everything")
	require.InDelta(t, total/3, by["C"], 35, "C counts B as live")
	require.InDelta(t, total/3, total-len(taken), 35, "late's share waits for the grace")
}
