package fleet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// leaseRow is the session's lease as fleet_leases has it: holder ("" once
// released) and whether a row exists at all.
func (f *Fleet) leaseRow(t testing.TB, sessionID string) (holder string, exists bool) {
	t.Helper()
	n := f.Count(t, `SELECT count(*) FROM fleet_leases WHERE kind = 'session' AND key = $1`, sessionID)
	if n == 0 {
		return "", false
	}
	require.NoError(t, f.Pool.QueryRow(t.Context(), `SELECT holder FROM fleet_leases WHERE kind = 'session' AND key = $1`, sessionID).Scan(&holder))
	return holder, true
}

// A session with nothing left on its daemon (its turn over, its agent
// process stopped for idleness) gives its lease up: a prompt given to
// another daemon is then run there, not forwarded; a client that followed
// the session on its first daemon goes on seeing it, now from the second;
// and a deleted task's session leaves no lease behind.
func TestAnIdleSessionIsServedWhereverItsNextCommandGoes(t *testing.T) {
	f := Start(t, Options{N: 2, Args: []string{"--agent-idle-timeout", "1s"}})
	a, b := f.Dial(t, 0), f.Dial(t, 1)
	onB := Task(t, b, "hello from B", nil) // followed on B while B runs it
	onB.Until(30*time.Second, daemontest.TurnEnded)
	assert.Equal(t, f.D(1).ID, f.holder(t, onB.ID), "B owns the session it runs")

	took := WaitFor(t, 30*time.Second, "B to release the idle session's lease", func() (bool, string) {
		h, ok := f.leaseRow(t, onB.ID)
		return ok && h == "", "holder " + h
	})
	t.Logf("an idle session's lease was released %v after its turn ended (agent idle timeout 1s, lease %v)", took.Round(10*time.Millisecond), f.Opts.Lease)

	a.Call("session.prompt", map[string]any{"task_id": onB.TaskID, "session_id": onB.ID, "text": "/slow:300 now from A"})
	f.WaitTurns(t, onB.ID, 2, 30*time.Second)
	assert.Equal(t, f.D(0).ID, f.holder(t, onB.ID), "A claimed the released session and ran the prompt")
	assert.Zero(t, f.Count(t, `SELECT count(*) FROM fleet_commands`), "nothing was forwarded")
	// B's client, subscribed while B ran it, sees A's turn: the prompt, the
	// reply and its end, in order after what it saw before.
	isPrompt := func(e daemontest.Event) bool {
		m := e.Body().Message
		return e.Action == "session.message.added" && m != nil && m.Role == "user" && strings.Contains(m.Text, "now from A")
	}
	onB.Until(30*time.Second, isPrompt)
	onB.Until(30*time.Second, daemontest.TurnEnded)
	for i, e := range onB.Seen {
		require.Equal(t, int64(i+1), e.Seq, "B's client's feed has no gap and no repeat")
	}

	// Deleted (on B, which does not run it now): no lease row is left.
	WaitFor(t, 30*time.Second, "A to release the session again", func() (bool, string) {
		h, _ := f.leaseRow(t, onB.ID)
		return h == "", "holder " + h
	})
	b.Call("task.delete", map[string]any{"task_id": onB.TaskID})
	_, exists := f.leaseRow(t, onB.ID)
	assert.False(t, exists, "a deleted session's lease row is gone")

	// A session deleted by the daemon holding its lease leaves none either.
	onA := Task(t, a, "hello from A", nil)
	onA.Until(30*time.Second, daemontest.TurnEnded)
	require.Equal(t, f.D(0).ID, f.holder(t, onA.ID))
	a.Call("task.delete", map[string]any{"task_id": onA.TaskID})
	_, exists = f.leaseRow(t, onA.ID)
	assert.False(t, exists, "a deleted session's lease row is gone")
}

// WaitTurns waits until the session's log holds n completed turns that
// ended normally, whoever wrote them.
func (f *Fleet) WaitTurns(t testing.TB, sessionID string, n int, timeout time.Duration) {
	t.Helper()
	WaitFor(t, timeout, "the session's turns to end", func() (bool, string) {
		k := f.Count(t, `SELECT count(*) FROM events WHERE session_id = $1 AND type = 'session.turn.completed'
			AND payload->>'stop_reason' = 'end_turn'`, sessionID)
		return k >= n, fmt.Sprintf("%d of %d turns done", k, n)
	})
}
