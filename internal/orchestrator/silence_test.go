package orchestrator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// silenceDefaults turns the watch on with the daemon's defaults.
func silenceDefaults(c *Config) { c.SilenceNotice, c.SilenceLimit = 0, 0 }

func isSilenceLine(n note) bool {
	return n.Message != nil && n.Message.Metadata["kind"] == kindSilence &&
		(n.Action == "session.message.added" || n.Action == "session.message.updated")
}

// A turn with no update for 45s gets a calm line, refreshed as the silence
// goes on; at the 5m limit it is cancelled as hung and retried like a lost
// connection, and the line goes away.
func TestSilentTurnIsNoticedThenCancelledAsHungAndRetried(t *testing.T) {
	h := newHarness(t, silenceDefaults)
	retry := h.trapAfterFunc("retry")
	defer retry.Close()
	v, f := h.create("/hang:1 think hard", nil) // the watch is armed as the turn starts
	sid := v.Sessions[0].ID
	f.until(isState(store.SessionRunning))

	d, w := h.clock.AdvanceNext()
	w.MustWait(h.ctx)
	require.Equal(t, DefaultSilenceNotice, d)
	line := f.until(isSilenceLine)
	assert.Equal(t, "No response from the agent for 45s — it may be retrying on its own.", line.Message.Text)
	assert.Equal(t, "info", line.Message.Variant)

	d, w = h.clock.AdvanceNext()
	w.MustWait(h.ctx)
	require.Equal(t, DefaultSilenceNotice, d)
	again := f.until(isSilenceLine)
	assert.Equal(t, line.Message.ID, again.Message.ID, "one line, updated in place")
	assert.Equal(t, "No response from the agent for 1m30s — it may be retrying on its own.", again.Message.Text)

	for elapsed := 2 * DefaultSilenceNotice; elapsed < DefaultSilenceLimit; {
		d, w := h.clock.AdvanceNext()
		w.MustWait(h.ctx)
		elapsed += d
	}
	call := retry.MustWait(h.ctx)
	call.MustRelease(h.ctx)
	assert.Equal(t, time.Duration(0), call.Duration, "a lost connection retries at once")
	notice := f.until(isNotice)
	assert.Equal(t, "Connection lost — retrying in 0s (attempt 1/2)", notice.Message.Text)
	assert.Equal(t, "end_turn", f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" }).StopReason)

	msgs := h.messages(sid)
	for _, m := range byRole(msgs, "status") {
		assert.NotEqual(t, kindSilence, m.Metadata["kind"], "the silence line is gone: %q", m.Text)
	}
	agent := byRole(msgs, "agent")
	require.NotEmpty(t, agent)
	assert.Contains(t, agent[len(agent)-1].Text, "Recovered after 1 failures")
}

// Negative limits turn the watch off: an hour of silence, no line, no cancel.
func TestSilenceWatchCanBeTurnedOff(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SilenceNotice, c.SilenceLimit = -1, -1 })
	v, f := h.create("/hang:1 think hard", nil)
	f.until(isState(store.SessionRunning))
	h.clock.Advance(time.Hour).MustWait(h.ctx)
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: v.Sessions[0].ID}))
	assert.Equal(t, "cancelled", f.until(isTurnDone).StopReason)
	for _, m := range byRole(h.messages(v.Sessions[0].ID), "status") {
		assert.NotEqual(t, kindSilence, m.Metadata["kind"])
	}
}
