package storetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// TestDeleteMessageScrubsTheLog: a message deleted from the chat (an
// agent's echoed error line holding a key) is gone from a replay from seq
// 0 too, while every other event keeps its text and the log its seqs.
func testDeleteMessageScrubsTheLog(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	const leak = "API Error: 401 key sk-ant-LEAKED"
	echo := store.Message{ID: "echo", Role: "agent", Text: "API Error: "}
	keep := store.Message{ID: "keep", Role: "agent", Text: "kept text"}
	// An id JSON escapes ("<" is \u003c in an event's payload) is found too.
	notice := store.Message{ID: "n<1>", Role: "status", Text: "Provider rejected the key", Metadata: map[string]any{"excerpt": leak}}
	writes := []store.EventWrite{
		{Event: event("s1", 1, "session.message.added", map[string]any{"message": keep}), UpsertMessage: &keep},
		{Event: event("s1", 2, "session.message.added", map[string]any{"message": echo}), UpsertMessage: &echo},
		{Event: event("s1", 3, "session.message.updated", map[string]any{"message_id": "echo", "delta": "401 key sk-ant-LEAKED"}),
			AppendText: &store.TextAppend{MessageID: "echo", Delta: "401 key sk-ant-LEAKED"}},
		{Event: event("s1", 4, "session.message.updated", map[string]any{"message_id": "keep", "delta": " and more"}),
			AppendText: &store.TextAppend{MessageID: "keep", Delta: " and more"}},
		{Event: event("s1", 5, "session.message.added", map[string]any{"message": notice}), UpsertMessage: &notice},
		{Event: event("s1", 6, "session.message.updated", map[string]any{"message": notice}), UpsertMessage: &notice},
		{Event: event("s1", 7, "session.message.deleted", map[string]any{"message_id": "echo"}), DeleteMessage: "echo"},
		{Event: event("s1", 8, "session.message.deleted", map[string]any{"message_id": "n<1>"}), DeleteMessage: "n<1>"},
	}
	for _, w := range writes {
		require.NoError(t, db.AppendEvent(ctx, w))
	}
	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, len(writes))
	var all strings.Builder
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
		require.Equal(t, writes[i].Event.Type, e.Type)
		all.Write(e.Payload)
	}
	require.NotContains(t, all.String(), "LEAKED")
	require.NotContains(t, all.String(), "API Error")
	require.NotContains(t, all.String(), "Provider rejected")
	require.Contains(t, all.String(), "kept text")
	require.Contains(t, all.String(), " and more")
	require.Contains(t, string(evs[1].Payload), `"id":"echo"`, "the event still says which message it was")
}
