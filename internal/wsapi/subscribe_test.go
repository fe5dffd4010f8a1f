package wsapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

func sessionEvent(seq int64) orchestrator.Notification {
	return orchestrator.Notification{
		Action:  "session.message.updated",
		Seq:     seq,
		Payload: json.RawMessage(fmt.Sprintf(`{"session_id":"s1","seq":%d,"message_id":"m2","delta":"chunk %d "}`, seq, seq)),
		At:      time.Date(2025, 1, 2, 3, 4, 5, int(seq), time.UTC),
	}
}

func TestSubscribeDeliversResultThenEventsInOrder(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	c := env.dial(t)

	var res orchestrator.SubscribeResult
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"task_id": "t1", "session_id": "s1"}), &res)
	require.Equal(t, "s1", res.Session.ID)
	require.EqualValues(t, 3, res.LastSeq)
	require.Len(t, res.Messages, 1, "snapshot without after_seq")

	f := env.svc.sessionFeed(t, "s1", 0)
	for seq := int64(4); seq < 104; seq++ {
		f.publish(sessionEvent(seq))
	}
	for seq := int64(4); seq < 104; seq++ {
		n := c.read()
		require.Equal(t, TypeNotification, n.Type)
		require.Empty(t, n.ID)
		require.Equal(t, "session.message.updated", n.Action)
		var p struct {
			Seq   int64  `json:"seq"`
			Delta string `json:"delta"`
		}
		require.NoError(t, json.Unmarshal(n.Payload, &p))
		require.Equal(t, seq, p.Seq)
		require.Equal(t, fmt.Sprintf("chunk %d ", seq), p.Delta)
		require.True(t, sessionEvent(seq).At.Equal(n.TS), "ts is the event's time")
	}

	// after_seq is passed through: a replay, not a snapshot.
	var replay orchestrator.SubscribeResult
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s1", "after_seq": 103}), &replay)
	require.Empty(t, replay.Messages)
	require.True(t, f.closed(), "re-subscribing replaces the old subscription")
	f2 := env.svc.sessionFeed(t, "s1", 1)
	f.publish(sessionEvent(999)) // the old feed is gone: never delivered
	f2.publish(sessionEvent(104))
	n := c.read()
	require.Contains(t, string(n.Payload), `"seq":104`)

	var un struct {
		SessionID    string `json:"session_id"`
		Unsubscribed bool   `json:"unsubscribed"`
	}
	c.ok(c.call(ActionSessionUnsubscribe, map[string]any{"session_id": "s1"}), &un)
	require.True(t, un.Unsubscribed)
	require.True(t, f2.closed())
	c.ok(c.call(ActionSessionUnsubscribe, map[string]any{"session_id": "s1"}), &un)
	require.False(t, un.Unsubscribed)
	c.healthy() // nothing from s1 arrived in between
}

func TestTaskAndGateUpdatesReachEveryConnection(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	a, b := env.dial(t), env.dial(t)
	a.healthy()
	b.healthy() // both connections are set up, so both task feeds exist

	env.svc.mu.Lock()
	feeds := append([]*fakeFeed(nil), env.svc.taskFeeds...)
	env.svc.mu.Unlock()
	require.Len(t, feeds, 2)
	for _, f := range feeds {
		f.publish(orchestrator.Notification{Action: "task.updated", Payload: json.RawMessage(`{"task":{"id":"t1","state":"REVIEW"}}`)})
		f.publish(orchestrator.Notification{Action: "gate.updated", Payload: json.RawMessage(`{"gate":{"key":"mock","state":"open","waiting":3}}`)})
	}
	for _, c := range []*client{a, b} {
		n := c.read()
		require.Equal(t, TypeNotification, n.Type)
		require.Equal(t, "task.updated", n.Action)
		require.JSONEq(t, `{"task":{"id":"t1","state":"REVIEW"}}`, string(n.Payload))
		n = c.read()
		require.Equal(t, "gate.updated", n.Action, "gate changes reach every connection too")
		require.JSONEq(t, `{"gate":{"key":"mock","state":"open","waiting":3}}`, string(n.Payload))
	}
}

func TestOverflowedSubscriptionClosesWithPolicyViolation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	c := env.dial(t)
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s1"}), nil)

	f := env.svc.sessionFeed(t, "s1", 0)
	f.cut() // the orchestrator gave up on this subscriber
	ce := c.expectClose()
	require.Equal(t, websocket.StatusPolicyViolation, ce.Code)
	require.Contains(t, ce.Reason, "after_seq")
	require.Eventually(t, func() bool {
		for _, f := range env.svc.allFeeds() {
			if !f.closed() {
				return false
			}
		}
		return true
	}, 5*time.Second, time.Millisecond, "every subscription of the connection is released")
}

func TestSlowClientQueueOverflowClosesWithPolicyViolation(t *testing.T) {
	t.Parallel()
	var stall atomic.Bool
	release := make(chan struct{})
	var releaseOnce sync.Once
	env := newTestEnv(t, func(c *Config) { c.SubscriberBuffer = 4 })
	env.srv.beforeWrite = func() {
		if stall.Load() {
			<-release // a client whose socket does not drain
		}
	}
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // runs before the env's cleanup
	c := env.dial(t)
	c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s1"}), nil)

	stall.Store(true)
	f := env.svc.sessionFeed(t, "s1", 0)
	for seq := int64(4); seq < 40; seq++ {
		f.publish(sessionEvent(seq)) // never blocks, however slow the client
	}
	ce := c.expectClose()
	require.Equal(t, websocket.StatusPolicyViolation, ce.Code)
	require.True(t, strings.Contains(ce.Reason, "resubscribe with after_seq"), ce.Reason)
	releaseOnce.Do(func() { close(release) })
}
