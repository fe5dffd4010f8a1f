package fleet

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// chat is a client's copy of a session's messages, kept as the page
// (web/session.js) keeps it: a snapshot, pages that replace the messages
// they carry, events after the snapshot's last seq applied once.
type chat struct {
	t       testing.TB
	text    map[string]string
	lastSeq int64
	cursor  string
	seqs    []int64 // the events applied, in order
}

func (c *chat) apply(action string, payload json.RawMessage) {
	var p struct {
		Seq        int64                `json:"seq"`
		MessageID  string               `json:"message_id"`
		Delta      string               `json:"delta"`
		Message    *daemontest.Message  `json:"message"`
		Messages   []daemontest.Message `json:"messages"`
		NextCursor string               `json:"next_cursor"`
	}
	require.NoError(c.t, json.Unmarshal(payload, &p))
	if action == "session.page" {
		for _, m := range p.Messages {
			c.text[m.ID] = m.Text
		}
		c.cursor = p.NextCursor
		return
	}
	if p.Seq <= c.lastSeq {
		return
	}
	c.lastSeq = p.Seq
	c.seqs = append(c.seqs, p.Seq)
	switch {
	case action == "session.message.deleted":
		delete(c.text, p.MessageID)
	case p.Message != nil:
		c.text[p.Message.ID] = p.Message.Text
	case action == "session.message.updated" && p.MessageID != "":
		c.text[p.MessageID] += p.Delta
	}
}

// A client on A subscribing to a large session B runs gets its snapshot a
// page at a time, as from B itself, while B streams more into it: each
// page in order with the live events, so the client's copy ends up as the
// store has it, every event applied once, none missing.
func TestARelayedSnapshotIsPaged(t *testing.T) {
	f := Start(t, Options{N: 2})
	a, b := f.Dial(t, 0), f.Dial(t, 1)
	onB := Task(t, b, "/stream:40:200000 a long reply", nil)
	onB.Until(60*time.Second, daemontest.TurnEnded)
	for range 2 {
		b.Call("session.prompt", map[string]any{"session_id": onB.ID, "text": "/stream:40:200000 another"})
		onB.Until(60*time.Second, daemontest.TurnEnded)
	}
	require.Equal(t, f.D(1).ID, f.holder(t, onB.ID))
	b.Call("session.prompt", map[string]any{"session_id": onB.ID, "text": "/slow:3000 streaming while A pages"})
	onB.Until(30*time.Second, isDelta) // B is streaming now

	var res struct {
		daemontest.SubscribeResult
		Messages []daemontest.Message `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(a.Call("session.subscribe", map[string]any{"session_id": onB.ID}), &res))
	require.Equal(t, "snapshot", res.Mode)
	require.NotEmpty(t, res.NextCursor, "a 600 KB session is more than one page")
	c := &chat{t: t, text: map[string]string{}, lastSeq: res.LastSeq, cursor: res.NextCursor}
	for _, m := range res.Messages {
		c.text[m.ID] = m.Text
	}
	pages := 1
	ended := false
	for c.cursor != "" || !ended {
		if c.cursor != "" {
			a.Call("session.page", map[string]any{"session_id": onB.ID, "cursor": c.cursor})
		}
		for {
			n := a.WaitNote(30*time.Second, func(e daemontest.Envelope) bool { return e.Action != "task.updated" })
			c.apply(n.Action, n.Payload)
			if n.Action == "session.page" {
				pages++
				break
			}
			var body daemontest.EventBody
			_ = json.Unmarshal(n.Payload, &body)
			if n.Action == "session.turn.completed" && body.StopReason == "end_turn" {
				ended = true
				if c.cursor == "" {
					break
				}
			}
		}
	}
	t.Logf("A's client read B's session in %d pages, %d live events in between", pages, len(c.seqs))
	assert.GreaterOrEqual(t, pages, 2)
	for i, s := range c.seqs {
		require.Equal(t, res.LastSeq+int64(i)+1, s, "every event after the snapshot once, in order")
	}

	want := map[string]string{}
	rows, err := f.Pool.Query(t.Context(), `SELECT m.id, m.text || coalesce((SELECT string_agg(c.text, '' ORDER BY c.seq)
		FROM message_chunks c WHERE c.message_id = m.id), '') FROM messages m WHERE m.session_id = $1`, onB.ID)
	require.NoError(t, err)
	for rows.Next() {
		var id, text string
		require.NoError(t, rows.Scan(&id, &text))
		want[id] = text
	}
	require.NoError(t, rows.Err())
	require.Equal(t, len(want), len(c.text), "the client has every message")
	for id, text := range want {
		if c.text[id] != text {
			t.Errorf("message %s: the client has %d bytes, the store %d", id, len(c.text[id]), len(text))
		}
	}
}
