package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
)

// The test binary doubles as the real mock ACP agent, so every test drives a
// real agent process over stdio.
const mockAgentEnv = "ORCHESTRATOR_TEST_MOCK_AGENT"

func TestMain(m *testing.M) {
	if os.Getenv(mockAgentEnv) == "1" {
		err := mockagent.Run(context.Background(), os.Stdin, os.Stdout, mockagent.Config{StateDir: os.Getenv("MOCK_STATE_DIR"),
			NoLoadSession: os.Getenv("MOCK_NO_LOAD") == "1", BrokenLoad: os.Getenv("MOCK_BROKEN_LOAD") == "1",
			Model:  os.Getenv("MOCK_MODEL"),
			Models: os.Getenv("MOCK_MODELS")})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// pgtest.Main checks for leaked goroutines as goleak.VerifyTestMain
	// does, and stops the PostgreSQL of the fleet tests (gate_fleet_test.go).
	os.Exit(pgtest.Main(m))
}

// waitLong bounds real-time waits on agent processes; retry delays never use it.
const waitLong = 20 * time.Second

type harness struct {
	t        *testing.T
	ctx      context.Context
	clock    *quartz.Mock
	db       *store.DB
	mgr      *lifecycle.Manager
	svc      *Service
	dataDir  string
	stateDir string
	traps    []*quartz.Trap
}

type harnessOpt func(*Config)

func newHarness(t *testing.T, opts ...harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, dataDir: t.TempDir(), stateDir: t.TempDir(), clock: quartz.NewMock(t).WithLogger(quietClock{})}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	h.ctx = ctx
	db, err := store.Open(ctx, h.dataDir)
	require.NoError(t, err)
	h.db = db
	t.Cleanup(func() { _ = db.Close() })
	h.start(opts...)
	return h
}

func (h *harness) profiles() map[string]lifecycle.Profile {
	self, err := os.Executable()
	require.NoError(h.t, err)
	env := map[string]string{mockAgentEnv: "1", "MOCK_STATE_DIR": h.stateDir}
	noLoad := map[string]string{mockAgentEnv: "1", "MOCK_STATE_DIR": h.stateDir, "MOCK_NO_LOAD": "1"}
	brokenLoad := map[string]string{mockAgentEnv: "1", "MOCK_STATE_DIR": h.stateDir, "MOCK_BROKEN_LOAD": "1"}
	return map[string]lifecycle.Profile{
		"mock":             {Name: "mock", Command: self, Env: env},
		"mock-no-load":     {Name: "mock-no-load", Command: self, Env: noLoad},
		"mock-broken-load": {Name: "mock-broken-load", Command: self, Env: brokenLoad},
	}
}

// start (re)creates the manager and service on the same store.
func (h *harness) start(opts ...harnessOpt) {
	h.t.Helper()
	mgr, err := lifecycle.NewManager(lifecycle.Config{KillGrace: 2 * time.Second})
	require.NoError(h.t, err)
	cfg := Config{
		Store: h.db, Agents: LifecycleAgents(mgr), Profiles: h.profiles(), DataDir: h.dataDir,
		Clock: h.clock, Rand: func() float64 { return 0 },
		Policy: routingerr.PolicyConfig{},
		// The silence watch's timers would stand in the way of tests that
		// advance the clock past them; silence_test.go turns it on.
		SilenceNotice: -1, SilenceLimit: -1,
	}
	for _, o := range opts {
		o(&cfg)
	}
	svc, err := New(cfg)
	require.NoError(h.t, err)
	h.mgr, h.svc = mgr, svc
	h.t.Cleanup(h.stop)
}

// trapAfterFunc and trapNewTimer set traps that stop closes first: a test
// that fails while a call is caught must end with its message, not hang in
// Close on the goroutine the trap holds.
func (h *harness) trapAfterFunc(tag string) *quartz.Trap {
	tr := h.clock.Trap().AfterFunc(tag)
	h.traps = append(h.traps, tr)
	return tr
}

func (h *harness) trapNewTimer(tag string) *quartz.Trap {
	tr := h.clock.Trap().NewTimer(tag)
	h.traps = append(h.traps, tr)
	return tr
}

// within receives from ch, failing the test after waitLong: a wait that
// cannot end would hang the package instead of saying what never came.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLong):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// sendWithin sends v on ch, failing the test after waitLong.
func sendWithin[T any](t *testing.T, ch chan<- T, v T, what string) {
	t.Helper()
	select {
	case ch <- v:
	case <-time.After(waitLong):
		t.Fatalf("timed out handing over %s", what)
	}
}

// closeHung bounds stop's wait on the service: a hang fails the test with
// every goroutine's stack instead of stalling the package until its timeout.
const closeHung = time.Minute

// stop closes the service and its agents (idempotent).
func (h *harness) stop() {
	if h.t.Failed() {
		// A passing test closes its own traps, and may want them after a restart.
		for _, tr := range h.traps {
			tr.Close()
		}
		h.traps = nil
	}
	if h.svc == nil {
		return
	}
	closed := make(chan error, 1)
	go func() { closed <- h.svc.Close() }()
	select {
	case err := <-closed:
		require.NoError(h.t, err)
	case <-time.After(closeHung):
		var stacks strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
		h.t.Fatalf("service Close still waiting after %s; goroutines:\n%s", closeHung, stacks.String())
	}
	require.NoError(h.t, h.mgr.Close())
}

// feed collects a session's notifications from seq 0.
type feed struct {
	h   *harness
	sub *Subscription
	all []Notification
}

func (h *harness) create(prompt string, maxAttempts *int) (TaskView, *feed) {
	h.t.Helper()
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: prompt, Agent: "mock", MaxAttempts: maxAttempts})
	require.NoError(h.t, err)
	return v, h.follow(v.Sessions[0].ID, 0)
}

func (h *harness) follow(sessionID string, after int64) *feed {
	h.t.Helper()
	res, sub, err := h.svc.SubscribeSession(h.ctx, SubscribeRequest{SessionID: sessionID, AfterSeq: &after}, 100000)
	require.NoError(h.t, err)
	h.t.Cleanup(sub.Close)
	f := &feed{h: h, sub: sub}
	f.all = append(f.all, res.Events...)
	return f
}

// note is a decoded notification payload.
type note struct {
	Action     string
	Seq        int64          `json:"seq"`
	State      string         `json:"state"`
	StopReason string         `json:"stop_reason"`
	MessageID  string         `json:"message_id"`
	Delta      string         `json:"delta"`
	Message    *store.Message `json:"message"`
	raw        json.RawMessage
}

func decode(n Notification) note {
	var x note
	_ = json.Unmarshal(n.Payload, &x)
	x.Action, x.raw = n.Action, n.Payload
	return x
}

// until reads notifications (replayed ones first) until match returns true.
func (f *feed) until(match func(note) bool) note {
	f.h.t.Helper()
	for i := range f.all {
		if n := decode(f.all[i]); match(n) {
			f.all = f.all[i+1:]
			return n
		}
	}
	f.all = nil
	deadline := time.After(waitLong)
	for {
		select {
		case n := <-f.sub.C():
			if x := decode(n); match(x) {
				return x
			}
		case <-deadline:
			f.h.t.Fatalf("timed out waiting for a notification")
			return note{}
		}
	}
}

func isState(s string) func(note) bool {
	return func(n note) bool { return n.Action == "session.state_changed" && n.State == s }
}

func isTurnDone(n note) bool { return n.Action == "session.turn.completed" }

func isNotice(n note) bool {
	return n.Message != nil && n.Message.Metadata["kind"] == kindRetryNotice &&
		(n.Action == "session.message.added" || n.Action == "session.message.updated")
}

func isBanner(n note) bool {
	return n.Action == "session.message.added" && n.Message != nil && n.Message.Metadata["kind"] == kindRecovery
}

// messages returns the session's current messages from the store.
func (h *harness) messages(sessionID string) []store.Message {
	h.t.Helper()
	msgs, err := h.db.ListMessages(h.ctx, sessionID)
	require.NoError(h.t, err)
	return msgs
}

func byRole(msgs []store.Message, role string) []store.Message {
	var out []store.Message
	for _, m := range msgs {
		if m.Role == role {
			out = append(out, m)
		}
	}
	return out
}

func (h *harness) pending(sessionID string) (store.PendingRetry, bool) {
	h.t.Helper()
	rows, err := h.db.ListPendingRetries(h.ctx)
	require.NoError(h.t, err)
	for _, r := range rows {
		if r.SessionID == sessionID {
			return r, true
		}
	}
	return store.PendingRetry{}, false
}

// armedAt is when the session's retry timer fires, if one is armed.
func (h *harness) armedAt(sessionID string) (time.Time, bool) {
	d := h.svc.dueTimers
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range d.heap {
		if e.p.rec.SessionID == sessionID {
			return time.Unix(0, e.at), true
		}
	}
	return time.Time{}, false
}

func intp(v int) *int { return &v }

func errIs(t *testing.T, err, target error) {
	t.Helper()
	require.Error(t, err)
	require.True(t, errors.Is(err, target), fmt.Sprintf("want %v, got %v", target, err))
}

// agentPrompts are the user prompts the mock agent holds in its own history.
func (h *harness) agentPrompts(sessionID string) []string {
	h.t.Helper()
	sess, err := h.db.GetSession(h.ctx, sessionID)
	require.NoError(h.t, err)
	prompts, err := mockagent.UserPrompts(h.stateDir, sess.AgentSessionID)
	require.NoError(h.t, err)
	return prompts
}

// quietClock drops the mock clock's per-call logging.
type quietClock struct{}

func (quietClock) Log(...any)          {}
func (quietClock) Logf(string, ...any) {}
