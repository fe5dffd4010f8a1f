package orchestrator

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// streamRig is a real service on real SQLite and the real clock, driving
// the mock agent (this test binary) as fast as it streams.
type streamRig struct {
	tb   testing.TB
	ctx  context.Context
	db   *store.DB
	mgr  *lifecycle.Manager
	svc  *Service
	sid  string
	next int64 // seq to follow from
}

func newStreamRig(tb testing.TB) *streamRig {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	tb.Cleanup(cancel)
	dir, state := tb.TempDir(), tb.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	mgr, err := lifecycle.NewManager(lifecycle.Config{KillGrace: 2 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	svc, err := New(Config{Store: db, Agents: LifecycleAgents(mgr), DataDir: dir, Clock: quartz.NewReal(),
		Profiles: map[string]lifecycle.Profile{"mock": {Name: "mock", Command: self,
			Env: map[string]string{mockAgentEnv: "1", "MOCK_STATE_DIR": state}}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = svc.Close(); _ = mgr.Close() })
	r := &streamRig{tb: tb, ctx: ctx, db: db, mgr: mgr, svc: svc}
	// A first turn starts the agent process, so the measured turns stream
	// on a warm one.
	v, err := svc.CreateTask(ctx, CreateTaskRequest{Prompt: "hello"})
	if err != nil {
		tb.Fatal(err)
	}
	r.sid = v.Sessions[0].ID
	r.turn(func() {})
	return r
}

// streamed is what one turn showed a subscriber.
type streamed struct {
	text       string // the deltas and added texts of agent messages, in order
	stopReason string
	notes      int
}

// turn runs prompt (via start) and follows the session to the turn's end.
func (r *streamRig) turn(start func()) streamed {
	r.tb.Helper()
	after := r.next
	_, sub, err := r.svc.SubscribeSession(r.ctx, SubscribeRequest{SessionID: r.sid, AfterSeq: &after}, 1<<14)
	if err != nil {
		r.tb.Fatal(err)
	}
	defer sub.Close()
	start()
	var out streamed
	var text strings.Builder
	agentMsgs := map[string]bool{}
	deadline := time.After(5 * time.Minute)
	for {
		select {
		case n := <-sub.C():
			out.notes++
			r.next = n.Seq
			x := decode(n)
			switch {
			case x.Action == "session.message.added" && x.Message != nil && x.Message.Role == "agent":
				agentMsgs[x.Message.ID] = true
				text.WriteString(x.Message.Text)
			case x.Action == "session.message.updated" && agentMsgs[x.MessageID]:
				text.WriteString(x.Delta)
			case x.Action == "session.turn.completed":
				out.text, out.stopReason = text.String(), x.StopReason
				return out
			}
		case <-sub.Overflowed():
			r.tb.Fatal("subscription overflowed")
		case <-deadline:
			r.tb.Fatal("turn did not end")
		}
	}
}

func (r *streamRig) prompt(text string) streamed {
	return r.turn(func() {
		if err := r.svc.Prompt(r.ctx, PromptRequest{SessionID: r.sid, Text: text}); err != nil {
			r.tb.Fatal(err)
		}
	})
}

// writtenBytes is what this process has passed to write(2) so far: the
// WAL, checkpoints into the data file, and little else (Linux only).
func writtenBytes(tb testing.TB) int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		tb.Skip("no /proc/self/io")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	tb.Skip("no wchar in /proc/self/io")
	return 0
}

// BenchmarkStreamReply: one reply of N chunks of 20 B streamed by the mock
// agent as fast as it can, from the prompt to the end of the turn: time,
// bytes written by the daemon per reply and per reply byte, the daemon's
// CPU per reply, allocations.
func BenchmarkStreamReply(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			size := n * 20
			want := mockagent.StreamReply(n, size)
			r := newStreamRig(b)
			b.ReportAllocs()
			var written int64
			var elapsed, cpu time.Duration
			for b.Loop() {
				w0, t0, c0 := writtenBytes(b), time.Now(), cpuTime(b)
				got := r.prompt(fmt.Sprintf("/stream:%d:%d go", n, size))
				elapsed += time.Since(t0)
				cpu += cpuTime(b) - c0
				written += writtenBytes(b) - w0
				if got.stopReason != "end_turn" {
					b.Fatalf("turn ended %q, not end_turn", got.stopReason)
				}
				if got.text != want {
					b.Fatalf("streamed %d bytes, want %d, in order", len(got.text), len(want))
				}
			}
			iters := float64(b.N)
			b.ReportMetric(float64(elapsed.Milliseconds())/iters, "ms/reply")
			// The daemon's own CPU (not the agent's): what a loaded machine
			// cannot hide.
			b.ReportMetric(float64(cpu.Milliseconds())/iters, "daemon-cpu-ms/reply")
			b.ReportMetric(float64(written)/iters/(1<<20), "MiB-written/reply")
			b.ReportMetric(float64(written)/iters/float64(size), "written/reply-byte")
		})
	}
}
