package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

func testTaskAndSessionRoundTrip(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()

	task := store.Task{
		ID: "t1", Title: "Fix the build — ünïcode", Agent: "claude", Workdir: "/tmp/w 1",
		MaxAttempts: 5, State: store.TaskInProgress,
		CreatedAt: base, UpdatedAt: base.Add(time.Nanosecond),
		GateDeadline: 4*time.Hour + time.Nanosecond, // exact to the nanosecond
		OnUsageLimit: store.UsageLimitWait,
	}
	sess := store.Session{
		ID: "s1", State: store.SessionRunning, AgentSessionID: "acp-123", Generation: 3,
		CreatedAt: base, UpdatedAt: base.Add(2 * time.Nanosecond),
	}
	require.NoError(t, db.CreateTask(ctx, task, sess)) // empty TaskID means the task's

	got, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(base))
	require.Equal(t, time.UTC, got.CreatedAt.Location())
	task.CreatedAt, task.UpdatedAt = task.CreatedAt.UTC(), task.UpdatedAt.UTC()
	require.Equal(t, task, got)

	gotS, err := db.GetSession(ctx, "s1")
	require.NoError(t, err)
	sess.TaskID = "t1"
	sess.CreatedAt, sess.UpdatedAt = sess.CreatedAt.UTC(), sess.UpdatedAt.UTC()
	require.Equal(t, sess, gotS)

	// A second session, and one of another task.
	s2 := newSession("s2", "t1", 5)
	require.NoError(t, db.CreateSession(ctx, s2))
	require.NoError(t, db.CreateTask(ctx, newTask("t2", 9), store.Session{})) // task alone
	require.NoError(t, db.CreateSession(ctx, newSession("s3", "t2", 1)))

	list, err := db.ListSessions(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, []store.Session{sess, s2}, list)
	all, err := db.ListAllSessions(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"s1", "s3", "s2"}, sessionIDs(all)) // by created_at
	none, err := db.ListSessions(ctx, "nope")
	require.NoError(t, err)
	require.NotNil(t, none)
	require.Empty(t, none)
}

// A task's gate deadline is kept by CreateTask, changed by an event's task
// replace, and a negative one is refused without a trace.
func testTaskGateDeadlineRoundTrip(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	task, _ := seed(t, db, "t1", "s1")
	got, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Zero(t, got.GateDeadline, "unset: the daemon's default")

	task.GateDeadline = 8 * time.Hour
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "task.updated", map[string]any{}), Task: &task}))
	tasks, err := db.ListTasks(ctx)
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	require.Equal(t, 8*time.Hour, tasks[0].GateDeadline)

	task.GateDeadline = -time.Minute
	err = db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 2, "task.updated", map[string]any{}), Task: &task})
	require.ErrorIs(t, err, store.ErrInvalid)
	got, err = db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, 8*time.Hour, got.GateDeadline)
	sess, err := db.GetSession(ctx, "s1")
	require.NoError(t, err)
	require.EqualValues(t, 1, sess.LastSeq, "the refused event was not logged")
}

// A task's on_usage_limit is kept by CreateTask and an event's task
// replace; a value other than "", wait or ask is refused.
func testTaskOnUsageLimitRoundTrip(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	task, _ := seed(t, db, "t1", "s1")
	got, err := db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Empty(t, got.OnUsageLimit, "unset: the daemon's default")

	task.OnUsageLimit = store.UsageLimitAsk
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "task.updated", map[string]any{}), Task: &task}))
	page, _, err := db.ListTaskPage(ctx, 10, "")
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, store.UsageLimitAsk, page[0].Task.OnUsageLimit)

	task.OnUsageLimit = "sometimes"
	require.Error(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 2, "task.updated", map[string]any{}), Task: &task}))
	got, err = db.GetTask(ctx, "t1")
	require.NoError(t, err)
	require.Equal(t, store.UsageLimitAsk, got.OnUsageLimit)
}

func sessionIDs(ss []store.Session) []string {
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}

func testListTasksNewestFirst(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()

	empty, err := db.ListTasks(ctx)
	require.NoError(t, err)
	require.NotNil(t, empty)
	require.Empty(t, empty)

	// Created out of time order, with a tie between b and c (c inserted last).
	for _, tc := range []struct {
		id string
		n  int
	}{{"a", 1}, {"d", 30}, {"b", 10}, {"c", 10}, {"e", -5}} {
		require.NoError(t, db.CreateTask(ctx, newTask(tc.id, tc.n), store.Session{}))
	}
	tasks, err := db.ListTasks(ctx)
	require.NoError(t, err)
	var ids []string
	for _, task := range tasks {
		ids = append(ids, task.ID)
	}
	require.Equal(t, []string{"d", "c", "b", "a", "e"}, ids)
}

func testCreateErrors(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")

	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"duplicate task", func() error { return db.CreateTask(ctx, newTask("t1", 0), store.Session{}) }, store.ErrExists},
		{"task with duplicate session is atomic", func() error {
			return db.CreateTask(ctx, newTask("t9", 0), newSession("s1", "", 0))
		}, store.ErrExists},
		{"session of another task", func() error {
			return db.CreateTask(ctx, newTask("t8", 0), newSession("s8", "t1", 0))
		}, store.ErrInvalid},
		{"task without id", func() error { return db.CreateTask(ctx, store.Task{}, store.Session{}) }, store.ErrInvalid},
		{"negative gate deadline", func() error {
			task := newTask("t7", 0)
			task.GateDeadline = -time.Second
			return db.CreateTask(ctx, task, store.Session{})
		}, store.ErrInvalid},
		{"duplicate session", func() error { return db.CreateSession(ctx, newSession("s1", "t1", 0)) }, store.ErrExists},
		{"session of unknown task", func() error { return db.CreateSession(ctx, newSession("s2", "nope", 0)) }, store.ErrNotFound},
		{"session without task", func() error { return db.CreateSession(ctx, newSession("s2", "", 0)) }, store.ErrInvalid},
		{"execution of unknown session", func() error {
			return db.SaveExecution(ctx, store.Execution{ID: "e1", SessionID: "nope"})
		}, store.ErrNotFound},
		{"execution with invalid evidence", func() error {
			return db.SaveExecution(ctx, store.Execution{ID: "e1", SessionID: "s1", Evidence: json.RawMessage("{oops")})
		}, store.ErrInvalid},
		{"retry of unknown session", func() error {
			return db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "nope", TaskID: "t1"})
		}, store.ErrNotFound},
		{"retry with bad state", func() error {
			return db.SavePendingRetry(ctx, store.PendingRetry{SessionID: "s1", TaskID: "t1", State: "armed"})
		}, store.ErrInvalid},
	} {
		require.ErrorIs(t, tc.call(), tc.want, tc.name)
	}
	for _, id := range []string{"t9", "t8", "t7"} {
		_, err := db.GetTask(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "a failed CreateTask leaves no task behind")
	}
}

func testGetMissingIsErrNotFound(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")

	for name, call := range map[string]func() error{
		"GetTask":         func() error { _, err := db.GetTask(ctx, "nope"); return err },
		"GetSession":      func() error { _, err := db.GetSession(ctx, "nope"); return err },
		"GetMessage":      func() error { _, err := db.GetMessage(ctx, "nope"); return err },
		"GetPendingRetry": func() error { _, err := db.GetPendingRetry(ctx, "s1"); return err },
		"SessionSnapshot": func() error { _, _, err := db.SessionSnapshot(ctx, "nope"); return err },
	} {
		require.ErrorIs(t, call(), store.ErrNotFound, name)
	}
}

func testExecutionRoundTrip(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")

	e1 := store.Execution{ID: "e1", SessionID: "s1", Generation: 1, Attempt: 1, StartedAt: at(1), Outcome: "running"}
	e2 := store.Execution{ID: "e2", SessionID: "s1", Generation: 1, Attempt: 2, StartedAt: at(2), Outcome: "running"}
	require.NoError(t, db.SaveExecution(ctx, e2))
	require.NoError(t, db.SaveExecution(ctx, e1))

	list, err := db.ListExecutions(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, []store.Execution{e1, e2}, list)

	// The end of a run replaces the row.
	ended := base.Add(90 * time.Second)
	e1.EndedAt = &ended
	e1.Outcome = "failed"
	e1.Evidence = json.RawMessage(`{"phase":"streaming","rpc":{"code":-32603,"message":"Internal error: API Error: 529"}}`)
	e1.Classification = json.RawMessage(`{"class":"transient","rule_id":"anthropic.overloaded.529.v1"}`)
	require.NoError(t, db.SaveExecution(ctx, e1))

	list, err = db.ListExecutions(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, list, 2)
	got := list[0]
	require.NotNil(t, got.EndedAt)
	require.True(t, got.EndedAt.Equal(ended))
	require.Equal(t, time.UTC, got.EndedAt.Location())
	endedUTC := ended.UTC()
	e1.EndedAt = &endedUTC
	require.Equal(t, e1, got)
	require.Equal(t, e2, list[1])
}

func testPendingRetryLifecycle(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	seed(t, db, "t2", "s2")

	r := store.PendingRetry{
		SessionID: "s1", TaskID: "t1", Generation: 4, Attempt: 2, MaxAttempts: 3,
		Code: "overloaded", RuleID: "anthropic.overloaded.529.v1", RetryAt: base.Add(15 * time.Second),
		Prompt: "fix the tests\nplease", Resume: true, NoticeID: "n1",
		Extra:     map[string]any{"gate": "anthropic", "deadline": "2026-03-14T15:00:00Z", "n": 2.5},
		CreatedAt: base,
	}
	require.NoError(t, db.SavePendingRetry(ctx, r))
	got, err := db.GetPendingRetry(ctx, "s1")
	require.NoError(t, err)
	want := r
	want.State = store.RetryPending // empty means pending
	want.RetryAt, want.CreatedAt = r.RetryAt.UTC(), r.CreatedAt.UTC()
	require.Equal(t, want, got)

	// Listing is soonest first.
	r2 := store.PendingRetry{SessionID: "s2", TaskID: "t2", Generation: 1, Attempt: 2, MaxAttempts: 3, RetryAt: base.Add(5 * time.Second), CreatedAt: base}
	require.NoError(t, db.SavePendingRetry(ctx, r2))
	list, err := db.ListPendingRetries(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, []string{"s2", "s1"}, []string{list[0].SessionID, list[1].SessionID})
	require.Nil(t, list[0].Extra)

	// Claims: only the exact generation and attempt, only once.
	for _, tc := range []struct {
		name       string
		session    string
		generation int64
		attempt    int
		want       bool
	}{
		{"old generation", "s1", 3, 2, false},
		{"newer attempt", "s1", 4, 3, false},
		{"unknown session", "nope", 4, 2, false},
		{"exact", "s1", 4, 2, true},
		{"again", "s1", 4, 2, false},
	} {
		ok, err := db.ClaimPendingRetry(ctx, tc.session, tc.generation, tc.attempt)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, ok, tc.name)
	}
	got, err = db.GetPendingRetry(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, store.RetryDispatching, got.State)

	// The next attempt replaces the row and is claimable again.
	r.Attempt, r.RetryAt, r.State = 3, base.Add(45*time.Second), ""
	require.NoError(t, db.SavePendingRetry(ctx, r))
	got, err = db.GetPendingRetry(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, store.RetryPending, got.State)
	require.Equal(t, 3, got.Attempt)
	ok, err := db.ClaimPendingRetry(ctx, "s1", 4, 3)
	require.NoError(t, err)
	require.True(t, ok)

	// Delete is idempotent.
	require.NoError(t, db.DeletePendingRetry(ctx, "s1"))
	require.NoError(t, db.DeletePendingRetry(ctx, "s1"))
	_, err = db.GetPendingRetry(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	ok, err = db.ClaimPendingRetry(ctx, "s1", 4, 3)
	require.NoError(t, err)
	require.False(t, ok)
	list, err = db.ListPendingRetries(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"s2"}, []string{list[0].SessionID})
}

func testTimesRoundTripExactly(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	for i, tm := range []time.Time{
		{}, // the zero time stays zero
		base,
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.FixedZone("", -7*3600-1800)),
		time.Date(9999, 12, 31, 23, 59, 59, 1, time.UTC),
		time.Now(), // carries a monotonic reading
	} {
		id := string(rune('a' + i))
		task := store.Task{ID: id, State: store.TaskTodo, CreatedAt: tm, UpdatedAt: tm}
		require.NoError(t, db.CreateTask(ctx, task, store.Session{}))
		got, err := db.GetTask(ctx, id)
		require.NoError(t, err)
		require.True(t, tm.Equal(got.CreatedAt), "%v != %v", tm, got.CreatedAt)
		require.Equal(t, tm.UTC().Round(0), got.CreatedAt)
	}
}
