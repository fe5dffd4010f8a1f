package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/store"
)

// claimRecorder is the real store, noting when each retry's claim returns.
type claimRecorder struct {
	*store.DB
	mu   sync.Mutex // guards due, late
	due  map[string]time.Time
	late []time.Duration
}

func (c *claimRecorder) note(ids ...string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		c.late = append(c.late, now.Sub(c.due[id]))
	}
}

func (c *claimRecorder) ClaimPendingRetry(ctx context.Context, id string, gen int64, attempt int) (bool, error) {
	ok, err := c.DB.ClaimPendingRetry(ctx, id, gen, attempt)
	c.note(id)
	return ok, err
}

func (c *claimRecorder) ClaimPendingRetries(ctx context.Context, claims []store.RetryClaim) ([]bool, error) {
	oks, err := c.DB.ClaimPendingRetries(ctx, claims)
	ids := make([]string, len(claims))
	for i, k := range claims {
		ids[i] = k.SessionID
	}
	c.note(ids...)
	return oks, err
}

// BenchmarkRetryFire10k: 10,000 parked retries due at the same instant, and
// spread evenly over one second. Reports how late the timer callbacks start
// (cb-p99) and how late each retry's durable claim has returned (claim-p50,
// claim-p99), both from its retry_at.
func BenchmarkRetryFire10k(b *testing.B) {
	for _, tc := range []struct {
		name   string
		spread time.Duration
	}{{"same-instant", 0}, {"spread-1s", time.Second}} {
		b.Run(tc.name, func(b *testing.B) {
			const n = 10_000
			for b.Loop() {
				dir := b.TempDir()
				db, err := store.Open(context.Background(), dir)
				if err != nil {
					b.Fatal(err)
				}
				rec := &claimRecorder{DB: db, due: make(map[string]time.Time, n)}
				clock := &latenessClock{Clock: quartz.NewReal()}
				svc, err := New(Config{Store: rec, Agents: noAgents{}, DataDir: dir, Clock: clock,
					Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: "true"}}})
				if err != nil {
					b.Fatal(err)
				}
				first := time.Now().Add(time.Second)
				for i := range n {
					id := fmt.Sprintf("s-%08d", i)
					rec.due[id] = first.Add(tc.spread * time.Duration(i) / n)
				}
				for i := range n {
					id := fmt.Sprintf("s-%08d", i)
					rt := &sessionRT{task: store.Task{ID: "t-" + id}, sess: store.Session{ID: id, TaskID: "t-" + id, Generation: 1}}
					rt.retry = &parkedRetry{rec: store.PendingRetry{SessionID: id, TaskID: rt.task.ID, Generation: 1, Attempt: 1,
						MaxAttempts: 3, Code: "overloaded", RetryAt: rec.due[id], State: store.RetryPending}}
					svc.mu.Lock()
					svc.sessions[id] = rt
					svc.mu.Unlock()
					rt.mu.Lock()
					svc.armLocked(rt, time.Until(rec.due[id]))
					rt.mu.Unlock()
				}
				deadline := time.Now().Add(60 * time.Second)
				for {
					rec.mu.Lock()
					done := len(rec.late)
					rec.mu.Unlock()
					if done == n || time.Now().After(deadline) {
						break
					}
					time.Sleep(20 * time.Millisecond) // waiting for real timers, not for a backoff
				}
				_ = svc.Close()
				_ = db.Close()
				if len(rec.late) < n {
					b.Fatalf("only %d of %d claims returned", len(rec.late), n)
				}
				slices.Sort(rec.late)
				slices.Sort(clock.late)
				b.ReportMetric(float64(clock.late[len(clock.late)*99/100].Microseconds()), "µs-cb-p99")
				b.ReportMetric(float64(rec.late[n/2].Microseconds()), "µs-claim-p50")
				b.ReportMetric(float64(rec.late[n*99/100].Microseconds()), "µs-claim-p99")
			}
		})
	}
}
