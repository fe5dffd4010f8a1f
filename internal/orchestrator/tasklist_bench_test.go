package orchestrator

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/orchestratord/orchestratord/internal/store"
)

// seedTasks stores n tasks with one session each, as task.create would.
func seedTasks(b *testing.B, svc *Service, n int) {
	b.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := base.Add(time.Duration(i) * time.Millisecond)
		id := fmt.Sprintf("t-%06d", i)
		if err := svc.store.CreateTask(context.Background(),
			store.Task{ID: id, Title: "task " + id, Agent: "mock", Workdir: "/w/" + id, State: store.TaskReview, CreatedAt: at, UpdatedAt: at},
			store.Session{ID: "s-" + id, TaskID: id, State: store.SessionWaitingForInput, CreatedAt: at, UpdatedAt: at}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTaskList5k: task.list with 5,000 tasks — the first page of 500
// (what the UI asks first), and every task in pages of 500.
func BenchmarkTaskList5k(b *testing.B) {
	svc := benchService(b, quartz.NewReal())
	defer func() { _ = svc.Close() }()
	seedTasks(b, svc, 5000)
	b.Run("first-page-500", func(b *testing.B) {
		for b.Loop() {
			p, err := svc.ListTasks(b.Context(), ListTasksRequest{Limit: 500})
			if err != nil || len(p.Tasks) != 500 || p.NextCursor == "" {
				b.Fatal(err, len(p.Tasks))
			}
		}
	})
	b.Run("all-5000-in-pages-of-500", func(b *testing.B) {
		for b.Loop() {
			n, cursor := 0, ""
			for {
				p, err := svc.ListTasks(b.Context(), ListTasksRequest{Limit: 500, Cursor: cursor})
				if err != nil {
					b.Fatal(err)
				}
				n += len(p.Tasks)
				if cursor = p.NextCursor; cursor == "" {
					break
				}
			}
			if n != 5000 {
				b.Fatalf("%d tasks", n)
			}
		}
	})
}
