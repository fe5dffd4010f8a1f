package fleet

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// ownedBy makes daemon d's ownership of a session explicit in
// fleet_leases, as the owner's own lease does once it holds one (then the
// insert changes nothing).
func ownedBy(t *testing.T, f *Fleet, sessionID string, d *Daemon) {
	t.Helper()
	if _, err := f.Pool.Exec(t.Context(), `INSERT INTO fleet_leases (kind, key, holder, fence, acquired_at, expires_at)
		VALUES ('session', $1, $2, 1, now(), now() + interval '1 hour') ON CONFLICT (kind, key) DO NOTHING`, sessionID, d.ID); err != nil {
		t.Fatal(err)
	}
	var holder string
	require.NoError(t, f.Pool.QueryRow(t.Context(), `SELECT holder FROM fleet_leases WHERE kind = 'session' AND key = $1`, sessionID).Scan(&holder))
	require.Equal(t, d.ID, holder, "the session is daemon %d's", d.Index)
}

func isDelta(e daemontest.Event) bool {
	return e.Action == "session.message.updated" && e.Body().Delta != ""
}

// A client on daemon A streams a session daemon B runs, live, and stops
// it: B's events reach A through LISTEN/NOTIFY and the tables, A's
// commands reach B through the database, and B's answers (its typed
// errors too) come back; A's task list follows B's task. A prompt given
// to A reaches B and shows on both; once B is gone, a prompt to A is
// refused with UNAVAILABLE and nothing of it is applied later.
func TestAClientOnAStreamsASessionOnBAndStopsIt(t *testing.T) {
	f := Start(t, Options{N: 2})
	a, b := f.Dial(t, 0), f.Dial(t, 1)
	list := f.Dial(t, 0) // a task list on A, subscribed to no session
	onB := Task(t, b, "/slow:30000 take your time", nil)
	ownedBy(t, f, onB.ID, f.D(1))

	onA := daemontest.Follow(t, a, onB.TaskID, onB.ID, 0)
	first := onA.Until(30*time.Second, isDelta)
	t.Logf("A saw B's first streamed text %q", first.Body().Delta)
	more := onA.Until(30*time.Second, isDelta) // and the next one, live
	assert.Greater(t, more.Seq, first.Seq)

	// A's stop reaches B, which ends the turn; A sees it end.
	onB.Until(30*time.Second, func(e daemontest.Event) bool { return e.Seq >= more.Seq })
	stopAt := time.Now()
	a.Call("session.stop", map[string]any{"task_id": onB.TaskID, "session_id": onB.ID})
	t.Logf("session.stop on A answered by B in %v", time.Since(stopAt).Round(100*time.Microsecond))
	done := onA.Until(30*time.Second, daemontest.TurnDone)
	assert.Equal(t, "cancelled", done.Body().StopReason)
	onB.Until(30*time.Second, daemontest.TurnDone)
	// A's task list follows it too: B's task goes to review.
	list.WaitNote(30*time.Second, func(e daemontest.Envelope) bool {
		var p struct {
			Task struct {
				ID    string `json:"id"`
				State string `json:"state"`
			} `json:"task"`
		}
		return e.Action == "task.updated" && json.Unmarshal(e.Payload, &p) == nil && p.Task.ID == onB.TaskID && p.Task.State == "REVIEW"
	})

	// What A streamed is B's stream, event for event.
	bSeqs := map[int64]string{}
	for _, e := range onB.Seen {
		bSeqs[e.Seq] = e.Action
	}
	for i, e := range onA.Seen {
		require.Equal(t, int64(i+1), e.Seq, "A's feed has no gap and no repeat")
		if want, ok := bSeqs[e.Seq]; ok {
			require.Equal(t, want, e.Action, "seq %d", e.Seq)
		}
	}

	// B's typed error reaches A's client as B gave it.
	e := a.Request("session.prompt", map[string]any{"task_id": "another-task", "session_id": onB.ID, "text": "wrong task"})
	require.Equal(t, "error", e.Type)
	var werr struct{ Code string }
	require.NoError(t, json.Unmarshal(e.Payload, &werr))
	assert.Equal(t, "FORBIDDEN", werr.Code, "B's answer: %s", e.Payload)

	// A prompt typed on A is accepted by B and visible on both.
	a.Call("session.prompt", map[string]any{"session_id": onB.ID, "text": "/slow:200 hello from A"})
	isPrompt := func(e daemontest.Event) bool {
		m := e.Body().Message
		return e.Action == "session.message.added" && m != nil && m.Role == "user" && strings.Contains(m.Text, "hello from A")
	}
	onA.Until(30*time.Second, isPrompt)
	onB.Until(30*time.Second, isPrompt)
	onA.Until(30*time.Second, daemontest.TurnEnded)
	snap := onA.Snapshot() // A's snapshot of B's session: the whole chat
	var texts []string
	for _, m := range snap.Messages {
		texts = append(texts, m.Text)
	}
	assert.Contains(t, strings.Join(texts, "|"), "hello from A")

	// B dies: A's prompt gets UNAVAILABLE within the command timeout, and
	// the prompt is not applied afterwards by anyone.
	f.Kill(1)
	start := time.Now()
	e = a.Request("session.prompt", map[string]any{"session_id": onB.ID, "text": "lost while B is down"})
	took := time.Since(start)
	require.Equal(t, "error", e.Type, "%s", e.Payload)
	var unav struct {
		Code    string
		Details map[string]any
	}
	require.NoError(t, json.Unmarshal(e.Payload, &unav))
	assert.Equal(t, "UNAVAILABLE", unav.Code, "%s", e.Payload)
	t.Logf("a prompt for a dead owner was refused after %v: %s", took.Round(10*time.Millisecond), e.Payload)
	assert.Equal(t, 0, f.Count(t, "SELECT count(*) FROM fleet_commands"), "the withdrawn command leaves no row")
	assert.Equal(t, 0, f.Count(t, "SELECT count(*) FROM messages WHERE session_id = $1 AND text LIKE '%lost while B is down%'", onB.ID))
}
