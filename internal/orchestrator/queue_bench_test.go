package orchestrator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/store"
)

// rssKiB is a process's resident set (VmRSS) in KiB; 0 when it is gone.
func rssKiB(pid string) int64 {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkThousandTasksMaxAgents16: 1,000 tasks created at once with
// MaxAgents 16, each a real mock agent process answering one prompt: time
// until every task is done, the most agents alive at once, and the peak
// resident memory of the daemon and of its agents together (sampled every
// 50ms). Skipped under -short: it starts a thousand processes.
func BenchmarkThousandTasksMaxAgents16(b *testing.B) {
	if testing.Short() {
		b.Skip("starts 1,000 agent processes")
	}
	const n, maxAgents = 1000, 16
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		dir, state := b.TempDir(), b.TempDir()
		db, err := store.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		mgr, err := lifecycle.NewManager(lifecycle.Config{KillGrace: 2 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		self, _ := os.Executable()
		svc, err := New(Config{Store: db, Agents: LifecycleAgents(mgr), DataDir: dir, Clock: quartz.NewReal(), MaxAgents: maxAgents,
			Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: self,
				Env: map[string]string{mockAgentEnv: "1", "MOCK_STATE_DIR": state}}}})
		if err != nil {
			b.Fatal(err)
		}
		feed := svc.SubscribeTasks(1 << 16)
		start := time.Now()
		for i := range n {
			if _, err := svc.CreateTask(ctx, CreateTaskRequest{Prompt: fmt.Sprintf("task %d: say hello", i)}); err != nil {
				b.Fatal(err)
			}
		}
		done := map[string]bool{}
		var peakDaemon, peakAgents int64
		peakLive := 0
		tick := time.NewTicker(50 * time.Millisecond)
		for len(done) < n {
			select {
			case note := <-feed.C():
				var body struct{ Task TaskView }
				if json.Unmarshal(note.Payload, &body) == nil && body.Task.State == store.TaskReview {
					done[body.Task.ID] = true
				}
			case <-tick.C:
				peakDaemon = max(peakDaemon, rssKiB("self"))
				var agents int64
				live := 0
				svc.mu.Lock()
				rts := make([]*sessionRT, 0, len(svc.sessions))
				for _, rt := range svc.sessions {
					rts = append(rts, rt)
				}
				svc.mu.Unlock()
				for _, rt := range rts {
					rt.mu.Lock()
					ex := rt.exec
					rt.mu.Unlock()
					if p, ok := ex.(interface{ PID() int }); ok && p.PID() > 0 {
						live++
						agents += rssKiB(strconv.Itoa(p.PID()))
					}
				}
				peakAgents, peakLive = max(peakAgents, agents), max(peakLive, live)
			case <-feed.Overflowed():
				b.Fatal("task feed overflowed")
			case <-ctx.Done():
				b.Fatalf("only %d of %d tasks done", len(done), n)
			}
		}
		elapsed := time.Since(start)
		tick.Stop()
		t0 := time.Now()
		_ = svc.Close()
		_ = mgr.Close()
		closed := time.Since(t0)
		_ = db.Close()
		cancel()
		b.ReportMetric(elapsed.Seconds(), "s-all-done")
		b.ReportMetric(float64(peakLive), "peak-agents")
		b.ReportMetric(float64(peakDaemon)/1024, "MiB-daemon-peak-rss")
		b.ReportMetric(float64(peakAgents)/1024, "MiB-agents-peak-rss")
		b.ReportMetric(closed.Seconds(), "s-close")
	}
}
