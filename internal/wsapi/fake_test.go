package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/store"
)

const testToken = "s3cret-token"

// fakeFeed mimics orchestrator.Subscription: bounded, never blocking.
type fakeFeed struct {
	c        chan orchestrator.Notification
	overflow chan struct{}
	done     chan struct{}
	ovOnce   sync.Once
	doneOnce sync.Once
}

func newFakeFeed() *fakeFeed {
	// A generous buffer, so tests of the connection's own queue are not
	// pre-empted by the feed overflowing.
	return &fakeFeed{c: make(chan orchestrator.Notification, 4096), overflow: make(chan struct{}), done: make(chan struct{})}
}

func (f *fakeFeed) C() <-chan orchestrator.Notification { return f.c }
func (f *fakeFeed) Overflowed() <-chan struct{}         { return f.overflow }
func (f *fakeFeed) Done() <-chan struct{}               { return f.done }
func (f *fakeFeed) Close()                              { f.doneOnce.Do(func() { close(f.done) }) }
func (f *fakeFeed) cut()                                { f.ovOnce.Do(func() { close(f.overflow) }) }

func (f *fakeFeed) closed() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *fakeFeed) publish(n orchestrator.Notification) {
	if f.closed() {
		return
	}
	select {
	case f.c <- n:
	default:
		f.cut()
	}
}

// fakeService implements Service, and feedSource so subscriptions are fakeFeeds.
type fakeService struct {
	mu           sync.Mutex // guards every field below
	tasks        map[string]orchestrator.TaskView
	sessionTask  map[string]string // session id → task id
	taskFeeds    []*fakeFeed
	sessionFeeds map[string][]*fakeFeed
	prompts      []orchestrator.PromptRequest
	created      []orchestrator.CreateTaskRequest
	err          error // returned by Prompt/StopTurn/Recover when set
	snapshotText int   // bytes of the snapshot's one message (a big session)
	pageSize     int   // bytes of the message of each session.page
	lastList     orchestrator.ListTasksRequest
}

func newFakeService() *fakeService {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return &fakeService{
		tasks: map[string]orchestrator.TaskView{
			"t1": {Task: store.Task{ID: "t1", Title: "first", Agent: "mock", State: store.TaskInProgress, CreatedAt: now, UpdatedAt: now},
				Sessions: []store.Session{{ID: "s1", TaskID: "t1", State: store.SessionRunning, LastSeq: 3}}},
			"t2": {Task: store.Task{ID: "t2", Title: "second", Agent: "mock", State: store.TaskReview, CreatedAt: now, UpdatedAt: now},
				Sessions: []store.Session{{ID: "s2", TaskID: "t2", State: store.SessionCompleted, LastSeq: 7}}},
		},
		sessionTask:  map[string]string{"s1": "t1", "s2": "t2"},
		sessionFeeds: map[string][]*fakeFeed{},
	}
}

func (f *fakeService) CreateTask(_ context.Context, req orchestrator.CreateTaskRequest) (orchestrator.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if req.Agent == "nope" {
		return orchestrator.TaskView{}, fmt.Errorf("%w: unknown agent %q", orchestrator.ErrValidation, req.Agent)
	}
	f.created = append(f.created, req)
	id := fmt.Sprintf("t%d", len(f.tasks)+1)
	v := orchestrator.TaskView{Task: store.Task{ID: id, Title: req.Title, Agent: req.Agent, State: store.TaskTodo, GateDeadline: req.GateDeadline},
		GateDeadlineSeconds: req.GateDeadline.Seconds(),
		Sessions:            []store.Session{{ID: "s" + id, TaskID: id, State: store.SessionCreated}}}
	f.tasks[id] = v
	f.sessionTask["s"+id] = id
	return v, nil
}

func (f *fakeService) ListTasks(_ context.Context, req orchestrator.ListTasksRequest) (orchestrator.TaskPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := orchestrator.TaskPage{Tasks: make([]orchestrator.TaskView, 0, len(f.tasks))}
	ids := []string{"t1", "t2"}
	if req.Cursor == "t1" {
		ids = ids[1:]
	} else if req.Limit == 1 {
		ids, out.NextCursor = ids[:1], "t1"
	}
	for _, id := range ids {
		out.Tasks = append(out.Tasks, f.tasks[id])
	}
	f.lastList = req
	return out, nil
}

func (f *fakeService) GetTask(_ context.Context, id string) (orchestrator.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id == "boom" {
		return orchestrator.TaskView{}, errors.New("sqlite: disk I/O error at /secret/path")
	}
	v, ok := f.tasks[id]
	if !ok {
		return orchestrator.TaskView{}, fmt.Errorf("%w: task %q", orchestrator.ErrNotFound, id)
	}
	return v, nil
}

func (f *fakeService) UpdateTask(_ context.Context, req orchestrator.UpdateTaskRequest) (orchestrator.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.tasks[req.TaskID]
	if !ok {
		return orchestrator.TaskView{}, fmt.Errorf("%w: task %q", orchestrator.ErrNotFound, req.TaskID)
	}
	if req.Title != nil {
		v.Title = *req.Title
	}
	if req.Done != nil && *req.Done {
		if v.State == store.TaskInProgress {
			return orchestrator.TaskView{}, fmt.Errorf("%w: the task is still working", orchestrator.ErrConflict)
		}
		v.State = store.TaskDone
	}
	f.tasks[req.TaskID] = v
	return v, nil
}

func (f *fakeService) DeleteTask(_ context.Context, req orchestrator.DeleteTaskRequest) (orchestrator.DeleteTaskResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.tasks[req.TaskID]
	if !ok {
		return orchestrator.DeleteTaskResult{}, fmt.Errorf("%w: task %q", orchestrator.ErrNotFound, req.TaskID)
	}
	delete(f.tasks, req.TaskID)
	return orchestrator.DeleteTaskResult{TaskID: v.ID, Workdir: v.Workdir}, nil
}

// checkSession mirrors the orchestrator's ownership rule.
func (f *fakeService) checkSession(taskID, sessionID string) error {
	owner, ok := f.sessionTask[sessionID]
	switch {
	case !ok:
		return fmt.Errorf("%w: session %q", orchestrator.ErrNotFound, sessionID)
	case taskID != "" && owner != taskID:
		return fmt.Errorf("%w: session %q does not belong to task %q", orchestrator.ErrForbidden, sessionID, taskID)
	}
	return nil
}

func (f *fakeService) Prompt(_ context.Context, req orchestrator.PromptRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkSession(req.TaskID, req.SessionID); err != nil {
		return err
	}
	f.prompts = append(f.prompts, req)
	return f.err
}

func (f *fakeService) StopTurn(_ context.Context, req orchestrator.StopRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkSession(req.TaskID, req.SessionID); err != nil {
		return err
	}
	return f.err
}

func (f *fakeService) Recover(_ context.Context, req orchestrator.RecoverRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkSession(req.TaskID, req.SessionID); err != nil {
		return err
	}
	return f.err
}

func (f *fakeService) Agents() []orchestrator.AgentInfo {
	return []orchestrator.AgentInfo{{Name: "mock", Command: "orchestratord", Available: true, Default: true}}
}

func (f *fakeService) Gates() orchestrator.GateList {
	next := time.Date(2025, 1, 2, 3, 5, 0, 0, time.UTC)
	return orchestrator.GateList{Enabled: true, Threshold: 3, WindowSeconds: 30, DeadlineSecs: 1800,
		Gates: []orchestrator.GateInfo{{Snapshot: overload.Snapshot{Key: "mock", State: overload.Open, NextProbeAt: &next,
			FailedProbes: 2, ProbesSent: 2, Waiting: 37}, FailureCode: "overloaded"}}}
}

// The concrete-typed subscribe methods are never called: feedSource wins.
func (f *fakeService) SubscribeSession(context.Context, orchestrator.SubscribeRequest, int) (orchestrator.SubscribeResult, *orchestrator.Subscription, error) {
	panic("fakeService.SubscribeSession: feedSource should be used")
}

func (f *fakeService) SubscribeTasks(int) *orchestrator.Subscription {
	panic("fakeService.SubscribeTasks: feedSource should be used")
}

func (f *fakeService) subscribeSession(_ context.Context, req orchestrator.SubscribeRequest, _ int) (orchestrator.SubscribeResult, feed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkSession(req.TaskID, req.SessionID); err != nil {
		return orchestrator.SubscribeResult{}, nil, err
	}
	v := f.tasks[f.sessionTask[req.SessionID]]
	res := orchestrator.SubscribeResult{Task: v.Task, Session: v.Sessions[0], LastSeq: v.Sessions[0].LastSeq}
	if req.AfterSeq == nil {
		text := "hello"
		if f.snapshotText > 0 {
			text = strings.Repeat("y", f.snapshotText)
		}
		res.Messages = []store.Message{{ID: "m1", SessionID: req.SessionID, Seq: 1, Role: "user", Text: text}}
	}
	ff := newFakeFeed()
	f.sessionFeeds[req.SessionID] = append(f.sessionFeeds[req.SessionID], ff)
	return res, ff, nil
}

func (f *fakeService) SnapshotPage(context.Context, orchestrator.PageRequest, *orchestrator.Subscription) error {
	panic("fakeService.SnapshotPage: feedSource should be used")
}

// snapshotPage answers with one page of pageSize bytes, then no more.
func (f *fakeService) snapshotPage(_ context.Context, req orchestrator.PageRequest, fd feed) error {
	f.mu.Lock()
	size := f.pageSize
	f.mu.Unlock()
	page := orchestrator.Page{SessionID: req.SessionID, AsOfSeq: 3,
		Messages: []store.Message{{ID: "p-" + req.Cursor, SessionID: req.SessionID, Seq: 2, Role: "agent", Text: strings.Repeat("x", size)}}}
	b, err := json.Marshal(page)
	if err != nil {
		return err
	}
	fd.(*fakeFeed).publish(orchestrator.Notification{Action: "session.page", Payload: b})
	return nil
}

func (f *fakeService) subscribeTasks(int) feed {
	f.mu.Lock()
	defer f.mu.Unlock()
	ff := newFakeFeed()
	f.taskFeeds = append(f.taskFeeds, ff)
	return ff
}

// sessionFeed returns the i-th feed opened for a session.
func (f *fakeService) sessionFeed(t *testing.T, sessionID string, i int) *fakeFeed {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	feeds := f.sessionFeeds[sessionID]
	require.Greater(t, len(feeds), i, "feed %d of session %s", i, sessionID)
	return feeds[i]
}

func (f *fakeService) allFeeds() []*fakeFeed {
	f.mu.Lock()
	defer f.mu.Unlock()
	all := append([]*fakeFeed(nil), f.taskFeeds...)
	for _, fs := range f.sessionFeeds {
		all = append(all, fs...)
	}
	return all
}

// testEnv is a Server behind a real HTTP listener.
type testEnv struct {
	srv  *Server
	http *httptest.Server
	svc  *fakeService
}

func newTestEnv(t *testing.T, mutate func(*Config)) *testEnv {
	t.Helper()
	svc := newFakeService()
	cfg := Config{
		Service: svc,
		Token:   testToken,
		Static:  fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>t</title>")}},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		hs.Close()
	})
	return &testEnv{srv: srv, http: hs, svc: svc}
}

func (e *testEnv) wsURL(query string) string {
	return "ws" + strings.TrimPrefix(e.http.URL, "http") + "/ws" + query
}

// client is a test WebSocket client.
type client struct {
	t  *testing.T
	ws *websocket.Conn
	n  int
}

func (e *testEnv) dial(t *testing.T) *client {
	t.Helper()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+testToken)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, e.wsURL(""), &websocket.DialOptions{HTTPHeader: h})
	require.NoError(t, err)
	if resp.Body != nil {
		_ = resp.Body.Close()
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { _ = ws.CloseNow() })
	return &client{t: t, ws: ws}
}

func (c *client) writeText(s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(c.t, c.ws.Write(ctx, websocket.MessageText, []byte(s)))
}

// read returns the next envelope; it fails the test on a close or timeout.
func (c *client) read() Envelope {
	c.t.Helper()
	env, err := c.tryRead()
	require.NoError(c.t, err)
	return env
}

func (c *client) tryRead() (Envelope, error) { return c.tryReadWithin(5 * time.Second) }

func (c *client) tryReadWithin(d time.Duration) (Envelope, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	typ, b, err := c.ws.Read(ctx)
	if err != nil {
		return Envelope{}, err
	}
	require.Equal(c.t, websocket.MessageText, typ)
	var env Envelope
	require.NoError(c.t, json.Unmarshal(b, &env), "frame %s", b)
	require.False(c.t, env.TS.IsZero(), "ts missing in %s", b)
	return env, nil
}

// call sends a request with a fresh id and returns the reply envelope.
func (c *client) call(action string, payload any) Envelope {
	c.t.Helper()
	c.n++
	id := fmt.Sprintf("r%d", c.n)
	msg := map[string]any{"id": id, "type": "request", "action": action}
	if payload != nil {
		msg["payload"] = payload
	}
	b, err := json.Marshal(msg)
	require.NoError(c.t, err)
	c.writeText(string(b))
	env := c.read()
	require.Equal(c.t, id, env.ID, "reply %+v", env)
	require.Equal(c.t, action, env.Action)
	return env
}

// ok asserts a response and decodes its payload into dst (if non-nil).
func (c *client) ok(env Envelope, dst any) {
	c.t.Helper()
	require.Equal(c.t, TypeResponse, env.Type, "payload %s", env.Payload)
	if dst != nil {
		require.NoError(c.t, json.Unmarshal(env.Payload, dst))
	}
}

// errorOf asserts an error envelope and returns its payload.
func (c *client) errorOf(env Envelope, code string) Error {
	c.t.Helper()
	require.Equal(c.t, TypeError, env.Type, "payload %s", env.Payload)
	var e Error
	require.NoError(c.t, json.Unmarshal(env.Payload, &e))
	require.Equal(c.t, code, e.Code, "message %q", e.Message)
	require.NotEmpty(c.t, e.Message)
	return e
}

// healthy proves the connection still answers.
func (c *client) healthy() {
	c.t.Helper()
	var out struct {
		Agents []orchestrator.AgentInfo `json:"agents"`
	}
	c.ok(c.call(ActionAgentList, nil), &out)
	require.Len(c.t, out.Agents, 1)
}

// expectClose reads until the connection closes and returns its status.
func (c *client) expectClose() websocket.CloseError {
	c.t.Helper()
	return c.expectCloseWithin(5 * time.Second)
}

// expectCloseWithin is expectClose with a longer wait for each frame: a
// close that follows a stalled write may wait out the daemon's write
// timeout on a loaded machine.
func (c *client) expectCloseWithin(d time.Duration) websocket.CloseError {
	c.t.Helper()
	for {
		_, err := c.tryReadWithin(d)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		require.ErrorAs(c.t, err, &ce, "want a close frame, got %v", err)
		return ce
	}
}
