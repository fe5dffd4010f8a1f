// Package storetest is the conformance suite of orchestratord's stores:
// every behaviour of the store (not SQLite's file handling) is a test
// here, and each store runs all of them with Run and a Factory — the
// SQLite store in internal/store, the PostgreSQL store in
// internal/store/postgres. A store change that a test here does not hold
// for both is a bug in one of them.
package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Store is what the suite exercises: orchestrator.Store and the readers
// the daemon's tools use. *store.DB and *postgres.DB satisfy it.
type Store interface {
	CreateTask(ctx context.Context, t store.Task, s store.Session) error
	CreateSession(ctx context.Context, s store.Session) error
	GetTask(ctx context.Context, id string) (store.Task, error)
	ListTasks(ctx context.Context) ([]store.Task, error)
	ListTaskPage(ctx context.Context, limit int, cursor string) ([]store.TaskWithSessions, string, error)
	GetSession(ctx context.Context, id string) (store.Session, error)
	ListSessions(ctx context.Context, taskID string) ([]store.Session, error)
	ListAllSessions(ctx context.Context) ([]store.Session, error)
	AppendEvent(ctx context.Context, w store.EventWrite) error
	AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error
	ListMessages(ctx context.Context, sessionID string) ([]store.Message, error)
	GetMessage(ctx context.Context, id string) (store.Message, error)
	CountMessages(ctx context.Context, sessionID, role, text string) (int, error)
	SessionSnapshot(ctx context.Context, sessionID string) (store.Session, []store.Message, error)
	ListEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]store.Event, error)
	ListMessagesPage(ctx context.Context, sessionID string, p store.MessagePage) ([]store.Message, bool, error)
	ListEventsUpTo(ctx context.Context, sessionID string, afterSeq int64, maxBytes int) ([]store.Event, bool, error)
	SealMessages(ctx context.Context, ids ...string) error
	SaveExecution(ctx context.Context, e store.Execution) error
	ListExecutions(ctx context.Context, sessionID string) ([]store.Execution, error)
	SaveGate(ctx context.Context, g store.Gate) error
	DeleteGate(ctx context.Context, key string) error
	ListGates(ctx context.Context) ([]store.Gate, error)
	SavePendingRetry(ctx context.Context, r store.PendingRetry) error
	GetPendingRetry(ctx context.Context, sessionID string) (store.PendingRetry, error)
	ClaimPendingRetry(ctx context.Context, sessionID string, generation int64, attempt int) (bool, error)
	ClaimPendingRetries(ctx context.Context, claims []store.RetryClaim) ([]bool, error)
	DeletePendingRetry(ctx context.Context, sessionID string) error
	ListPendingRetries(ctx context.Context) ([]store.PendingRetry, error)
	UpdateTask(ctx context.Context, t store.Task) error
	DeleteTask(ctx context.Context, id string) error
	SetSessionModel(ctx context.Context, sessionID, model string) error
	SchemaVersion(ctx context.Context) (int, error)
	WriteHealth() store.WriteHealth
	Close() error
}

// Factory makes the stores of one kind.
type Factory struct {
	// Database makes a new empty database for t and returns how to open a
	// store on it; each call opens it again (a restart). The stores it
	// opens are closed when t ends.
	Database func(t testing.TB) (open func(t testing.TB) Store)
}

// New opens a store on a new empty database.
func (f Factory) New(t testing.TB) Store {
	t.Helper()
	return f.Database(t)(t)
}

// Run runs the whole suite against f, each test a parallel subtest.
func Run(t *testing.T, f Factory) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, f) })
	}
}

var tests = []struct {
	name string
	fn   func(t *testing.T, f Factory)
}{
	{"ReopenKeepsEverythingInOrder", testReopenKeepsEverythingInOrder},
	{"CloseIsIdempotentAndFinal", testCloseIsIdempotentAndFinal},
	{"ContextIsRespected", testContextIsRespected},
	{"StreamedChunksReadWholeAndSeal", testStreamedChunksReadWholeAndSeal},
	{"ClaimPendingRetriesMatchesOneByOne", testClaimPendingRetriesMatchesOneByOne},
	{"AppendEventClaimsAndDeletesTheRetry", testAppendEventClaimsAndDeletesTheRetry},
	{"ConcurrentAppendEventAcrossSessions", testConcurrentAppendEventAcrossSessions},
	{"ConcurrentAppendEventSameSession", testConcurrentAppendEventSameSession},
	{"ClaimPendingRetryExactlyOnce", testClaimPendingRetryExactlyOnce},
	{"AppendEventMessageLifecycle", testAppendEventMessageLifecycle},
	{"AppendEventDefaultsTimesFromEvent", testAppendEventDefaultsTimesFromEvent},
	{"AppendEventIsAtomic", testAppendEventIsAtomic},
	{"AppendEventsBatchesAreAtomicApart", testAppendEventsBatchesAreAtomicApart},
	{"CountMessages", testCountMessages},
	{"AppendEventSeqConflictMessage", testAppendEventSeqConflictMessage},
	{"ListEvents", testListEvents},
	{"GateLifecycle", testGateLifecycle},
	{"TaskAndSessionRoundTrip", testTaskAndSessionRoundTrip},
	{"TaskGateDeadlineRoundTrip", testTaskGateDeadlineRoundTrip},
	{"TaskOnUsageLimitRoundTrip", testTaskOnUsageLimitRoundTrip},
	{"ListTasksNewestFirst", testListTasksNewestFirst},
	{"CreateErrors", testCreateErrors},
	{"GetMissingIsErrNotFound", testGetMissingIsErrNotFound},
	{"ExecutionRoundTrip", testExecutionRoundTrip},
	{"PendingRetryLifecycle", testPendingRetryLifecycle},
	{"TimesRoundTripExactly", testTimesRoundTripExactly},
	{"DeleteMessageScrubsTheLog", testDeleteMessageScrubsTheLog},
	{"ListTaskPageWalksEveryTaskInOrder", testListTaskPageWalksEveryTaskInOrder},
	{"PagesWalkInOrderWithinBudget", testPagesWalkInOrderWithinBudget},
	{"UpdateTaskArchivesAndRenames", testUpdateTaskArchivesAndRenames},
	{"DeleteTaskRemovesEverythingOfItsOwn", testDeleteTaskRemovesEverythingOfItsOwn},
	{"SessionModelSurvivesEventsAndReopen", testSessionModelSurvivesEventsAndReopen},
}

// base is a non-UTC time with nanoseconds, to prove times round-trip
// exactly and come back in UTC.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))

// at is base plus n seconds, in UTC (the form the store returns).
func at(n int) time.Time { return base.Add(time.Duration(n) * time.Second).UTC() }

func newTask(id string, n int) store.Task {
	return store.Task{
		ID: id, Title: "task " + id, Agent: "mock", Workdir: "/work/" + id,
		MaxAttempts: n % 4, State: store.TaskTodo, CreatedAt: at(n), UpdatedAt: at(n),
	}
}

func newSession(id, taskID string, n int) store.Session {
	return store.Session{ID: id, TaskID: taskID, State: store.SessionCreated, CreatedAt: at(n), UpdatedAt: at(n)}
}

// seed creates a task with one session.
func seed(t testing.TB, db Store, taskID, sessionID string) (store.Task, store.Session) {
	t.Helper()
	task, sess := newTask(taskID, 0), newSession(sessionID, taskID, 0)
	require.NoError(t, db.CreateTask(t.Context(), task, sess))
	return task, sess
}

func event(sessionID string, seq int64, typ string, payload any) store.Event {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return store.Event{SessionID: sessionID, Seq: seq, Type: typ, Payload: b, At: at(int(seq))}
}
