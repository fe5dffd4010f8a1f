package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// A task created on A and placed on B streams on A's client from its
// first event: the client subscribed before B took the session, and the
// relay follows the session's log whichever daemon writes it.
func TestAPlacedTaskStreamsWhereItWasCreated(t *testing.T) {
	f := Start(t, Options{N: 2})
	a := f.Dial(t, 0)
	s := Task(t, a, "/slow:2000 placed on B", map[string]any{"daemon": f.D(1).ID})
	var text strings.Builder
	for {
		e := s.Next(30 * time.Second)
		if e.Action == "session.message.updated" {
			text.WriteString(e.Body().Delta)
		}
		if m := e.Body().Message; m != nil && m.Role == "assistant" {
			text.WriteString(m.Text)
		}
		if daemontest.TurnEnded(e) {
			assert.Equal(t, "end_turn", e.Body().StopReason)
			break
		}
	}
	assert.Contains(t, text.String(), "step 10/10", "A's client saw B's whole reply")
	var holder string
	require.NoError(t, f.Pool.QueryRow(t.Context(), `SELECT holder FROM fleet_leases WHERE kind = 'session' AND key = $1`, s.ID).Scan(&holder))
	assert.Equal(t, f.D(1).ID, holder, "B ran it")
	for i, e := range s.Seen {
		require.Equal(t, int64(i+1), e.Seq, "no gap, no repeat")
	}
}
