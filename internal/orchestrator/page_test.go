package orchestrator

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// TestLargeSnapshotComesInPagesInOrderWithLiveEvents: a snapshot larger
// than a page comes as a first page and session.page notifications, each in
// order with the live events, so a client that folds them like the web UI
// ends with exactly the store's messages, even while a turn streams.
func TestLargeSnapshotComesInPagesInOrderWithLiveEvents(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SnapshotPageBytes = 600 })
	v, f := h.create("first prompt", nil)
	sid := v.Sessions[0].ID
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput))
	for i := range 4 {
		require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: fmt.Sprintf("prompt %d with some words to echo", i)}))
		f.until(isTurnDone)
		f.until(isState(store.SessionWaitingForInput))
	}
	res, sub, err := h.svc.SubscribeSession(h.ctx, SubscribeRequest{SessionID: sid}, 100000)
	require.NoError(t, err)
	defer sub.Close()
	require.Equal(t, "snapshot", res.Mode)
	require.NotEmpty(t, res.NextCursor, "10 messages do not fit a 600-byte page")
	require.Less(t, len(res.Messages), 10)

	msgs := map[string]store.Message{}
	for _, m := range res.Messages {
		msgs[m.ID] = m
	}
	// A new turn streams while the client pages.
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "/slow:300 streaming meanwhile"}))
	cursor, pages, done := res.NextCursor, 1, false
	require.NoError(t, h.svc.SnapshotPage(h.ctx, PageRequest{SessionID: sid, Cursor: cursor}, sub))
	deadline := time.After(waitLong)
	for !done || cursor != "" {
		select {
		case n := <-sub.C():
			switch n.Action {
			case "session.page":
				var p Page
				require.NoError(t, json.Unmarshal(n.Payload, &p))
				pages++
				for _, m := range p.Messages {
					msgs[m.ID] = m
				}
				if cursor = p.NextCursor; cursor != "" {
					require.NoError(t, h.svc.SnapshotPage(h.ctx, PageRequest{SessionID: sid, Cursor: cursor}, sub))
				}
			default:
				x := decode(n)
				switch {
				case x.Action == "session.message.deleted":
					delete(msgs, x.MessageID)
				case x.Message != nil:
					msgs[x.Message.ID] = *x.Message
				case x.MessageID != "":
					if m, ok := msgs[x.MessageID]; ok {
						m.Text += x.Delta
						msgs[x.MessageID] = m
					}
				case x.Action == "session.state_changed" && x.State == store.SessionWaitingForInput:
					done = true
				}
			}
		case <-deadline:
			t.Fatal("timed out paging")
		}
	}
	assert.GreaterOrEqual(t, pages, 3)
	want := h.messages(sid)
	require.Len(t, msgs, len(want))
	for _, m := range want {
		assert.Equal(t, m.Text, msgs[m.ID].Text, "message %s (%s)", m.ID, m.Role)
	}

	// A page for a subscription of another session, or a made-up cursor, is refused.
	errIs(t, h.svc.SnapshotPage(h.ctx, PageRequest{SessionID: sid, Cursor: "x"}, sub), ErrValidation)
	other := newSubscription(1)
	errIs(t, h.svc.SnapshotPage(h.ctx, PageRequest{SessionID: sid, Cursor: res.NextCursor}, other), ErrConflict)
}

// TestReplayTooLargeBecomesSnapshot: a reconnect far behind in bytes gets
// a (paged) snapshot instead of one huge replay.
func TestReplayTooLargeBecomesSnapshot(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SnapshotPageBytes = 200 })
	v, f := h.create("a prompt that is echoed back in a few chunks", nil)
	f.until(isTurnDone)
	zero := int64(0)
	res, sub, err := h.svc.SubscribeSession(h.ctx, SubscribeRequest{SessionID: v.Sessions[0].ID, AfterSeq: &zero}, 10)
	require.NoError(t, err)
	sub.Close()
	assert.Equal(t, "snapshot", res.Mode)
	assert.Empty(t, res.Events)
}
