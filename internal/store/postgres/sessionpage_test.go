package postgres_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// A relayed page's events are bounded as a replay's are: a reader far
// behind a long session gets them a bounded read at a time, each going on
// after the last one the reader has, until the last one is the session's
// LastSeq; an event larger than the bound comes alone; and the page's
// messages are the same whatever the bound.
func TestSessionPageAsOfBoundsItsEvents(t *testing.T) {
	ctx := t.Context()
	db, err := postgres.Open(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, db.CreateTask(ctx, store.Task{ID: "t1", Title: "t", Agent: "mock", Workdir: "/w", State: store.TaskTodo, CreatedAt: now, UpdatedAt: now},
		store.Session{ID: "s1", TaskID: "t1", State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}))
	m := store.Message{ID: "m1", Role: "agent", Text: "a long reply"}
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: ev("s1", 1, "session.message.added"), UpsertMessage: &m}))
	const n = 500
	delta := strings.Repeat("x", 100)
	for seq := int64(2); seq <= n; seq++ {
		e := ev("s1", seq, "session.message.updated")
		e.Payload = json.RawMessage(fmt.Sprintf(`{"session_id":"s1","seq":%d,"message_id":"m1","delta":%q}`, seq, delta))
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: e, AppendText: &store.TextAppend{MessageID: "m1", Delta: delta}}))
	}
	page := store.MessagePage{MaxSeq: -1, AfterSeq: -1, MaxBytes: 1 << 20}

	const bound = 4096
	after, reads := int64(0), 0
	for {
		pg, err := db.SessionPageAsOf(ctx, "s1", page, after, bound)
		require.NoError(t, err)
		reads++
		require.Equal(t, int64(n), pg.Session.LastSeq)
		require.Len(t, pg.Messages, 1)
		require.Len(t, pg.Messages[0].Text, len("a long reply")+(n-1)*len(delta), "the page is the session as of LastSeq")
		require.NotEmpty(t, pg.Events)
		size := 0
		for i, e := range pg.Events {
			require.Equal(t, after+int64(i)+1, e.Seq, "in order, none skipped")
			size += len(e.Payload) + 64
		}
		require.LessOrEqual(t, size, bound, "read %d", reads)
		after = pg.Events[len(pg.Events)-1].Seq
		if after == pg.Session.LastSeq {
			break
		}
		require.Less(t, reads, n, "no progress")
	}
	t.Logf("%d events of ~%d bytes read in %d reads of at most %d bytes", n, 100+64+60, reads, bound)
	require.Greater(t, reads, 10)

	// Up to date: no events. One event larger than the bound: alone.
	pg, err := db.SessionPageAsOf(ctx, "s1", page, n, bound)
	require.NoError(t, err)
	require.Empty(t, pg.Events)
	pg, err = db.SessionPageAsOf(ctx, "s1", page, n-3, 10)
	require.NoError(t, err)
	require.Len(t, pg.Events, 1)
	require.Equal(t, int64(n-2), pg.Events[0].Seq)

	// No events asked for: no bound needed; events without one: refused.
	pg, err = db.SessionPageAsOf(ctx, "s1", page, -1, 0)
	require.NoError(t, err)
	require.Empty(t, pg.Events)
	_, err = db.SessionPageAsOf(ctx, "s1", page, 0, 0)
	require.ErrorIs(t, err, store.ErrInvalid)
}
