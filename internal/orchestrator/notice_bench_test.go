package orchestrator

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/store"
)

// stampAgents records when the agent's last streamed update reached the
// daemon: the mock's /conn-closed sends its error right after it, so that
// moment is when the failure arrived.
type stampAgents struct {
	Agents
	mu     sync.Mutex // guards last, closed
	last   time.Time
	closed chan struct{} // closed when the last started execution has been torn down
}

// watchedExecution reports its teardown, so iterations do not overlap.
type watchedExecution struct {
	*lifecycle.Execution
	closed chan struct{}
	once   sync.Once
}

func (w *watchedExecution) Close() error {
	err := w.Execution.Close()
	w.once.Do(func() { close(w.closed) })
	return err
}

func (a *stampAgents) Start(ctx context.Context, req lifecycle.StartRequest) (Execution, error) {
	on := req.OnEvent
	req.OnEvent = func(ev lifecycle.Event) {
		a.mu.Lock()
		a.last = time.Now()
		a.mu.Unlock()
		on(ev)
	}
	ex, err := a.Agents.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	w := &watchedExecution{Execution: ex.(*lifecycle.Execution), closed: make(chan struct{})}
	a.mu.Lock()
	a.closed = w.closed
	a.mu.Unlock()
	return w, nil
}

func (a *stampAgents) torndown() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

func (a *stampAgents) lastEvent() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// BenchmarkFailureToNotice drives the real mock agent process end to end: a
// turn streams two chunks, then fails with a dropped connection; the time
// from that failure reaching the daemon to the retry notice reaching a
// session subscriber (what a WebSocket client is sent) is reported as
// p50/p99 over the iterations.
func BenchmarkFailureToNotice(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	mgr, err := lifecycle.NewManager(lifecycle.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = mgr.Close() }()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	agents := &stampAgents{Agents: LifecycleAgents(mgr)}
	svc, err := New(Config{Store: db, Agents: agents, DataDir: dir, Clock: quartz.NewMock(b).WithLogger(quietClock{}),
		Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: self,
			Env: map[string]string{mockAgentEnv: "1", "MOCK_STATE_DIR": b.TempDir()}}}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = svc.Close() }()
	var lat []time.Duration
	for b.Loop() {
		v, err := svc.CreateTask(ctx, CreateTaskRequest{Prompt: "/conn-closed:1000 tell me a story", Agent: "mock"})
		if err != nil {
			b.Fatal(err)
		}
		sid := v.Sessions[0].ID
		_, sub, err := svc.SubscribeSession(ctx, SubscribeRequest{SessionID: sid}, 1024)
		if err != nil {
			b.Fatal(err)
		}
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case n := <-sub.C():
				if x := decode(n); isNotice(x) {
					lat = append(lat, time.Since(agents.lastEvent()))
					break wait
				}
			case <-deadline:
				b.Fatal("no retry notice within 30s")
			}
		}
		sub.Close()
		if err := svc.StopTurn(ctx, StopRequest{SessionID: sid}); err != nil {
			b.Fatal(err)
		}
		<-agents.torndown() // the failed process ends after the notice; not part of the next sample
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[(len(lat)*9)/10].Microseconds())/1000, "ms-p90")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "ms-p99")
}
