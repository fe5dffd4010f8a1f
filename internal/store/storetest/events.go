package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

func testAppendEventMessageLifecycle(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	task, sess := seed(t, db, "t1", "s1")

	notice := func(text string) *store.Message {
		return &store.Message{
			ID: "n1", SessionID: "s1", TurnID: "turn1", Role: "status", Variant: "warning", Text: text,
			Metadata: map[string]any{
				"retrying": true, "attempt": 2.0, "max_attempts": 3.0,
				"retry_at": "2026-03-14T14:09:41.535897932Z", "failure_code": "overloaded",
			},
			Actions: []store.Action{{
				ID: "cancel", Label: "Cancel", Type: "ws_request", Action: "session.recover",
				Payload: map[string]any{"task_id": "t1", "session_id": "s1", "action": "cancel_retry"},
			}},
		}
	}
	task.State = store.TaskInProgress
	running := sess
	running.State, running.Generation, running.AgentSessionID = store.SessionRunning, 1, "acp-1"
	running.TaskID, running.CreatedAt = "ignored", at(99) // immutable

	writes := []store.EventWrite{
		{
			Event:         event("s1", 1, "session.message.added", map[string]string{"id": "u1"}),
			UpsertMessage: &store.Message{ID: "u1", TurnID: "turn1", Role: "user", Text: "hello"},
			Session:       &running,
			Task:          &task,
		},
		{
			Event:         event("s1", 2, "session.message.added", map[string]string{"id": "a1"}),
			UpsertMessage: &store.Message{ID: "a1", SessionID: "s1", TurnID: "turn1", Role: "agent"},
		},
		{Event: event("s1", 3, "session.message.updated", nil), AppendText: &store.TextAppend{MessageID: "a1", Delta: "Hel"}},
		{Event: event("s1", 4, "session.message.updated", nil), AppendText: &store.TextAppend{MessageID: "a1", Delta: "lo, "}},
		{Event: event("s1", 5, "session.message.updated", nil), AppendText: &store.TextAppend{MessageID: "a1", Delta: "wörld ✓"}},
		{Event: event("s1", 6, "session.message.added", nil), UpsertMessage: notice("retrying in 5s (attempt 1/3)")},
		// Updated in place: Seq 0 and a zero CreatedAt keep the original.
		{Event: event("s1", 7, "session.message.updated", nil), UpsertMessage: notice("retrying in 15s (attempt 2/3)")},
		{Event: event("s1", 8, "session.message.added", nil), UpsertMessage: &store.Message{ID: "th", Role: "thought", Text: "hmm"}},
		{Event: event("s1", 9, "session.message.deleted", nil), DeleteMessage: "th"},
		{Event: event("s1", 10, "session.message.deleted", nil), DeleteMessage: "never-existed"},
	}
	for _, w := range writes {
		require.NoError(t, db.AppendEvent(ctx, w), "seq %d", w.Event.Seq)
	}

	msgs, err := db.ListMessages(ctx, "s1")
	require.NoError(t, err)
	want := []store.Message{
		{ID: "u1", SessionID: "s1", TurnID: "turn1", Seq: 1, Role: "user", Text: "hello", CreatedAt: at(1), UpdatedAt: at(1)},
		{ID: "a1", SessionID: "s1", TurnID: "turn1", Seq: 2, Role: "agent", Text: "Hello, wörld ✓", CreatedAt: at(2), UpdatedAt: at(5)},
		*notice("retrying in 15s (attempt 2/3)"),
	}
	want[2].Seq, want[2].CreatedAt, want[2].UpdatedAt = 6, at(6), at(7)
	require.Equal(t, want, msgs)

	one, err := db.GetMessage(ctx, "n1")
	require.NoError(t, err)
	require.Equal(t, want[2], one)
	_, err = db.GetMessage(ctx, "th")
	require.ErrorIs(t, err, store.ErrNotFound)

	gotSess, err := db.GetSession(ctx, "s1")
	require.NoError(t, err)
	wantSess := running
	wantSess.TaskID, wantSess.CreatedAt, wantSess.LastSeq = "t1", sess.CreatedAt, 10
	wantSess.UpdatedAt = running.UpdatedAt
	require.Equal(t, wantSess, gotSess)

	gotTask, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, task, gotTask)

	evs, err := db.ListEvents(ctx, "s1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, len(writes))
	for i, e := range evs {
		require.Equal(t, writes[i].Event, e)
	}

	snapSess, snapMsgs, err := db.SessionSnapshot(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, gotSess, snapSess)
	require.Equal(t, msgs, snapMsgs)
}

func testAppendEventDefaultsTimesFromEvent(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	task, sess := seed(t, db, "t1", "s1")
	task.UpdatedAt, sess.UpdatedAt = time.Time{}, time.Time{} // zero: the event's time

	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event:         event("s1", 1, "session.message.added", nil),
		UpsertMessage: &store.Message{ID: "m1", Role: "agent"}, // Seq 0, zero times
		Session:       &sess,
		Task:          &task,
	}))
	m, err := db.GetMessage(ctx, "m1")
	require.NoError(t, err)
	require.Equal(t, int64(1), m.Seq)
	require.Equal(t, "s1", m.SessionID)
	require.Equal(t, at(1), m.CreatedAt)
	require.Equal(t, at(1), m.UpdatedAt)
	gotSess, err := db.GetSession(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, at(1), gotSess.UpdatedAt)
	require.Equal(t, at(0), gotSess.CreatedAt)
	gotTask, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, at(1), gotTask.UpdatedAt)
	require.Equal(t, at(0), gotTask.CreatedAt)

	// Explicit values win.
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event:         event("s1", 2, "session.message.added", nil),
		UpsertMessage: &store.Message{ID: "m2", Role: "agent", Seq: 1, CreatedAt: at(-1), UpdatedAt: at(-2)},
	}))
	m, err = db.GetMessage(ctx, "m2")
	require.NoError(t, err)
	require.Equal(t, int64(1), m.Seq)
	require.Equal(t, at(-1), m.CreatedAt)
	require.Equal(t, at(-2), m.UpdatedAt)
}

func testAppendEventIsAtomic(t *testing.T, f Factory) {
	t.Parallel()
	ctx := t.Context()

	// setup: s1 is at seq 2 with messages u1 and a1; s2 (another task)
	// owns message o1.
	setup := func(t *testing.T) Store {
		db := f.New(t)
		seed(t, db, "t1", "s1")
		seed(t, db, "t2", "s2")
		for _, w := range []store.EventWrite{
			{Event: event("s1", 1, "session.message.added", nil), UpsertMessage: &store.Message{ID: "u1", Role: "user", Text: "hi"}},
			{Event: event("s1", 2, "session.message.added", nil), UpsertMessage: &store.Message{ID: "a1", Role: "agent", Text: "Hel"}},
			{Event: event("s2", 1, "session.message.added", nil), UpsertMessage: &store.Message{ID: "o1", Role: "agent", Text: "other"}},
		} {
			require.NoError(t, db.AppendEvent(ctx, w))
		}
		return db
	}
	type state struct {
		Tasks    []store.Task
		Sessions []store.Session
		Msgs1    []store.Message
		Msgs2    []store.Message
		Evs1     []store.Event
		Evs2     []store.Event
	}
	capture := func(t *testing.T, db Store) state {
		var s state
		var err error
		s.Tasks, err = db.ListTasks(ctx)
		require.NoError(t, err)
		s.Sessions, err = db.ListAllSessions(ctx)
		require.NoError(t, err)
		s.Msgs1, err = db.ListMessages(ctx, "s1")
		require.NoError(t, err)
		s.Msgs2, err = db.ListMessages(ctx, "s2")
		require.NoError(t, err)
		s.Evs1, err = db.ListEvents(ctx, "s1", 0, 0)
		require.NoError(t, err)
		s.Evs2, err = db.ListEvents(ctx, "s2", 0, 0)
		require.NoError(t, err)
		return s
	}
	// full is a write that changes everything it can; each case breaks
	// one part of it.
	full := func(seq int64) store.EventWrite {
		task := newTask("t1", 50)
		task.State = store.TaskReview
		sess := newSession("s1", "t1", 50)
		sess.State, sess.Generation = store.SessionCompleted, 7
		return store.EventWrite{
			Event:         event("s1", seq, "session.message.added", map[string]int{"x": 1}),
			Session:       &sess,
			UpsertMessage: &store.Message{ID: "new", Role: "status", Text: "new"},
			AppendText:    &store.TextAppend{MessageID: "a1", Delta: "lo"},
			DeleteMessage: "u1",
			Task:          &task,
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()

	for _, tc := range []struct {
		name   string
		ctx    context.Context
		modify func(w *store.EventWrite)
		want   error
	}{
		{"seq skips ahead", ctx, func(w *store.EventWrite) { w.Event.Seq = 4 }, store.ErrSeqConflict},
		{"seq repeats", ctx, func(w *store.EventWrite) { w.Event.Seq = 2 }, store.ErrSeqConflict},
		{"seq zero", ctx, func(w *store.EventWrite) { w.Event.Seq = 0 }, store.ErrInvalid},
		{"unknown session", ctx, func(w *store.EventWrite) {
			w.Event.SessionID, w.Session, w.UpsertMessage.SessionID = "nope", nil, ""
		}, store.ErrNotFound},
		{"append to missing message", ctx, func(w *store.EventWrite) { w.AppendText.MessageID = "ghost" }, store.ErrNotFound},
		{"append to another session's message", ctx, func(w *store.EventWrite) { w.AppendText.MessageID = "o1" }, store.ErrNotFound},
		{"upsert another session's message", ctx, func(w *store.EventWrite) { w.UpsertMessage.ID = "o1" }, store.ErrExists},
		{"message of another session", ctx, func(w *store.EventWrite) { w.UpsertMessage.SessionID = "s2" }, store.ErrInvalid},
		{"unknown task", ctx, func(w *store.EventWrite) { w.Task.ID = "nope" }, store.ErrNotFound},
		{"session of another event", ctx, func(w *store.EventWrite) { w.Session.ID = "s2" }, store.ErrInvalid},
		{"invalid payload", ctx, func(w *store.EventWrite) { w.Event.Payload = json.RawMessage(`{"x":`) }, store.ErrInvalid},
		{"unencodable metadata", ctx, func(w *store.EventWrite) {
			w.UpsertMessage.Metadata = map[string]any{"f": func() {}}
		}, store.ErrInvalid},
		{"no type", ctx, func(w *store.EventWrite) { w.Event.Type = "" }, store.ErrInvalid},
		{"canceled context", canceled, func(*store.EventWrite) {}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := setup(t)
			before := capture(t, db)
			w := full(3)
			tc.modify(&w)
			err := db.AppendEvent(tc.ctx, w)
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, before, capture(t, db), "nothing may change")

			// The unbroken write still applies afterwards.
			require.NoError(t, db.AppendEvent(ctx, full(3)))
			msgs, err := db.ListMessages(ctx, "s1")
			require.NoError(t, err)
			require.Len(t, msgs, 2)
			require.Equal(t, "Hello", msgs[0].Text)
			require.Equal(t, "new", msgs[1].ID)
		})
	}
}

func testAppendEventSeqConflictMessage(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	seed(t, db, "t1", "s1")
	err := db.AppendEvent(t.Context(), store.EventWrite{Event: event("s1", 5, "x", nil)})
	require.ErrorIs(t, err, store.ErrSeqConflict)
	require.Contains(t, err.Error(), "is at seq 0, so the next event must be 1, not 5")
}

func testListEvents(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	seed(t, db, "t2", "s2")
	for seq := int64(1); seq <= 10; seq++ {
		for _, s := range []string{"s1", "s2"} {
			require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event(s, seq, "tick", map[string]string{"s": s})}))
		}
	}

	for _, tc := range []struct {
		name     string
		session  string
		afterSeq int64
		limit    int
		want     []int64
	}{
		{"all", "s1", 0, 0, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"negative limit is all", "s1", 0, -1, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"negative after is all", "s1", -5, 0, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"after", "s1", 7, 0, []int64{8, 9, 10}},
		{"after with limit", "s2", 3, 2, []int64{4, 5}},
		{"limit beyond end", "s2", 8, 100, []int64{9, 10}},
		{"after the last", "s1", 10, 0, []int64{}},
		{"unknown session", "nope", 0, 0, []int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			evs, err := db.ListEvents(ctx, tc.session, tc.afterSeq, tc.limit)
			require.NoError(t, err)
			require.NotNil(t, evs)
			seqs := []int64{}
			for _, e := range evs {
				require.Equal(t, tc.session, e.SessionID)
				require.JSONEq(t, fmt.Sprintf(`{"s":%q}`, tc.session), string(e.Payload))
				seqs = append(seqs, e.Seq)
			}
			require.Equal(t, tc.want, seqs)
		})
	}
}
