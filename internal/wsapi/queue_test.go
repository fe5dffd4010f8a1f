package wsapi

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// TestNonReadingClientAskingForBigSnapshotsIsBoundedInBytes: a client that
// never reads and asks again and again for the snapshot of a big session
// holds at most MaxQueueBytes (plus one frame) of the daemon's memory, then
// is closed with 1008 to resume with after_seq.
func TestNonReadingClientAskingForBigSnapshotsIsBoundedInBytes(t *testing.T) {
	t.Parallel()
	const snapshot = 1 << 20 // each answer is a 1 MiB frame
	const bound = 4 << 20
	var stall atomic.Bool
	release := make(chan struct{})
	var releaseOnce sync.Once
	env := newTestEnv(t, func(c *Config) { c.MaxQueueBytes = bound })
	env.svc.snapshotText = snapshot
	env.srv.beforeWrite = func() {
		if stall.Load() {
			<-release // a client whose socket does not drain
		}
	}
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	c := env.dial(t)
	stall.Store(true)
	for i := range 40 {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprint("s", i), "type": "request", "action": ActionSessionSubscribe,
			"payload": map[string]any{"session_id": "s1"}})
		if err := c.ws.Write(t.Context(), websocket.MessageText, b); err != nil {
			break // closed already
		}
	}
	// The daemon gives up on the client (its subscriptions end) while the
	// client still reads nothing.
	require.Eventually(t, func() bool {
		for _, f := range env.svc.allFeeds() {
			if !f.closed() {
				return false
			}
		}
		return true
	}, 20*time.Second, 5*time.Millisecond)
	releaseOnce.Do(func() { close(release) })
	ce := c.expectCloseWithin(DefaultWriteTimeout + 5*time.Second)
	require.Equal(t, websocket.StatusPolicyViolation, ce.Code)
	peak := env.srv.queuePeak.Load()
	t.Logf("peak queued: %.1f MiB for 40 requests of a %d MiB snapshot", float64(peak)/(1<<20), snapshot>>20)
	require.LessOrEqual(t, peak, int64(bound+snapshot+4096), "queued bytes stay within the bound")
}

// TestSessionPageArrivesThroughTheFeed: session.page answers, and the page
// itself comes as a session.page notification of the subscription.
func TestSessionPageArrivesThroughTheFeed(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	env.svc.pageSize = 10
	c := env.dial(t)
	env2 := c.call(ActionSessionPage, map[string]any{"session_id": "s1", "cursor": "3:1:m1"})
	c.errorOf(env2, CodeConflict) // not subscribed yet
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s1"}), nil)
	// The page goes into the subscription's feed, so it may overtake the
	// request's response (the UI acts on the notification alone).
	c.writeText(`{"id":"page","type":"request","action":"session.page","payload":{"session_id":"s1","cursor":"3:1:m1"}}`)
	var n Envelope
	answered := false
	for range 2 {
		env := c.read()
		if env.ID == "page" {
			c.ok(env, nil)
			answered = true
			continue
		}
		n = env
	}
	require.True(t, answered, "the session.page request is answered")
	require.Equal(t, TypeNotification, n.Type)
	require.Equal(t, "session.page", n.Action)
	var p orchestrator.Page
	require.NoError(t, json.Unmarshal(n.Payload, &p))
	require.Len(t, p.Messages, 1)
	require.Equal(t, "xxxxxxxxxx", p.Messages[0].Text)
	c.errorOf(c.call(ActionSessionPage, map[string]any{"session_id": "s1"}), CodeValidationError)
}
