package storetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// A streamed message reads whole at every point: before its chunks are
// sealed, after, and once replaced or deleted.
func testStreamedChunksReadWholeAndSeal(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	seed(t, db, "t2", "s2")
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "session.message.added", nil),
		UpsertMessage: &store.Message{ID: "a1", Role: "agent", Text: "0|"}}))
	var want strings.Builder
	want.WriteString("0|")
	for i := 2; i <= 300; i++ {
		d := strings.Repeat(string(rune('a'+i%26)), i)
		want.WriteString(d)
		require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", int64(i), "session.message.updated", nil),
			AppendText: &store.TextAppend{MessageID: "a1", Delta: d}}))
	}
	text := func(id string) string {
		t.Helper()
		m, err := db.GetMessage(ctx, id)
		require.NoError(t, err)
		return m.Text
	}
	require.Equal(t, want.String(), text("a1"))
	_, msgs, err := db.SessionSnapshot(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, want.String(), msgs[0].Text)
	require.Equal(t, at(300), msgs[0].UpdatedAt)

	err = db.AppendEvent(ctx, store.EventWrite{Event: event("s2", 1, "session.message.updated", nil),
		AppendText: &store.TextAppend{MessageID: "a1", Delta: "x"}})
	require.ErrorIs(t, err, store.ErrNotFound, "another session's message takes no chunks")

	require.NoError(t, db.SealMessages(ctx, "a1", "unknown"))
	require.Equal(t, want.String(), text("a1"), "sealing changes nothing a reader sees")
	require.NoError(t, db.SealMessages(ctx, "a1"), "sealing twice is harmless")
	require.Equal(t, want.String(), text("a1"))

	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 301, "session.message.updated", nil),
		AppendText: &store.TextAppend{MessageID: "a1", Delta: " more"}}))
	require.Equal(t, want.String()+" more", text("a1"))
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 302, "session.message.updated", nil),
		UpsertMessage: &store.Message{ID: "a1", Role: "agent", Text: "replaced"}}))
	require.Equal(t, "replaced", text("a1"), "a replace drops the chunks")

	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 303, "session.message.updated", nil),
		AppendText: &store.TextAppend{MessageID: "a1", Delta: "!"}}))
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s2", 1, "session.message.deleted", nil), DeleteMessage: "a1"}))
	require.Equal(t, "replaced!", text("a1"), "another session cannot delete it")
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 304, "session.message.deleted", nil), DeleteMessage: "a1"}))
	_, err = db.GetMessage(ctx, "a1")
	require.ErrorIs(t, err, store.ErrNotFound, "a delete takes the message and its chunks (the foreign key would refuse otherwise)")
}
