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

// fireRecorder notes how late each retry is handed to the retry owner by
// its timer (duetimers.go), from its retry_at.
type fireRecorder struct {
	mu   sync.Mutex // guards late
	late []time.Duration
}

// recordFires wraps svc's retry timers' callback before anything is armed;
// with start false the retries are only noted, not started (the timers
// alone).
func recordFires(svc *Service, start bool) *fireRecorder {
	r := &fireRecorder{}
	fire := svc.dueTimers.fire
	svc.dueTimers.fire = func(due []*parkedRetry) {
		now := time.Now()
		r.mu.Lock()
		for _, p := range due {
			r.late = append(r.late, now.Sub(p.rec.RetryAt))
		}
		r.mu.Unlock()
		if start {
			fire(due)
		}
	}
	return r
}

func (r *fireRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.late)
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
		svc.armLocked(rt, rt.retry.rec.RetryAt)
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
		svc.armLocked(rt, time.Now().Add(time.Hour))
		svc.dueTimers.stop(rt.retry)
	}
}

// BenchmarkTimerLateness10kSameSecond: 10,000 retries due at the same
// instant; reports p50/p99 of when the retry timers hand each one to the
// retry owner, minus retry_at: with their starts and claims running, and
// for the timers alone.
func BenchmarkTimerLateness10kSameSecond(b *testing.B) {
	for _, timerOnly := range []bool{false, true} {
		name := "with-claim"
		if timerOnly {
			name = "timer-only"
		}
		b.Run(name, func(b *testing.B) {
			const n = 10_000
			for b.Loop() {
				svc := benchService(b, quartz.NewReal())
				fires := recordFires(svc, !timerOnly)
				park(svc, n, time.Second)
				deadline := time.Now().Add(30 * time.Second)
				for {
					if fires.count() == n || time.Now().After(deadline) {
						break
					}
					time.Sleep(50 * time.Millisecond) // waiting for real timers, not for a backoff
				}
				_ = svc.Close()
				slices.Sort(fires.late)
				if len(fires.late) < n {
					b.Fatalf("only %d of %d timers fired", len(fires.late), n)
				}
				b.ReportMetric(float64(fires.late[n/2].Microseconds()), "µs-p50-late")
				b.ReportMetric(float64(fires.late[n*99/100].Microseconds()), "µs-p99-late")
			}
		})
	}
}
