package fleet

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

func parseTime(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, s)
	return at
}

// SIGKILL of daemon B with 50 parked retries: once B's leases run out the
// other daemons take its sessions over and fire every retry at its
// original retry_at (or at once, when the takeover comes after it), within
// lease expiry + 1s; the two live daemons split them; none is lost, none is
// sent twice, no banner.
func TestFailoverFiresParkedRetriesOnce(t *testing.T) {
	if os.Getenv("ORCHESTRATORD_FLEET_FULL") == "" {
		t.Skip("the 50-retry failover takes about 90s; `make fleet` runs it (ORCHESTRATORD_FLEET_FULL=1)")
	}
	const n = 50
	// Every retry parked before the first is due: 50 agents start on a
	// machine shared with other work (a load of 30 on 2 cores took 27s).
	const delay = 40 * time.Second
	f := Start(t, Options{N: 3, Lease: 5 * time.Second, MaxAgents: 64,
		Args: []string{"--overload-gate", "off", "--config", daemontest.RetryConfig(t, "40s, 40s, 40s")}})
	tasks := map[string]string{} // session → task
	began := time.Now()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 5 { // five clients at once
		b := f.Dial(t, 1)
		wg.Go(func() {
			for i := w; i < n; i += 5 {
				task, sess := createTask(t, b, map[string]any{"title": fmt.Sprint("parked ", i), "prompt": fmt.Sprintf("/overloaded:1 task %d", i), "agent": "mock"})
				mu.Lock()
				tasks[sess] = task
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, tasks, n)
	t.Logf("%d tasks created on B in %v", n, time.Since(began).Round(time.Millisecond))
	WaitFor(t, 60*time.Second, "every task's retry to be parked on B", func() (bool, string) {
		k := f.Count(t, `SELECT count(*) FROM pending_retries WHERE state = 'pending'`)
		return k == n, fmt.Sprintf("%d of %d parked (%d rows, %d sessions, %d events)", k, n, f.Count(t, `SELECT count(*) FROM pending_retries`),
			f.Count(t, `SELECT count(*) FROM sessions`), f.Count(t, `SELECT count(*) FROM events`))
	})
	retryAt := map[string]time.Time{}
	rows, err := f.Pool.Query(t.Context(), `SELECT session_id, retry_at FROM pending_retries`)
	require.NoError(t, err)
	for rows.Next() {
		var sid, at string
		require.NoError(t, rows.Scan(&sid, &at))
		retryAt[sid] = parseTime(t, at)
	}
	require.NoError(t, rows.Err())
	require.Len(t, retryAt, n)
	for sid := range retryAt {
		require.Equal(t, f.D(1).ID, f.holder(t, sid), "B owns its sessions")
	}

	killed := time.Now()
	f.Kill(1)
	var leaseEnd time.Time
	require.NoError(t, f.Pool.QueryRow(t.Context(), `SELECT max(expires_at) FROM fleet_leases WHERE kind = 'session' AND holder = $1`,
		f.D(1).ID).Scan(&leaseEnd))
	first := retryAt[firstKey(retryAt)]
	require.True(t, killed.Before(first), "B died before any retry was due (%v before the first)", first.Sub(killed))

	WaitFor(t, delay+30*time.Second, "every retry to fire and its turn to end", func() (bool, string) {
		k := f.Count(t, `SELECT count(*) FROM events WHERE type = 'session.turn.completed' AND payload->>'stop_reason' = 'end_turn'`)
		return k == n, fmt.Sprintf("%d of %d retries done", k, n)
	})

	// When each fired: its session.turn.started with retry 1.
	fired := map[string]time.Time{}
	rows, err = f.Pool.Query(t.Context(), `SELECT session_id, at FROM events WHERE type = 'session.turn.started' AND (payload->>'retry')::int > 0`)
	require.NoError(t, err)
	for rows.Next() {
		var sid, at string
		require.NoError(t, rows.Scan(&sid, &at))
		_, dup := fired[sid]
		assert.False(t, dup, "session %s: its retry fired twice", sid)
		fired[sid] = parseTime(t, at)
	}
	require.NoError(t, rows.Err())
	require.Len(t, fired, n, "every parked retry fired")
	var late []time.Duration
	for sid, at := range fired {
		due := retryAt[sid]
		if leaseEnd.After(due) {
			due = leaseEnd
		}
		late = append(late, at.Sub(due))
		assert.LessOrEqual(t, at.Sub(due), time.Second, "session %s fired %v after max(retry_at, lease expiry)", sid, at.Sub(due))
		assert.False(t, at.Before(retryAt[sid].Add(-50*time.Millisecond)), "session %s fired before its retry_at", sid)
		assert.NotEqual(t, f.D(1).ID, f.holder(t, sid), "taken over")
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	// When each lease was taken, after B's ran out: the takers' checks are
	// armed at the expiry, not a poll later.
	var takenAfter []time.Duration
	rows, err = f.Pool.Query(t.Context(), `SELECT acquired_at FROM fleet_leases WHERE kind = 'session' AND key = ANY($1)`, keys(retryAt))
	require.NoError(t, err)
	for rows.Next() {
		var at time.Time
		require.NoError(t, rows.Scan(&at))
		takenAfter = append(takenAfter, at.Sub(leaseEnd))
	}
	require.NoError(t, rows.Err())
	sort.Slice(takenAfter, func(i, j int) bool { return takenAfter[i] < takenAfter[j] })
	t.Logf("failover of %d parked retries (lease %v): B killed %v before the first retry_at; its leases ran out %v after the kill, "+
		"taken over %v…%v after that; fired after max(retry_at, lease expiry): min %v, median %v, p90 %v, max %v",
		n, f.Opts.Lease, first.Sub(killed).Round(time.Millisecond), leaseEnd.Sub(killed).Round(time.Millisecond),
		takenAfter[0].Round(time.Millisecond), takenAfter[len(takenAfter)-1].Round(time.Millisecond),
		late[0].Round(time.Millisecond), late[len(late)/2].Round(time.Millisecond), late[len(late)*9/10].Round(time.Millisecond),
		late[len(late)-1].Round(time.Millisecond))

	assert.Zero(t, f.Count(t, `SELECT count(*) FROM pending_retries`), "nothing left parked")
	assert.Zero(t, f.Count(t, `SELECT count(*) FROM messages WHERE metadata->>'kind' = 'recovery'`), "no banner")
	got, err := mockagent.ReceivedPrompts(f.MockState)
	require.NoError(t, err)
	per := map[string]int{}
	for _, r := range got {
		per[r.Task]++
	}
	for sid, task := range tasks {
		assert.Equal(t, 2, per[task], "session %s: the failed prompt and its one retry reached the agent, no more", sid)
	}
	// The two live daemons split B's sessions between them (by room: the
	// same here, so about half each), rather than the first to look taking
	// them all.
	by := map[string]int{}
	for sid := range fired {
		by[f.holder(t, sid)]++
	}
	t.Logf("taken over: A %d, C %d", by[f.D(0).ID], by[f.D(2).ID])
	assert.Equal(t, n, by[f.D(0).ID]+by[f.D(2).ID])
	assert.GreaterOrEqual(t, by[f.D(0).ID], n/5, "A took its share")
	assert.GreaterOrEqual(t, by[f.D(2).ID], n/5, "C took its share")
}

func keys(m map[string]time.Time) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func firstKey(m map[string]time.Time) string {
	best := ""
	for k, v := range m {
		if best == "" || v.Before(m[best]) {
			best = k
		}
	}
	return best
}
