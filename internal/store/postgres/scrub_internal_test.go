package postgres

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

func payloadOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// The end of a released session's turn — its notice deleted, the turn
// completed with its retry row, the session and task moved — is one job of
// four statements for the committers (the events of the batch in one), none
// run alone: the scrub of the notice's events was read before the write.
func TestTurnEndIsOneGroupedJob(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	seedSessions(t, db, "s1")
	notice := store.Message{ID: "n1", Role: "status", Text: "Provider overloaded — waiting", Metadata: map[string]any{"excerpt": "529 overloaded"}}
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event:         store.Event{SessionID: "s1", Seq: 1, Type: "session.message.added", Payload: payloadOf(t, map[string]any{"message": notice}), At: t0},
		UpsertMessage: &notice}))
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event:         store.Event{SessionID: "s1", Seq: 2, Type: "session.message.updated", Payload: payloadOf(t, map[string]any{"message": notice}), At: t0},
		UpsertMessage: &notice}))
	task := store.Task{ID: "ts1", Title: "s1", Agent: "mock", State: store.TaskReview, CreatedAt: t0, UpdatedAt: t0}
	end := []store.EventWrite{
		{Event: store.Event{SessionID: "s1", Seq: 3, Type: "session.message.deleted", Payload: payloadOf(t, map[string]any{"message_id": "n1"}), At: t0}, DeleteMessage: "n1"},
		{Event: store.Event{SessionID: "s1", Seq: 4, Type: "session.turn.completed", Payload: []byte(`{}`), At: t0}, DeleteRetry: true},
		{Event: store.Event{SessionID: "s1", Seq: 5, Type: "session.state_changed", Payload: []byte(`{}`), At: t0},
			Session: &store.Session{ID: "s1", State: store.SessionWaitingForInput}, Task: &task},
	}
	ws, scs, err := db.prepareScrubs(ctx, end)
	require.NoError(t, err)
	require.NotNil(t, scs[0])
	require.False(t, scs[0].inTx)
	require.Equal(t, []int64{1, 2}, scs[0].seqs)
	stmts, err := planRun(ws, scs)
	require.NoError(t, err)
	require.Len(t, stmts, 4, "the events, the delete with its scrub, the retry's delete, the task")
	for _, s := range stmts {
		require.Nil(t, s.before, "nothing of it runs alone: %s", s.sql)
	}

	require.Equal(t, []error{nil}, db.AppendEvents(ctx, end))
	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 5)
	for _, e := range evs[:2] {
		require.NotContains(t, string(e.Payload), "overloaded")
		require.Contains(t, string(e.Payload), `"id":"n1"`, "compact, and still naming its message")
	}
	s, err := db.GetSession(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, int64(5), s.LastSeq)
	require.Equal(t, store.SessionWaitingForInput, s.State)
	got, err := db.GetTask(ctx, "ts1")
	require.NoError(t, err)
	require.Equal(t, store.TaskReview, got.State)
	_, err = db.GetMessage(ctx, "n1")
	require.ErrorIs(t, err, store.ErrNotFound)
}

// A message added and deleted in one batch is blanked in the batch's own
// event, which the read before the write could not see; the caller's batch
// is left as it was.
func TestScrubOfAMessageOfTheSameBatch(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	seedSessions(t, db, "s1")
	m := store.Message{ID: "m1", Role: "agent", Text: "API Error: key sk-LEAKED"}
	added := payloadOf(t, map[string]any{"message": m})
	batch := []store.EventWrite{
		{Event: store.Event{SessionID: "s1", Seq: 1, Type: "session.message.added", Payload: added, At: t0}, UpsertMessage: &m},
		{Event: store.Event{SessionID: "s1", Seq: 2, Type: "session.message.updated", Payload: payloadOf(t, map[string]any{"message_id": "m1", "delta": " LEAKED too"}), At: t0},
			AppendText: &store.TextAppend{MessageID: "m1", Delta: " LEAKED too"}},
		{Event: store.Event{SessionID: "s1", Seq: 3, Type: "session.message.deleted", Payload: payloadOf(t, map[string]any{"message_id": "m1"}), At: t0}, DeleteMessage: "m1"},
	}
	require.Equal(t, []error{nil}, db.AppendEvents(ctx, batch))
	require.Contains(t, string(batch[0].Event.Payload), "LEAKED", "the caller's payload is not rewritten")
	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	var all strings.Builder
	for _, e := range evs {
		all.Write(e.Payload)
	}
	require.NotContains(t, all.String(), "LEAKED")
}

// When the session's last_seq is not where the write expects it (a write of
// the session still on its way), the scrub is read and made inside the
// write's transaction, which then sees every event before it.
func TestScrubInTheWriteWhenTheSessionMoved(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	seedSessions(t, db, "s1")
	m := store.Message{ID: "m1", Role: "agent", Text: "sk-LEAKED"}
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event:         store.Event{SessionID: "s1", Seq: 1, Type: "session.message.added", Payload: payloadOf(t, map[string]any{"message": m}), At: t0},
		UpsertMessage: &m}))
	sc, err := db.readScrub(ctx, "s1", "m1", 0) // as if seq 1 were still on its way
	require.NoError(t, err)
	require.True(t, sc.inTx)
	require.NotNil(t, deleteStmt("m1", "s1", sc).before)

	del := store.EventWrite{Event: store.Event{SessionID: "s1", Seq: 2, Type: "session.message.deleted", Payload: []byte(`{}`), At: t0}, DeleteMessage: "m1"}
	p, err := planEvent(del, true, sc)
	require.NoError(t, err)
	require.NoError(t, db.submit(ctx, false, p.stmts...))
	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.NotContains(t, string(evs[0].Payload), "LEAKED")
}

// A run of one session's events whose first seq is not the next one writes
// nothing of the batch and says why; the other batches commit.
func TestRunWithASeqConflictWritesNothing(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	seedSessions(t, db, "s1", "s2")
	run := func(sid string, from int64) []store.EventWrite {
		var b []store.EventWrite
		for i := range int64(3) {
			b = append(b, store.EventWrite{Event: ev(sid, from+i), Session: &store.Session{ID: sid, State: store.SessionRunning}})
		}
		return b
	}
	errs := db.AppendEvents(ctx, run("s1", 2), run("s2", 1))
	require.ErrorIs(t, errs[0], store.ErrSeqConflict)
	require.NoError(t, errs[1])
	for sid, want := range map[string]int64{"s1": 0, "s2": 3} {
		s, err := db.GetSession(ctx, sid)
		require.NoError(t, err)
		require.Equal(t, want, s.LastSeq, sid)
		evs, err := db.ListEvents(ctx, sid, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, int(want), sid)
	}
}
