package orchestrator

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/store"
)

// noAgents is never asked to start anything: the benchmarks only park.
type noAgents struct{}

func (noAgents) Start(context.Context, lifecycle.StartRequest) (Execution, error) {
	return nil, fmt.Errorf("benchmark: no agents")
}

// latenessClock is the real clock, recording how late each AfterFunc fires.
type latenessClock struct {
	quartz.Clock
	timerOnly bool       // measure the runtime timers alone, without the claim
	mu        sync.Mutex // guards late
	late      []time.Duration
}

func (c *latenessClock) AfterFunc(d time.Duration, f func(), tags ...string) *quartz.Timer {
	due := time.Now().Add(d)
	return c.Clock.AfterFunc(d, func() {
		late := time.Since(due)
		c.mu.Lock()
		c.late = append(c.late, late)
		c.mu.Unlock()
		if !c.timerOnly {
			f()
		}
	}, tags...)
}

func benchService(b *testing.B, clock quartz.Clock) *Service {
	b.Helper()
	dir := b.TempDir()
	db, err := store.Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	svc, err := New(Config{Store: db, Agents: noAgents{}, DataDir: dir, Clock: clock,
		Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: "true"}}})
	if err != nil {
		b.Fatal(err)
	}
	return svc
}

// park arms n in-memory retries due after delay, as parkLocked would after
// persisting them.
func park(svc *Service, n int, delay time.Duration) {
	now := time.Now().UTC()
	for i := range n {
		id := fmt.Sprintf("s-%08d", i)
		rt := &sessionRT{task: store.Task{ID: "t-" + id}, sess: store.Session{ID: id, TaskID: "t-" + id, Generation: 1}}
		rt.retry = &parkedRetry{rec: store.PendingRetry{SessionID: id, TaskID: rt.task.ID, Generation: 1, Attempt: 1,
			MaxAttempts: 3, Code: "overloaded", RuleID: "anthropic.overloaded.529.v1", RetryAt: now.Add(delay),
			Prompt: "fix the failing test in internal/store", NoticeID: "n-" + id, State: store.RetryPending}}
		svc.mu.Lock()
		svc.sessions[id] = rt
		svc.mu.Unlock()
		rt.mu.Lock()
		svc.armLocked(rt, delay)
		rt.mu.Unlock()
	}
}

// BenchmarkParkedRetries100k: memory per parked retry and Close() drain time.
func BenchmarkParkedRetries100k(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		svc := benchService(b, quartz.NewReal())
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		park(svc, n, time.Hour)
		runtime.GC()
		runtime.ReadMemStats(&after)
		start := time.Now()
		_ = svc.Close()
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/parked")
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/Close")
	}
}

// BenchmarkArmCancel: the cost of arming and disarming one retry timer.
func BenchmarkArmCancel(b *testing.B) {
	svc := benchService(b, quartz.NewReal())
	defer func() { _ = svc.Close() }()
	rt := &sessionRT{sess: store.Session{ID: "s"}}
	rt.retry = &parkedRetry{rec: store.PendingRetry{SessionID: "s", Generation: 1, Attempt: 1}}
	for b.Loop() {
		svc.armLocked(rt, time.Hour)
		rt.retry.timer.Stop()
	}
}

// BenchmarkTimerLateness10kSameSecond: 10,000 retries due in the same
// second; reports p50/p99 of callback start minus retry_at, with the real
// claim (a SQLite write per retry) and for the runtime timers alone.
func BenchmarkTimerLateness10kSameSecond(b *testing.B) {
	for _, timerOnly := range []bool{false, true} {
		name := "with-claim"
		if timerOnly {
			name = "timer-only"
		}
		b.Run(name, func(b *testing.B) {
			const n = 10_000
			for b.Loop() {
				clock := &latenessClock{Clock: quartz.NewReal(), timerOnly: timerOnly}
				svc := benchService(b, clock)
				park(svc, n, time.Second)
				deadline := time.Now().Add(30 * time.Second)
				for {
					clock.mu.Lock()
					done := len(clock.late)
					clock.mu.Unlock()
					if done == n || time.Now().After(deadline) {
						break
					}
					time.Sleep(50 * time.Millisecond) // waiting for real timers, not for a backoff
				}
				_ = svc.Close()
				slices.Sort(clock.late)
				if len(clock.late) < n {
					b.Fatalf("only %d of %d timers fired", len(clock.late), n)
				}
				b.ReportMetric(float64(clock.late[n/2].Microseconds()), "µs-p50-late")
				b.ReportMetric(float64(clock.late[n*99/100].Microseconds()), "µs-p99-late")
			}
		})
	}
}
