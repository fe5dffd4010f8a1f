package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// pgRelay reads pages from PostgreSQL, as cmd/orchestratord's relay does,
// and records each read's events; its watch never delivers: the relay of
// a session written faster than its wake-ups come.
type pgRelay struct {
	db    *postgres.DB
	mu    sync.Mutex // guards reads
	reads [][]store.Event
}

func (r *pgRelay) SessionPageAsOf(ctx context.Context, id string, p store.MessagePage, eventsAfter int64, eventsMaxBytes int) (store.PageAsOf, error) {
	pg, err := r.db.SessionPageAsOf(ctx, id, p, eventsAfter, eventsMaxBytes)
	if err == nil && eventsAfter >= 0 {
		r.mu.Lock()
		r.reads = append(r.reads, pg.Events)
		r.mu.Unlock()
	}
	return pg, err
}

func (r *pgRelay) Watch(string, int64, func(store.Event) bool) func() { return func() {} }
func (r *pgRelay) Marks(context.Context, []string) map[string]Marks   { return nil }

func (r *pgRelay) takeReads() [][]store.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reads
	r.reads = nil
	return out
}

// A long session another daemon writes is paged on with each read's
// catch-up bounded as a replay is (four pages): a page whose catch-up is
// longer is read again after the events the last read put into the feed,
// the page coming after all of them, each once, in order; the next page
// goes on from its cursor; a subscriber that is still behind after
// pageReads reads is cut, as a full buffer cuts it, and gets no page.
func TestRemotePageBoundsItsCatchUpAndPagesOn(t *testing.T) {
	const pageBytes = 1000
	fh := newFleetHarness(t, 1, func(c *Config) { c.SnapshotPageBytes = pageBytes })
	h, db := fh.nodes[0].h, fh.db
	ctx := h.ctx
	now := h.clock.Now()
	require.NoError(t, db.CreateTask(ctx, store.Task{ID: "t-far", Title: "elsewhere", Agent: "mock", Workdir: "/w", State: store.TaskInProgress, CreatedAt: now, UpdatedAt: now},
		store.Session{ID: "s-far", TaskID: "t-far", State: store.SessionRunning, CreatedAt: now, UpdatedAt: now}))
	seq := int64(0)
	write := func(w store.EventWrite) { // as the session's owner, another daemon, writes
		t.Helper()
		seq++
		w.Event.SessionID, w.Event.Seq, w.Event.At = "s-far", seq, now
		require.NoError(t, db.AppendEvent(ctx, w))
	}
	for i := range 6 {
		m := store.Message{ID: fmt.Sprintf("m%d", i), Role: "agent", Text: strings.Repeat("y", 600)}
		payload, err := json.Marshal(map[string]any{"session_id": "s-far", "seq": seq + 1, "message": m})
		require.NoError(t, err)
		write(store.EventWrite{Event: store.Event{Type: "session.message.added", Payload: payload}, UpsertMessage: &m})
	}
	stream := func(k int) {
		t.Helper()
		for range k {
			d := strings.Repeat("z", 100)
			write(store.EventWrite{Event: store.Event{Type: "session.message.updated",
				Payload: json.RawMessage(fmt.Sprintf(`{"session_id":"s-far","seq":%d,"message_id":"m5","delta":%q}`, seq+1, d))},
				AppendText: &store.TextAppend{MessageID: "m5", Delta: d}})
		}
	}

	r := &pgRelay{db: db}
	res, sub, err := h.svc.SubscribeRemote(ctx, SubscribeRequest{SessionID: "s-far"}, 4096, r)
	require.NoError(t, err)
	defer sub.Close()
	require.Equal(t, "snapshot", res.Mode)
	require.NotEmpty(t, res.NextCursor, "six 600-byte messages are more than a 1000-byte page")
	delivered := res.LastSeq
	// feed reads the feed up to the next page; nil when the feed was cut.
	feed := func() *Page {
		t.Helper()
		for {
			select {
			case n := <-sub.C():
				if n.Action == "session.page" {
					var p Page
					require.NoError(t, json.Unmarshal(n.Payload, &p))
					return &p
				}
				require.Equal(t, delivered+1, n.Seq, "every event once, in order")
				delivered = n.Seq
			case <-sub.Overflowed():
				return nil
			case <-time.After(waitLong):
				t.Fatalf("the feed stopped after seq %d", delivered)
			}
		}
	}
	bounded := func(reads [][]store.Event) {
		t.Helper()
		for i, evs := range reads {
			size := 0
			for _, e := range evs {
				size += len(e.Payload) + 64
			}
			require.LessOrEqual(t, size, 4*pageBytes, "read %d of %d", i+1, len(reads))
		}
	}

	// The owner streamed on while no wake-up came: about three reads' worth.
	stream(50)
	require.NoError(t, h.svc.SnapshotPage(ctx, PageRequest{SessionID: "s-far", Cursor: res.NextCursor}, sub))
	p := feed()
	require.NotNil(t, p, "not cut")
	reads := r.takeReads()
	bounded(reads)
	require.Greater(t, len(reads), 1, "the catch-up took more than one bounded read")
	require.LessOrEqual(t, len(reads), pageReads)
	require.Equal(t, seq, delivered, "the events up to the page, before it")
	require.Equal(t, seq, p.AsOfSeq)
	require.NotEmpty(t, p.Messages)
	require.NotEmpty(t, p.NextCursor)

	// Up to date: the next page in one read, going on after this one.
	first := p.Messages[0]
	prev := p.Messages[len(p.Messages)-1]
	require.NoError(t, h.svc.SnapshotPage(ctx, PageRequest{SessionID: "s-far", Cursor: p.NextCursor}, sub))
	p = feed()
	require.NotNil(t, p)
	require.Len(t, r.takeReads(), 1)
	require.NotEmpty(t, p.Messages)
	require.Greater(t, p.Messages[0].Seq, prev.Seq, "the next page goes on after the last")
	require.NotEqual(t, first.ID, p.Messages[0].ID)

	// Further behind than pageReads bounded reads: cut, no page.
	stream(200)
	cursor := p.NextCursor
	if cursor == "" {
		cursor = res.NextCursor
	}
	require.NoError(t, h.svc.SnapshotPage(ctx, PageRequest{SessionID: "s-far", Cursor: cursor}, sub))
	require.Nil(t, feed(), "cut: it subscribes again with its after_seq")
	reads = r.takeReads()
	bounded(reads)
	require.Len(t, reads, pageReads)
}
