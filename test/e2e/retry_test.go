package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

func isNotice(e event) bool {
	m := e.body().Message
	return m != nil && m.Metadata["kind"] == "retry_notice"
}

func isBanner(e event) bool {
	m := e.body().Message
	return e.Action == "session.message.added" && m != nil && m.Metadata["kind"] == "recovery"
}

func TestOverloadedRecoversWithOneNoticeUpdatedInPlace(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "200ms, 300ms, 400ms"))
	c := daemontest.Dial(t, d)
	s := createTask(t, c, map[string]any{"prompt": "/overloaded:2 fix it"})
	first := s.until(20*time.Second, isNotice)
	require.Equal(t, "session.message.added", first.Action)
	assert.Contains(t, first.body().Message.Text, "Provider overloaded — retrying in 1s (attempt 1/3)")
	second := s.until(20*time.Second, isNotice)
	assert.Equal(t, "session.message.updated", second.Action)
	assert.Equal(t, first.body().Message.ID, second.body().Message.ID)
	assert.Contains(t, second.body().Message.Text, "(attempt 2/3)")
	done := s.until(20*time.Second, func(e event) bool { return turnDone(e) && e.body().StopReason == "end_turn" })
	require.NotNil(t, done)
	gone := false
	for _, e := range s.seen {
		if e.Action == "session.message.deleted" && e.body().MessageID == first.body().Message.ID {
			gone = true
		}
	}
	assert.True(t, gone, "the notice is removed when the agent recovers")
}

func TestExhaustedThenResumeAndAuthNeverReplays(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "100ms, 100ms, 100ms"))
	c := daemontest.Dial(t, d)
	s := createTask(t, c, map[string]any{"prompt": "/overloaded:4 refactor"})
	b := s.until(30*time.Second, isBanner)
	assert.Equal(t, "The provider stayed overloaded after 3 retries.", b.body().Message.Text)
	c.Call("session.recover", map[string]any{"task_id": s.taskID, "session_id": s.id, "action": "resume"})
	assert.Equal(t, "end_turn", s.until(30*time.Second, turnDone).body().StopReason)

	a := createTask(t, c, map[string]any{"prompt": "/auth hello"})
	ab := a.until(20*time.Second, isBanner)
	assert.Equal(t, "auth", ab.body().Message.Metadata["failure_code"])
	for _, e := range a.seen {
		assert.False(t, isNotice(e), "an auth failure is never retried")
	}
}

func TestConnClosedResumesWithoutDuplicateUserTurn(t *testing.T) {
	d := daemontest.Start(t, t.TempDir(), "--config", daemontest.RetryConfig(t, "100ms"))
	c := daemontest.Dial(t, d)
	s := createTask(t, c, map[string]any{"prompt": "/conn-closed:1 write docs"})
	assert.Equal(t, "end_turn", s.until(20*time.Second, func(e event) bool {
		return turnDone(e) && e.body().StopReason != "retry_scheduled"
	}).body().StopReason)
	var snap subscribeResult
	require.NoError(t, json.Unmarshal(c.Call("session.subscribe", map[string]any{"session_id": s.id}), &snap))
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
	s := createTask(t, c, map[string]any{"prompt": "/overloaded:1 survive"})
	n := s.until(20*time.Second, isNotice).body().Message
	retryAt, err := time.Parse(time.RFC3339Nano, n.Metadata["retry_at"].(string))
	require.NoError(t, err)
	d.Kill()

	d2 := daemontest.Start(t, dir, "--config", cfg)
	c2 := daemontest.Dial(t, d2)
	var snap subscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.id}), &snap))
	var notices []message
	for _, m := range snap.Messages {
		if m.Role == "status" {
			notices = append(notices, m)
		}
	}
	require.Len(t, notices, 1, "the notice survives the crash")
	assert.Equal(t, n.ID, notices[0].ID)
	s2 := follow(t, c2, s.taskID, s.id, snap.LastSeq)
	s2.until(20*time.Second, func(e event) bool { return e.Action == "session.turn.started" })
	assert.False(t, time.Now().Before(retryAt), "the retry did not fire before retry_at")
	assert.Equal(t, "end_turn", s2.until(20*time.Second, turnDone).body().StopReason)
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.id}), &snap))
	users := 0
	for _, m := range snap.Messages {
		if m.Role == "user" {
			users++
		}
		assert.NotEqual(t, "status", m.Role, "no notice or banner is left")
	}
	assert.Equal(t, 1, users, "nothing is duplicated")
}
