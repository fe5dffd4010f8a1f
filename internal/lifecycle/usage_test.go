package lifecycle

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usage_update becomes an EventUsage with the window and the cost; the
// prompt response's usage the turn's tokens.
func TestUsageIsRead(t *testing.T) {
	ev, ok := toEvent(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{SessionUpdate: "usage_update",
		Used: 1200, Size: 200000, Cost: &acp.Cost{Amount: 0.25, Currency: "EUR"}}})
	require.True(t, ok)
	assert.Equal(t, EventUsage, ev.Kind)
	assert.Equal(t, &Usage{ContextUsed: 1200, ContextSize: 200000, CostAmount: 0.25, CostCurrency: "EUR"}, ev.Usage)

	cached := 7
	assert.Equal(t, &Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 22, CachedReadTokens: 7},
		turnUsage(&acp.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 22, CachedReadTokens: &cached}))
	assert.Nil(t, turnUsage(nil))
}

// A usage update is bookkeeping: the turn has not streamed because of it.
func TestUsageUpdateIsNotOutput(t *testing.T) {
	c := &acpClient{events: newEventQueue()}
	require.NoError(t, c.SessionUpdate(t.Context(), acp.SessionNotification{Update: acp.SessionUpdate{
		UsageUpdate: &acp.SessionUsageUpdate{SessionUpdate: "usage_update", Used: 1, Size: 2}}}))
	assert.False(t, c.turn.streamed)
	assert.False(t, c.turn.output)
}
