package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// A session read a page at a time: every message exactly once, in chat
// order, each page within its byte budget (at least one message, however
// large), none after MaxSeq; events up to a byte budget, complete only
// when nothing was left out.
func testPagesWalkInOrderWithinBudget(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	seq := int64(0)
	for i := range 12 {
		text := strings.Repeat("x", 100*(i%4))
		if i == 5 {
			text = strings.Repeat("big ", 2000) // larger than a page
		}
		seq++
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", seq, "session.message.added", map[string]int{"i": i}),
			UpsertMessage: &store.Message{ID: fmt.Sprintf("m%02d", i), Role: "agent", Text: text}}))
		if i%3 == 0 { // streamed on: chunks count in the text
			seq++
			require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", seq, "session.message.updated", nil),
				AppendText: &store.TextAppend{MessageID: fmt.Sprintf("m%02d", i), Delta: "+more"}}))
		}
	}
	all, err := db.ListMessages(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, all, 12)

	var got []store.Message
	p := store.MessagePage{MaxSeq: seq, AfterSeq: -1, MaxBytes: 1500}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20, "paging must end")
		page, more, err := db.ListMessagesPage(ctx, "s1", p)
		require.NoError(t, err)
		require.NotEmpty(t, page)
		size := 0
		for _, m := range page[:len(page)-1] {
			size += store.MessageBytes(m)
		}
		require.Less(t, size, p.MaxBytes, "a page stops once its budget is reached")
		got = append(got, page...)
		if !more {
			break
		}
		last := page[len(page)-1]
		p.AfterSeq, p.AfterID = last.Seq, last.ID
	}
	require.Equal(t, all, got)

	// Nothing after MaxSeq.
	page, more, err := db.ListMessagesPage(ctx, "s1", store.MessagePage{MaxSeq: 3, AfterSeq: -1, MaxBytes: 1 << 20})
	require.NoError(t, err)
	require.False(t, more)
	require.Len(t, page, 2)
	require.Equal(t, []string{"m00", "m01"}, []string{page[0].ID, page[1].ID})

	evs, complete, err := db.ListEventsUpTo(ctx, "s1", 0, 1<<20)
	require.NoError(t, err)
	require.True(t, complete)
	require.Len(t, evs, int(seq))
	want, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Equal(t, want, evs)

	evs, complete, err = db.ListEventsUpTo(ctx, "s1", 2, 300)
	require.NoError(t, err)
	require.False(t, complete)
	require.NotEmpty(t, evs)
	require.Less(t, len(evs), int(seq)-2)
	require.Equal(t, want[2:2+len(evs)], evs)
}
