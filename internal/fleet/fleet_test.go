package fleet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// pgtest.Main also checks for leaked goroutines, as goleak.VerifyTestMain.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// pool is a fresh migrated database's pool.
func pool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	db, err := postgres.Open(t.Context(), pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db.Pool()
}

func TestLoadIDIsCreatedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	id, err := fleet.LoadID(dir)
	require.NoError(t, err)
	_, err = uuid.Parse(id)
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(dir, fleet.IDFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	again, err := fleet.LoadID(dir)
	require.NoError(t, err)
	require.Equal(t, id, again, "a restart keeps the daemon's id")
	left, _ := filepath.Glob(filepath.Join(dir, fleet.IDFile+".tmp*"))
	require.Empty(t, left)

	require.NoError(t, os.WriteFile(filepath.Join(dir, fleet.IDFile), []byte("not-a-uuid\n"), 0o600))
	_, err = fleet.LoadID(dir)
	require.ErrorContains(t, err, "does not hold a daemon id")
}

func TestLocalIsAFleetOfOne(t *testing.T) {
	clk := quartz.NewMock(t)
	started := clk.Now()
	l := &fleet.Local{Self: fleet.Identity{ID: uuid.NewString(), Addr: "127.0.0.1:7777", MaxAgents: 8, Profiles: []string{"mock"}},
		Load: func() int { return 3 }, Started: started, Clock: clk}
	ms, err := l.Members(t.Context())
	require.NoError(t, err)
	require.Len(t, ms, 1)
	m := ms[0]
	require.Equal(t, fleet.HealthLive, m.Health)
	require.True(t, m.Self)
	require.Equal(t, 3, m.Load)
	require.Equal(t, 8, m.MaxAgents)
	require.Equal(t, []string{"mock"}, m.Profiles)
	require.Equal(t, "127.0.0.1:7777", m.Addr)
}

func identity(addr string, profiles ...string) fleet.Identity {
	return fleet.Identity{ID: uuid.NewString(), Addr: addr, Hostname: "test", Profiles: profiles, MaxAgents: 4}
}

func member(t *testing.T, r fleet.Lister, id string) fleet.Member {
	t.Helper()
	ms, err := r.Members(t.Context())
	require.NoError(t, err)
	for _, m := range ms {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("member %s not listed in %+v", id, ms)
	return fleet.Member{}
}

func TestHeartbeatJoinsRenewsAndLeaves(t *testing.T) {
	p := pool(t)
	clk := quartz.NewMock(t)
	var mu sync.Mutex
	load := 1
	self := identity("127.0.0.1:7001", "claude", "mock")
	ticks := clk.Trap().NewTicker("fleet", "heartbeat")
	defer ticks.Close()
	r, err := fleet.New(fleet.Config{Pool: p, Self: self, Lease: 3 * time.Second, Clock: clk,
		Load: func() int { mu.Lock(); defer mu.Unlock(); return load }})
	require.NoError(t, err)
	require.NoError(t, r.Start(t.Context()))
	call := ticks.MustWait(t.Context())
	require.Equal(t, time.Second, call.Duration, "renewed every lease/3")
	call.MustRelease(t.Context())

	m := member(t, r, self.ID)
	require.Equal(t, fleet.HealthLive, m.Health)
	require.True(t, m.Self)
	require.Equal(t, 1, m.Load)
	require.Equal(t, []string{"claude", "mock"}, m.Profiles)
	require.Equal(t, 4, m.MaxAgents)
	require.WithinDuration(t, m.LastHeartbeat.Add(3*time.Second), m.ExpiresAt, 10*time.Millisecond, "expiry is the database's now() + lease")
	first := m.LastHeartbeat

	// A tick renews the lease and publishes the current load.
	mu.Lock()
	load = 3
	mu.Unlock()
	clk.Advance(time.Second).MustWait(t.Context())
	require.Eventually(t, func() bool { return member(t, r, self.ID).Load == 3 }, 10*time.Second, 10*time.Millisecond)
	m = member(t, r, self.ID)
	require.True(t, m.LastHeartbeat.After(first), "the heartbeat moved")
	require.Equal(t, first, m.StartedAt, "a renewal keeps started_at")

	// Another daemon sees it too, and itself.
	other := identity("127.0.0.1:7002")
	r2, err := fleet.New(fleet.Config{Pool: p, Self: other, Lease: 3 * time.Second, Clock: quartz.NewMock(t)})
	require.NoError(t, err)
	require.NoError(t, r2.Start(t.Context()))
	require.False(t, member(t, r2, self.ID).Self)
	require.True(t, member(t, r2, other.ID).Self)
	require.NoError(t, r2.Close())

	require.NoError(t, r.Close())
	require.NoError(t, r.Close(), "Close twice is harmless")
	m = member(t, r2, self.ID)
	require.Equal(t, fleet.HealthStopped, m.Health, "a clean shutdown is not mistaken for a death")
	require.False(t, m.ExpiresAt.After(time.Now().Add(time.Second)))
}

func TestAMemberWhoseLeaseRanOutIsExpired(t *testing.T) {
	p := pool(t)
	dead, live := identity("127.0.0.1:7003"), identity("127.0.0.1:7004")
	rd, err := fleet.New(fleet.Config{Pool: p, Self: dead, Lease: time.Second, Clock: quartz.NewMock(t)})
	require.NoError(t, err)
	require.NoError(t, rd.Start(t.Context()))
	rl, err := fleet.New(fleet.Config{Pool: p, Self: live, Lease: time.Minute, Clock: quartz.NewMock(t)})
	require.NoError(t, err)
	require.NoError(t, rl.Start(t.Context()))
	defer func() { require.NoError(t, rl.Close()) }()
	// dead's mock clock never ticks: it stops renewing, as a SIGKILLed daemon
	// does, and the database's clock runs its one-second lease out.
	require.Eventually(t, func() bool { return member(t, rl, dead.ID).Health == fleet.HealthExpired }, 10*time.Second, 20*time.Millisecond)
	ms, err := rl.Members(t.Context())
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, live.ID, ms[0].ID, "live members first")
	require.Equal(t, fleet.HealthLive, ms[0].Health)
	require.NoError(t, rd.Close())
}

func TestHeartbeatFailureIsReturnedAtStart(t *testing.T) {
	p := pool(t)
	_, err := p.Exec(t.Context(), "DROP TABLE fleet_members")
	require.NoError(t, err)
	r, err := fleet.New(fleet.Config{Pool: p, Self: identity("127.0.0.1:7005"), Clock: quartz.NewMock(t)})
	require.NoError(t, err)
	require.ErrorIs(t, r.Start(t.Context()), fleet.ErrUnavailable)
	_, err = r.Members(t.Context())
	require.ErrorIs(t, err, fleet.ErrUnavailable)
	require.NoError(t, r.Close())
}

func TestNewRefusesABadConfig(t *testing.T) {
	p := pool(t)
	_, err := fleet.New(fleet.Config{Pool: p, Self: fleet.Identity{ID: "x"}})
	require.ErrorContains(t, err, "uuid")
	_, err = fleet.New(fleet.Config{Pool: p, Self: identity("a"), Lease: time.Millisecond})
	require.ErrorContains(t, err, "at least 1s")
	_, err = fleet.New(fleet.Config{Self: identity("a")})
	require.ErrorContains(t, err, "pool")
}

// expire ends every lease of kind now, as if their holders had died.
func expire(t *testing.T, p *pgxpool.Pool, kind string) {
	t.Helper()
	_, err := p.Exec(t.Context(), "UPDATE fleet_leases SET expires_at = now() - interval '1 second' WHERE kind = $1", kind)
	require.NoError(t, err)
}

// race runs n acquirers of one key at once and returns the winners.
func race(t *testing.T, l *fleet.Leases, n int, key, prefix string) []fleet.Lease {
	t.Helper()
	var mu sync.Mutex
	var won []fleet.Lease
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			ls, ok, err := l.Acquire(context.Background(), "session", key, fmt.Sprintf("%s-%d", prefix, i), time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				won = append(won, ls)
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	return won
}

func TestLeaseHasExactlyOneWinner(t *testing.T) {
	p := pool(t)
	l := fleet.NewLeases(p)
	won := race(t, l, 16, "s1", "first")
	require.Len(t, won, 1, "one holder of a free lease")
	require.Equal(t, int64(1), won[0].Fence)
	first := won[0]

	require.Empty(t, race(t, l, 16, "s1", "second"), "a current lease is nobody else's")

	expire(t, p, "session")
	won = race(t, l, 16, "s1", "third")
	require.Len(t, won, 1, "one taker of an expired lease")
	require.Equal(t, int64(2), won[0].Fence, "a new holder gets a new fence")

	_, err := l.Renew(t.Context(), first, time.Minute)
	require.ErrorIs(t, err, fleet.ErrLeaseLost, "the old holder learns it lost the lease")
	require.ErrorIs(t, l.Release(t.Context(), first), fleet.ErrLeaseLost)
}

func TestLeaseRenewReleaseAndExpiry(t *testing.T) {
	p := pool(t)
	l := fleet.NewLeases(p)
	a, ok, err := l.Acquire(t.Context(), "gate", "anthropic", "A", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)

	again, ok, err := l.Acquire(t.Context(), "gate", "anthropic", "A", time.Minute)
	require.NoError(t, err)
	require.True(t, ok, "the holder may acquire again: a renewal")
	require.Equal(t, a.Fence, again.Fence)

	renewed, err := l.Renew(t.Context(), a, 2*time.Minute)
	require.NoError(t, err)
	require.True(t, renewed.ExpiresAt.After(a.ExpiresAt))

	require.NoError(t, l.Release(t.Context(), renewed))
	b, ok, err := l.Acquire(t.Context(), "gate", "anthropic", "B", time.Minute)
	require.NoError(t, err)
	require.True(t, ok, "a released lease is free at once")
	require.Greater(t, b.Fence, a.Fence, "fences are never reused")

	// A short lease runs out by the database's clock alone.
	short, ok, err := l.Acquire(t.Context(), "gate", "openai", "A", 200*time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok)
	require.Eventually(t, func() bool {
		_, ok, err := l.Acquire(t.Context(), "gate", "openai", "B", time.Minute)
		require.NoError(t, err)
		return ok
	}, 10*time.Second, 20*time.Millisecond)
	_, err = l.Renew(t.Context(), short, time.Minute)
	require.ErrorIs(t, err, fleet.ErrLeaseLost, "an expired lease is not renewed")

	_, _, err = l.Acquire(t.Context(), "", "k", "A", time.Minute)
	require.Error(t, err)
	_, _, err = l.Acquire(t.Context(), "gate", "k", "A", 0)
	require.Error(t, err)
}

func TestTakeExpiredSharesADeadHoldersLeasesOnce(t *testing.T) {
	p := pool(t)
	l := fleet.NewLeases(p)
	const n = 50
	for range n {
		_, ok, err := l.Acquire(t.Context(), "session", uuid.NewString(), "dead", time.Minute)
		require.NoError(t, err)
		require.True(t, ok)
	}
	_, ok, err := l.Acquire(t.Context(), "gate", "g", "dead", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	none, err := l.TakeExpiredShare(t.Context(), "session", "B", time.Minute, time.Minute, 10)
	require.NoError(t, err)
	require.Empty(t, none, "current leases are not taken")

	expire(t, p, "session")
	expire(t, p, "gate")
	var mu sync.Mutex
	taken := map[string]string{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, taker := range []string{"B", "C", "D", "E"} {
		wg.Go(func() {
			<-start
			for {
				// None of them is a live member: each may take any.
				got, err := l.TakeExpiredShare(context.Background(), "session", taker, time.Minute, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, ls := range got {
					if prev, dup := taken[ls.Key]; dup {
						t.Errorf("lease %s taken by %s and %s", ls.Key, prev, taker)
					}
					taken[ls.Key] = taker
					if ls.Fence != 2 {
						t.Errorf("lease %s: fence %d, want 2", ls.Key, ls.Fence)
					}
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, taken, n, "every expired lease taken, each once")
	var gates int
	require.NoError(t, p.QueryRow(t.Context(), "SELECT count(*) FROM fleet_leases WHERE kind = 'gate' AND holder = 'dead'").Scan(&gates))
	require.Equal(t, 1, gates, "another kind's leases are left alone")
}

// A heartbeat that fails (the database refuses it) is logged once and
// retried every tick; the daemon carries on and its lease is renewed when
// the database is back.
func TestHeartbeatFailureIsRetriedEveryTick(t *testing.T) {
	p := pool(t)
	clk := quartz.NewMock(t)
	core, logs := observer.New(zap.InfoLevel)
	self := identity("127.0.0.1:7006")
	ticks := clk.Trap().NewTicker("fleet", "heartbeat")
	defer ticks.Close()
	r, err := fleet.New(fleet.Config{Pool: p, Self: self, Lease: 3 * time.Second, Clock: clk, Logger: zap.New(core)})
	require.NoError(t, err)
	require.NoError(t, r.Start(t.Context()))
	defer func() { require.NoError(t, r.Close()) }()
	ticks.MustWait(t.Context()).MustRelease(t.Context())
	first := member(t, r, self.ID).LastHeartbeat

	_, err = p.Exec(t.Context(), "ALTER TABLE fleet_members RENAME TO fleet_members_away")
	require.NoError(t, err)
	for range 3 {
		clk.Advance(time.Second).MustWait(t.Context())
	}
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("heartbeat failed").Len() == 1 }, 10*time.Second, 10*time.Millisecond)
	_, err = p.Exec(t.Context(), "ALTER TABLE fleet_members_away RENAME TO fleet_members")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		clk.Advance(time.Second).MustWait(t.Context())
		return member(t, r, self.ID).LastHeartbeat.After(first)
	}, 10*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("heartbeat recovered").Len() == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, 1, logs.FilterMessageSnippet("heartbeat failed").Len(), "logged once, not every tick")
}
