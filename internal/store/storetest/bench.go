package storetest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Bench runs the store benchmarks against f, the same for every store, so
// that `make bench` shows them side by side:
//   - a streamed chunk (AppendEvent with a text append);
//   - 500 writers at once, one session each, streaming;
//   - claiming a pending retry (ClaimPendingRetry);
//   - listing 5,000 tasks with their sessions, a page of 1,000 at a time;
//   - releasing 10,000 parked sessions, the overload gate's worst case:
//     their retries claimed in batches of 1,000 (ClaimPendingRetries),
//     then each session back to RUNNING with its notice replaced, from
//     500 goroutines.
//
// Each case's time per operation goes into results, by case name, when
// results is not nil (BenchmarkStores prints them as a table).
func Bench(b *testing.B, f Factory, results map[string]time.Duration) {
	run := func(name string, fn func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			fn(b)
			if results != nil && b.N > 0 {
				results[name] = b.Elapsed() / time.Duration(b.N)
			}
		})
	}
	run("chunk", func(b *testing.B) {
		db := f.New(b)
		seed(b, db, "t1", "s1")
		s := &streamer{db: db, session: "s1"}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.step(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("500 writers", func(b *testing.B) {
		db := f.New(b)
		procs := max(1, testingProcs())
		writers := max(1, 500/procs) * procs // RunParallel's goroutines
		parallel(b, writers, 16, func(i int) error {
			return db.CreateTask(b.Context(), store.Task{ID: fmt.Sprintf("t%d", i), State: store.TaskInProgress},
				store.Session{ID: fmt.Sprintf("s%d", i), State: store.SessionRunning})
		})
		streamers := make([]*streamer, writers)
		for i := range streamers {
			streamers[i] = &streamer{db: db, session: fmt.Sprintf("s%d", i)}
		}
		var next atomic.Int64
		b.SetParallelism(writers / procs)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			s := streamers[int(next.Add(1)-1)%writers]
			for pb.Next() {
				if err := s.step(b.Context()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	run("claim", func(b *testing.B) {
		db := f.New(b)
		seed(b, db, "t1", "s1")
		ctx := b.Context()
		gen := int64(0)
		for b.Loop() {
			b.StopTimer()
			gen++
			if err := db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s1", TaskID: "t1", Generation: gen, Attempt: 2,
				MaxAttempts: 3, Code: "overloaded", RetryAt: at(60), CreatedAt: at(0)}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			ok, err := db.ClaimPendingRetry(ctx, "s1", gen, 2)
			if err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	run("list 5000 tasks", func(b *testing.B) {
		db := f.New(b)
		const n = 5000
		parallel(b, n, 16, func(i int) error {
			id := fmt.Sprintf("%05d", i)
			return db.CreateTask(b.Context(), newTask("t"+id, i), newSession("s"+id, "t"+id, i))
		})
		b.ResetTimer()
		for b.Loop() {
			got, cursor := 0, ""
			for {
				page, next, err := db.ListTaskPage(b.Context(), 1000, cursor)
				if err != nil {
					b.Fatal(err)
				}
				got += len(page)
				if cursor = next; cursor == "" {
					break
				}
			}
			if got != n {
				b.Fatalf("listed %d tasks, want %d", got, n)
			}
		}
	})
	run("release 10000 parked", func(b *testing.B) {
		const n = 10_000
		db := f.New(b)
		ctx := b.Context()
		id := func(i int) string { return fmt.Sprintf("%05d", i) }
		seqs := make([]int64, n)
		parallel(b, n, 64, func(i int) error {
			return db.CreateTask(ctx, newTask("t"+id(i), 0), newSession("s"+id(i), "t"+id(i), 0))
		})
		gen := int64(0)
		for b.Loop() {
			b.StopTimer()
			gen++
			// Park every session: its notice and its retry in one event, as
			// the orchestrator does.
			parallel(b, n, 64, func(i int) error {
				seqs[i]++
				sid := "s" + id(i)
				return db.AppendEvent(ctx, store.EventWrite{
					Event:         event(sid, seqs[i], "session.message.added", map[string]any{"id": "n" + sid, "retrying": true}),
					Session:       &store.Session{ID: sid, State: store.SessionRunning, Generation: gen, UpdatedAt: at(int(seqs[i]))},
					UpsertMessage: &store.Message{ID: "n" + sid, Role: "status", Variant: "warning", Text: "Provider overloaded; waiting"},
					SaveRetry: &store.PendingRetry{SessionID: sid, TaskID: "t" + id(i), Generation: gen, Attempt: 2, MaxAttempts: 5,
						Code: "overloaded", RetryAt: at(60), NoticeID: "n" + sid, Extra: map[string]any{"gate": "mock"}},
				})
			})
			b.StartTimer()
			claims := make([]store.RetryClaim, n)
			for i := range claims {
				claims[i] = store.RetryClaim{SessionID: "s" + id(i), Generation: gen, Attempt: 2}
			}
			for start := 0; start < n; start += 1000 {
				got, err := db.ClaimPendingRetries(ctx, claims[start:start+1000])
				if err != nil {
					b.Fatal(err)
				}
				for i, ok := range got {
					if !ok {
						b.Fatalf("retry of %s not claimed", claims[start+i].SessionID)
					}
				}
			}
			parallel(b, n, 500, func(i int) error {
				seqs[i]++
				sid := "s" + id(i)
				return db.AppendEvent(ctx, store.EventWrite{
					Event:         event(sid, seqs[i], "session.message.updated", map[string]any{"id": "n" + sid, "retrying": false}),
					Session:       &store.Session{ID: sid, State: store.SessionRunning, Generation: gen, UpdatedAt: at(int(seqs[i]))},
					UpsertMessage: &store.Message{ID: "n" + sid, Role: "status", Variant: "info", Text: "Retrying now"},
				})
			})
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "sessions/s")
	})
}

// parallel runs fn(0…n-1) on workers goroutines and fails b on an error.
func parallel(b *testing.B, n, workers int, fn func(i int) error) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				if err := fn(i); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

func testingProcs() int { return runtime.GOMAXPROCS(0) }

// chunkPayload is a typical session.message.updated payload of one chunk.
var chunkPayload = []byte(`{"session_id":"s1","message_id":"a1","delta":"the quick brown fox ","seq":0}`)

const chunk = "the quick brown fox " // 20 bytes

// streamer appends chunks to one session as a streamed reply does: a
// message.added event creates the agent message, then every chunk appends
// to it; every 200 chunks a new reply starts (steady state).
type streamer struct {
	db      Store
	session string
	seq     int64
	msg     string
	n       int
}

func (s *streamer) step(ctx context.Context) error {
	s.seq++
	w := store.EventWrite{Event: store.Event{
		SessionID: s.session, Seq: s.seq, Type: "session.message.updated", Payload: chunkPayload,
		At: base.Add(time.Duration(s.seq)),
	}}
	if s.n%200 == 0 {
		s.msg = fmt.Sprintf("%s-m%d", s.session, s.seq)
		w.Event.Type = "session.message.added"
		w.UpsertMessage = &store.Message{ID: s.msg, Role: "agent"}
	} else {
		w.AppendText = &store.TextAppend{MessageID: s.msg, Delta: chunk}
	}
	s.n++
	return s.db.AppendEvent(ctx, w)
}
