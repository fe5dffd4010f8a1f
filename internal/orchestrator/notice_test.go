package orchestrator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

// foldNotes replays notifications into the messages a client would show.
func foldNotes(ns []Notification) map[string]store.Message {
	out := map[string]store.Message{}
	for _, raw := range ns {
		n := decode(raw)
		switch {
		case n.Action == "session.message.deleted":
			delete(out, n.MessageID)
		case n.Message != nil:
			out[n.Message.ID] = *n.Message
		case n.MessageID != "":
			m := out[n.MessageID]
			m.Text += n.Delta
			out[n.MessageID] = m
		}
	}
	return out
}

// TestNewPromptSupersedesParkedRetryNotice: a prompt sent while a retry is
// parked removes its notice at once, so no "retrying" line with a dead
// Cancel stays above the new turn, for a live client, a snapshot and a
// replay from seq 0 alike.
func TestNewPromptSupersedesParkedRetryNotice(t *testing.T) {
	h, v, f := parkFirst(t, "/overloaded:1 first")
	sid := v.Sessions[0].ID
	noticeID := h.messages(sid)[1].ID
	require.NoError(t, h.svc.Prompt(h.ctx, PromptRequest{SessionID: sid, Text: "something else"}))
	// Gone before the new turn starts, not only once it succeeds.
	var order []string
	f.until(func(n note) bool {
		if n.Action == "session.message.deleted" && n.MessageID == noticeID {
			order = append(order, "deleted")
		}
		if n.Action == "session.turn.started" {
			order = append(order, "started")
		}
		return len(order) == 2 || n.Action == "session.turn.started"
	})
	assert.Equal(t, []string{"deleted", "started"}, order)
	assert.Empty(t, byRole(h.messages(sid), "status"), "no notice while the new turn runs")
	assert.Equal(t, "end_turn", f.until(isTurnDone).StopReason)
	f.until(isState(store.SessionWaitingForInput))

	check := func(where string, msgs []store.Message) {
		t.Helper()
		for _, m := range msgs {
			assert.NotEqual(t, kindRetryNotice, m.Metadata["kind"], "%s: a retry notice is left: %q", where, m.Text)
			if m.Role == "status" {
				assert.Empty(t, m.Actions, "%s: %q keeps actions", where, m.Text)
			}
		}
	}
	check("snapshot", h.messages(sid))
	var replayed []store.Message
	for _, m := range foldNotes(h.follow(sid, 0).all) {
		replayed = append(replayed, m)
	}
	check("replay", replayed)
	_, ok := h.pending(sid)
	assert.False(t, ok, "the superseded retry is not pending")
	assert.Len(t, byRole(h.messages(sid), "user"), 2)
}

// TestFailedTurnBannerComesFirst: a client never sees turn.completed
// "failed" before the banner that explains it, and a usage-limit banner
// says why it is there.
func TestFailedTurnBannerComesFirst(t *testing.T) {
	h := newHarness(t)
	_, f := h.create("/usage-limit plan the release", nil)
	var order []string
	b := f.until(func(n note) bool {
		if isTurnDone(n) && n.StopReason == "failed" {
			order = append(order, "failed")
		}
		return isBanner(n)
	})
	assert.Empty(t, order, "turn.completed failed arrived before its banner")
	assert.Equal(t, "wait_for_reset", b.Message.Metadata["reason"])
	done := f.until(isTurnDone)
	assert.Equal(t, "failed", done.StopReason)
	assert.Greater(t, done.Seq, b.Seq)
}

// TestResumeAfterRestartBlamesTheDaemon: a turn cut short by a daemon stop
// is resumed with a continuation that says the daemon restarted, not that
// the provider failed.
func TestResumeAfterRestartBlamesTheDaemon(t *testing.T) {
	h := newHarness(t)
	v, f := h.create("/slow:60000 long job", nil)
	sid := v.Sessions[0].ID
	f.until(isState(store.SessionRunning))
	// RUNNING comes as the prompt is sent: stop only once the agent has it,
	// or on a loaded machine the daemon stops before the first prompt lands.
	require.Eventually(t, func() bool {
		got, err := mockagent.ReceivedPrompts(h.stateDir)
		return err == nil && len(got) >= 1
	}, waitLong, 20*time.Millisecond)
	h.stop()
	h.start()
	require.NoError(t, h.svc.Start(h.ctx))
	f = h.follow(sid, 0)
	b := f.until(isBanner)
	assert.Equal(t, "interrupted", b.Message.Metadata["reason"])
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	require.Eventually(t, func() bool {
		got, err := mockagent.ReceivedPrompts(h.stateDir)
		return err == nil && len(got) >= 2
	}, waitLong, 20*time.Millisecond)
	got, err := mockagent.ReceivedPrompts(h.stateDir)
	require.NoError(t, err)
	last := got[len(got)-1].Text
	assert.Equal(t, daemonContinuation, last)
	assert.NotContains(t, last, "provider")
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: sid}))
}
