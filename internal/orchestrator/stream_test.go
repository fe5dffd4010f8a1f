package orchestrator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
)

// The mock agent streams 20,000 chunks back to back, faster than the ACP
// SDK decodes them on a loaded machine (before the paced reader, the SDK's
// 1,024-entry queue overflowed and the turn failed as transport_lost every
// time). The reply arrives whole, in order, in few coalesced updates, and
// the store holds exactly what subscribers were shown.
func TestFastStreamArrivesWholeInOrderAndPersisted(t *testing.T) {
	const chunks, size = 20_000, 400_000
	r := newStreamRig(t)
	got := r.prompt("/stream:20000:400000 go")
	want := mockagent.StreamReply(chunks, size)
	require.Equal(t, "end_turn", got.stopReason, "no transport_lost, no retry")
	require.Equal(t, len(want), len(got.text))
	require.True(t, got.text == want, "every chunk, in order")
	// One update per flush (25ms) at most: far fewer than chunks, however
	// slowly a loaded machine (or the race detector) streams them.
	assert.Less(t, got.notes, chunks/4, "chunks are coalesced into few events")

	msgs, err := r.db.ListMessages(r.ctx, r.sid)
	require.NoError(t, err)
	agent := byRole(msgs, "agent")
	require.Len(t, agent, 2) // "hello" and this reply
	assert.True(t, agent[1].Text == want, "the stored reply is the streamed one")
	assert.Empty(t, byRole(msgs, "status"), "no retry notice, no banner")

	// A client replaying the log from before the turn rebuilds the same text.
	evs, err := r.db.ListEvents(r.ctx, r.sid, 0, 0)
	require.NoError(t, err)
	var replayed strings.Builder
	for _, e := range evs {
		x := decode(Notification{Action: e.Type, Payload: e.Payload})
		switch {
		case x.Action == "session.message.added" && x.Message != nil && x.Message.ID == agent[1].ID:
			replayed.WriteString(x.Message.Text)
		case x.Action == "session.message.updated" && x.MessageID == agent[1].ID:
			replayed.WriteString(x.Delta)
		}
	}
	assert.True(t, replayed.String() == want, "the event log replays the reply")
}

// What a subscriber is shown is already in the store: a crash after any
// update loses nothing the user saw.
func TestStreamedUpdatesArePersistedBeforeTheyAreShown(t *testing.T) {
	r := newStreamRig(t)
	after := r.next
	_, sub, err := r.svc.SubscribeSession(r.ctx, SubscribeRequest{SessionID: r.sid, AfterSeq: &after}, 1<<14)
	require.NoError(t, err)
	defer sub.Close()
	require.NoError(t, r.svc.Prompt(r.ctx, PromptRequest{SessionID: r.sid, Text: "/slow:600 take your time"}))
	var shown strings.Builder
	var id string
	checks := 0
	for n := range sub.C() {
		x := decode(n)
		switch {
		case x.Action == "session.message.added" && x.Message != nil && x.Message.Role == "agent":
			id = x.Message.ID
			shown.WriteString(x.Message.Text)
		case x.Action == "session.message.updated" && x.MessageID == id && id != "":
			shown.WriteString(x.Delta)
		case x.Action == "session.turn.completed":
			require.Equal(t, "end_turn", x.StopReason)
			assert.Greater(t, checks, 1, "the reply streamed in several updates")
			return
		default:
			continue
		}
		m, err := r.db.GetMessage(r.ctx, id)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(m.Text, shown.String()), "stored %q, shown %q", m.Text, shown.String())
		checks++
	}
}
