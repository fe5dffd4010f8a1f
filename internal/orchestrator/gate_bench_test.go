package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// wallAgents is an in-process agent for every session, behind one provider
// that answers 529 while down is set and replies otherwise: the
// orchestrator's and the store's own cost is what a benchmark of it
// measures, not agent processes.
type wallAgents struct {
	down    atomic.Bool
	mu      sync.Mutex          // guards history, next
	history map[string][]string // agent session id → prompts it holds
	next    int
}

func (a *wallAgents) Start(_ context.Context, req lifecycle.StartRequest) (Execution, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, resumed := req.ResumeSessionID, true
	if _, ok := a.history[id]; !ok || id == "" {
		a.next++
		id, resumed = fmt.Sprintf("wall-%d", a.next), false
		a.history[id] = nil
	}
	return &wallExec{a: a, id: id, resumed: resumed, agent: req.Profile.Name, onEvent: req.OnEvent}, nil
}

type wallExec struct {
	a       *wallAgents
	id      string
	resumed bool
	agent   string
	onEvent func(lifecycle.Event)
}

func (e *wallExec) AgentSessionID() string { return e.id }
func (e *wallExec) Resumed() bool          { return e.resumed }
func (e *wallExec) Close() error           { return nil }

func (e *wallExec) ReplayedUserPrompts() []string {
	if !e.resumed {
		return nil
	}
	e.a.mu.Lock()
	defer e.a.mu.Unlock()
	return append([]string(nil), e.a.history[e.id]...)
}

func (e *wallExec) Prompt(ctx context.Context, text string) (lifecycle.PromptResult, error) {
	e.a.mu.Lock()
	e.a.history[e.id] = append(e.a.history[e.id], text)
	e.a.mu.Unlock()
	if e.a.down.Load() {
		const body = `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
		return lifecycle.PromptResult{}, &lifecycle.FailureError{Evidence: routingerr.Evidence{
			Agent: e.agent, Phase: routingerr.PhasePromptSend, HasRPCError: true, RPCCode: -32603,
			RPCMessage: "Internal error: " + body,
		}}
	}
	e.onEvent(lifecycle.Event{Kind: lifecycle.EventAgentMessage, Text: "Done: " + text})
	return lifecycle.PromptResult{StopReason: "end_turn", HadOutput: true}, nil
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Skip("no getrusage")
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGateRelease10k: 10,000 sessions wait on an open overload gate
// (their first prompts met a 529 wall); the provider comes back, the
// gate's probe succeeds, and it releases them all within its release
// window (5s by default). Reported: the time from the gate closing to the
// last session's reply (target: within the 5s window), and the CPU the
// daemon spent per released session (claim, turn, reply, clean-up: what
// bounds the release on a busy machine). -short: 1,000 sessions.
func BenchmarkGateRelease10k(b *testing.B) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	for b.Loop() {
		closeToLast, cpu, calls := gateRelease(b, n)
		b.ReportMetric(closeToLast.Seconds(), "s-close-to-last")
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/session")
		b.ReportMetric(float64(calls.writes.Load())/float64(n), "writes/session")
		b.ReportMetric(float64(calls.reads.Load())/float64(n), "reads/session")
	}
}

// countingStore counts the store calls of the release: writes (each one
// commit, however many events it carries) and reads.
type countingStore struct {
	*store.DB
	on            atomic.Bool
	writes, reads atomic.Int64
}

func (c *countingStore) w() {
	if c.on.Load() {
		c.writes.Add(1)
	}
}

func (c *countingStore) r() {
	if c.on.Load() {
		c.reads.Add(1)
	}
}

func (c *countingStore) AppendEvent(ctx context.Context, w store.EventWrite) error {
	c.w()
	return c.DB.AppendEvent(ctx, w)
}

func (c *countingStore) AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error {
	c.w()
	return c.DB.AppendEvents(ctx, batches...)
}

func (c *countingStore) SealMessages(ctx context.Context, ids ...string) error {
	c.w()
	return c.DB.SealMessages(ctx, ids...)
}

func (c *countingStore) SaveExecution(ctx context.Context, e store.Execution) error {
	c.w()
	return c.DB.SaveExecution(ctx, e)
}

func (c *countingStore) SavePendingRetry(ctx context.Context, r store.PendingRetry) error {
	c.w()
	return c.DB.SavePendingRetry(ctx, r)
}

func (c *countingStore) DeletePendingRetry(ctx context.Context, sid string) error {
	c.w()
	return c.DB.DeletePendingRetry(ctx, sid)
}

func (c *countingStore) ListMessages(ctx context.Context, sid string) ([]store.Message, error) {
	c.r()
	return c.DB.ListMessages(ctx, sid)
}

func (c *countingStore) GetMessage(ctx context.Context, id string) (store.Message, error) {
	c.r()
	return c.DB.GetMessage(ctx, id)
}

func (c *countingStore) CountMessages(ctx context.Context, sid, role, text string) (int, error) {
	c.r()
	return c.DB.CountMessages(ctx, sid, role, text)
}

func (c *countingStore) GetSession(ctx context.Context, id string) (store.Session, error) {
	c.r()
	return c.DB.GetSession(ctx, id)
}

func gateRelease(b *testing.B, n int) (closeToLast, cpu time.Duration, calls *countingStore) {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	agents := &wallAgents{history: make(map[string][]string)}
	agents.down.Store(true)
	// Probes every 200ms, so the gate finds the provider back at once; the
	// release window is the default.
	probe := 200 * time.Millisecond
	calls = &countingStore{DB: db}
	svc, err := New(Config{Store: calls, Agents: agents, DataDir: dir, Clock: quartz.NewReal(),
		Policy:   routingerr.PolicyConfig{Scale: 0.01},
		Overload: overload.Config{FirstProbe: probe, Backoff: []time.Duration{probe}, MinProbeInterval: probe},
		Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: "in-process"}}, SubscriberBuffer: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = svc.Close() }()
	if err := svc.Start(ctx); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, err := svc.CreateTask(ctx, CreateTaskRequest{Prompt: fmt.Sprintf("task %d: fix the failing test", i)}); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	waitFor(b, 5*time.Minute, func() bool {
		g := svc.Gates().Gates
		return len(g) == 1 && g[0].State == overload.Open && g[0].Waiting == n
	})

	feed := svc.SubscribeTasks(n*8 + 1024)
	defer feed.Close()
	if path := os.Getenv("GATE_RELEASE_CPUPROFILE"); path != "" {
		// The release alone (go test -cpuprofile takes the setup too).
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	calls.on.Store(true)
	cpu0 := cpuTime(b)
	agents.down.Store(false)
	var closed, last time.Time
	replied := map[string]bool{}
	deadline := time.After(5 * time.Minute)
	for len(replied) < n {
		select {
		case note := <-feed.C():
			switch note.Action {
			case actionGateUpdated:
				var x struct{ Gate GateInfo }
				if json.Unmarshal(note.Payload, &x) == nil && x.Gate.State == overload.Closed && closed.IsZero() {
					closed = note.At
				}
			case "task.updated":
				var x struct{ Task TaskView }
				if json.Unmarshal(note.Payload, &x) != nil || len(x.Task.Sessions) == 0 {
					continue
				}
				if x.Task.State == store.TaskReview && x.Task.Sessions[0].State == store.SessionWaitingForInput {
					replied[x.Task.ID], last = true, note.At
				}
			}
		case <-feed.Overflowed():
			b.Fatal("task feed overflowed")
		case <-deadline:
			b.Fatalf("%d of %d sessions replied within 5 minutes", len(replied), n)
		}
	}
	cpu = cpuTime(b) - cpu0
	calls.on.Store(false)
	if closed.IsZero() {
		b.Fatal("no gate.updated closed")
	}
	return last.Sub(closed), cpu, calls
}

// waitFor polls cond (real timers: a benchmark's setup, not a backoff).
func waitFor(tb testing.TB, limit time.Duration, cond func() bool) {
	tb.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			tb.Fatal("condition not reached in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
