package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

func TestOverloadedRecoversWithOneNoticeUpdatedInPlace(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "200ms, 300ms, 400ms"))
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/overloaded:2 fix it"})
	first := s.Until(20*time.Second, daemontest.IsNotice)
	require.Equal(t, "session.message.added", first.Action)
	assert.Contains(t, first.Body().Message.Text, "Provider overloaded — retrying in 1s (attempt 1/3)")
	second := s.Until(20*time.Second, daemontest.IsNotice)
	assert.Equal(t, "session.message.updated", second.Action)
	assert.Equal(t, first.Body().Message.ID, second.Body().Message.ID)
	assert.Contains(t, second.Body().Message.Text, "(attempt 2/3)")
	done := s.Until(20*time.Second, func(e daemontest.Event) bool { return daemontest.TurnDone(e) && e.Body().StopReason == "end_turn" })
	require.NotNil(t, done)
	gone := false
	for _, e := range s.Seen {
		if e.Action == "session.message.deleted" && e.Body().MessageID == first.Body().Message.ID {
			gone = true
		}
	}
	assert.True(t, gone, "the notice is removed when the agent recovers")
}

func TestExhaustedThenResumeAndAuthNeverReplays(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "100ms, 100ms, 100ms"))
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/overloaded:4 refactor"})
	b := s.Until(30*time.Second, daemontest.IsBanner)
	assert.Equal(t, "The provider stayed overloaded after 3 retries.", b.Body().Message.Text)
	assert.Equal(t, "failed", s.Until(30*time.Second, daemontest.TurnDone).Body().StopReason, "the failed turn ends after its banner")
	c.Call("session.recover", map[string]any{"task_id": s.TaskID, "session_id": s.ID, "action": "resume"})
	assert.Equal(t, "end_turn", s.Until(30*time.Second, daemontest.TurnDone).Body().StopReason)

	a := daemontest.CreateTask(t, c, map[string]any{"prompt": "/auth hello"})
	ab := a.Until(20*time.Second, daemontest.IsBanner)
	assert.Equal(t, "auth", ab.Body().Message.Metadata["failure_code"])
	for _, e := range a.Seen {
		assert.False(t, daemontest.IsNotice(e), "an auth failure is never retried")
	}
}

func TestConnClosedResumesWithoutDuplicateUserTurn(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "100ms"))
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/conn-closed:1 write docs"})
	assert.Equal(t, "end_turn", s.Until(20*time.Second, func(e daemontest.Event) bool {
		return daemontest.TurnDone(e) && e.Body().StopReason != "retry_scheduled"
	}).Body().StopReason)
	var snap daemontest.SubscribeResult
	require.NoError(t, json.Unmarshal(c.Call("session.subscribe", map[string]any{"session_id": s.ID}), &snap))
	users := 0
	for _, m := range snap.Messages {
		if m.Role == "user" {
			users++
		}
	}
	assert.Equal(t, 1, users)
}

func TestSIGKILLDuringRetryWaitFiresAtOriginalRetryAt(t *testing.T) {
	dir := t.TempDir()
	cfg := daemontest.RetryConfig(t, "4s")
	d := daemontest.Start(t, dir, "--config", cfg)
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/overloaded:1 survive"})
	n := s.Until(20*time.Second, daemontest.IsNotice).Body().Message
	retryAt, err := time.Parse(time.RFC3339Nano, n.Metadata["retry_at"].(string))
	require.NoError(t, err)
	d.Kill()

	d2 := daemontest.Start(t, dir, "--config", cfg)
	c2 := daemontest.Dial(t, d2)
	var snap daemontest.SubscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.ID}), &snap))
	var notices []daemontest.Message
	for _, m := range snap.Messages {
		if m.Role == "status" {
			notices = append(notices, m)
		}
	}
	require.Len(t, notices, 1, "the notice survives the crash")
	assert.Equal(t, n.ID, notices[0].ID)
	s2 := daemontest.Follow(t, c2, s.TaskID, s.ID, snap.LastSeq)
	s2.Until(20*time.Second, func(e daemontest.Event) bool { return e.Action == "session.turn.started" })
	assert.False(t, time.Now().Before(retryAt), "the retry did not fire before retry_at")
	assert.Equal(t, "end_turn", s2.Until(20*time.Second, daemontest.TurnDone).Body().StopReason)
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.ID}), &snap))
	users := 0
	for _, m := range snap.Messages {
		if m.Role == "user" {
			users++
		}
		assert.NotEqual(t, "status", m.Role, "no notice or banner is left")
	}
	assert.Equal(t, 1, users, "nothing is duplicated")
}
