package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Eight goroutines stream into eight sessions at once while readers take
// snapshots: every write succeeds (no SQLITE_BUSY), every log is complete
// and in order, and every snapshot is consistent with its LastSeq.
func testConcurrentAppendEventAcrossSessions(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	const sessions, chunks = 8, 80
	for i := range sessions {
		seed(t, db, fmt.Sprintf("t%d", i), fmt.Sprintf("s%d", i))
	}
	// chunk n of a session's reply; the text after seq L is chunk(2)…chunk(L).
	chunk := func(n int64) string { return fmt.Sprintf("<%d>", n) }
	textUpTo := func(last int64) string {
		var b strings.Builder
		for n := int64(2); n <= last; n++ {
			b.WriteString(chunk(n))
		}
		return b.String()
	}

	var writers, readers sync.WaitGroup
	var done atomic.Bool
	errs := make(chan error, sessions+2)
	for i := range sessions {
		sessID := fmt.Sprintf("s%d", i)
		writers.Go(func() {
			if err := db.AppendEvent(ctx, store.EventWrite{
				Event:         event(sessID, 1, "session.message.added", nil),
				UpsertMessage: &store.Message{ID: "a-" + sessID, Role: "agent"},
			}); err != nil {
				errs <- err
				return
			}
			for seq := int64(2); seq <= chunks; seq++ {
				if err := db.AppendEvent(ctx, store.EventWrite{
					Event:      event(sessID, seq, "session.message.updated", map[string]string{"delta": chunk(seq)}),
					AppendText: &store.TextAppend{MessageID: "a-" + sessID, Delta: chunk(seq)},
				}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for r := range 2 {
		readers.Go(func() {
			for n := 0; !done.Load(); n++ {
				sessID := fmt.Sprintf("s%d", (n+r)%sessions)
				sess, msgs, err := db.SessionSnapshot(ctx, sessID)
				if err != nil {
					errs <- err
					return
				}
				if sess.LastSeq == 0 {
					continue
				}
				if len(msgs) != 1 || msgs[0].Text != textUpTo(sess.LastSeq) {
					errs <- fmt.Errorf("snapshot of %s at seq %d is inconsistent: %+v", sessID, sess.LastSeq, msgs)
					return
				}
			}
		})
	}
	writers.Wait()
	done.Store(true)
	readers.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	for i := range sessions {
		sessID := fmt.Sprintf("s%d", i)
		s, err := db.GetSession(ctx, sessID)
		require.NoError(t, err)
		require.Equal(t, int64(chunks), s.LastSeq)
		evs, err := db.ListEvents(ctx, sessID, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, chunks)
		for j, e := range evs {
			require.Equal(t, int64(j+1), e.Seq)
		}
		msgs, err := db.ListMessages(ctx, sessID)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		require.Equal(t, textUpTo(chunks), msgs[0].Text)
	}
}

// Writers racing for the same session's next seq: exactly one wins each
// seq, the losers get ErrSeqConflict, and the log has no gap or duplicate.
func testConcurrentAppendEventSameSession(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event:         event("s1", 1, "session.message.added", nil),
		UpsertMessage: &store.Message{ID: "m", Role: "agent"},
	}))
	const goroutines, target = 8, 120

	var wg sync.WaitGroup
	var wins, conflicts atomic.Int64
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for {
				s, err := db.GetSession(ctx, "s1")
				if err != nil {
					errs <- err
					return
				}
				if s.LastSeq >= target {
					return
				}
				err = db.AppendEvent(ctx, store.EventWrite{
					Event:      event("s1", s.LastSeq+1, "session.message.updated", map[string]int{"g": g}),
					AppendText: &store.TextAppend{MessageID: "m", Delta: "x"},
				})
				switch {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, store.ErrSeqConflict):
					conflicts.Add(1)
				default:
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, int64(target-1), wins.Load())
	t.Logf("%d wins, %d seq conflicts", wins.Load(), conflicts.Load())

	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, target)
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
	}
	m, err := db.GetMessage(ctx, "m")
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("x", target-1), m.Text, "one append per winning event, none from a loser")
}

// A timer firing, a late timer of the same attempt, and a cancel all race
// for one pending retry: exactly one claim succeeds.
func testClaimPendingRetryExactlyOnce(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	const sessions, claimers = 10, 16
	for i := range sessions {
		taskID, sessID := fmt.Sprintf("t%d", i), fmt.Sprintf("s%d", i)
		seed(t, db, taskID, sessID)
		require.NoError(t, db.SavePendingRetry(ctx, store.PendingRetry{
			SessionID: sessID, TaskID: taskID, Generation: 2, Attempt: 3, MaxAttempts: 3, RetryAt: at(i),
		}))
	}

	var wg sync.WaitGroup
	var claimed [sessions]atomic.Int64
	errs := make(chan error, sessions*claimers)
	for i := range sessions {
		for range claimers {
			wg.Go(func() {
				ok, err := db.ClaimPendingRetry(ctx, fmt.Sprintf("s%d", i), 2, 3)
				if err != nil {
					errs <- err
					return
				}
				if ok {
					claimed[i].Add(1)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for i := range sessions {
		require.Equal(t, int64(1), claimed[i].Load(), "session s%d", i)
	}
	list, err := db.ListPendingRetries(ctx)
	require.NoError(t, err)
	for _, r := range list {
		require.Equal(t, store.RetryDispatching, r.State)
	}
}
