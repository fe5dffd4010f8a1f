package lifecycle

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orchestratord/orchestratord/internal/mockagent"
)

// The test binary doubles as the agent: with envMockAgent set it runs the
// real mock agent on stdin/stdout instead of the tests, so these tests do
// not depend on cmd/ compiling.
const (
	envMockAgent  = "LIFECYCLE_TEST_MOCK_AGENT"
	envNoLoad     = "LIFECYCLE_TEST_NO_LOAD"
	envBrokenLoad = "LIFECYCLE_TEST_BROKEN_LOAD"
	envLateReplay = "LIFECYCLE_TEST_LATE_REPLAY" // replay goes on after the load's answer, as Gemini CLI does
	envGrandchild = "LIFECYCLE_TEST_GRANDCHILD"  // spawn a SIGTERM-ignoring child holding our pipes
	envIgnoreTerm = "LIFECYCLE_TEST_IGNORE_TERM" // the agent itself ignores SIGTERM
	envSleeper    = "LIFECYCLE_TEST_SLEEPER"
	envLogAtExit  = "LIFECYCLE_TEST_LOG_AT_EXIT" // the agent holds its stderr until SIGTERM, as Gemini CLI does
	envStateDir   = "ORCHESTRATORD_MOCK_STATE_DIR"
	envModels     = "LIFECYCLE_TEST_MODELS" // mockagent.Config.Models
	envTaskID     = "ORCHESTRATORD_TASK_ID"
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envSleeper) == "1":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Minute)
		os.Exit(0)
	case os.Getenv(envMockAgent) == "1":
		os.Exit(runMockAgent())
	}
	goleak.VerifyTestMain(m)
}

func runMockAgent() int {
	if os.Getenv(envIgnoreTerm) == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv(envGrandchild) == "1" {
		exe, _ := os.Executable()
		c := exec.Command(exe)
		c.Env = append(os.Environ(), envSleeper+"=1", envMockAgent+"=0")
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			return 3
		}
	}
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	var sink zapcore.WriteSyncer = zapcore.Lock(os.Stderr)
	if os.Getenv(envLogAtExit) == "1" {
		held := &heldLog{}
		sink = zapcore.Lock(zapcore.AddSync(held))
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		go func() {
			<-term
			held.flush()
			os.Exit(0)
		}()
		defer held.flush() // stdin EOF ends the agent too
	}
	log := zap.New(zapcore.NewCore(enc, sink, zapcore.InfoLevel))
	err := mockagent.Run(context.Background(), os.Stdin, os.Stdout, mockagent.Config{
		StateDir:      os.Getenv(envStateDir),
		NoLoadSession: os.Getenv(envNoLoad) == "1",
		BrokenLoad:    os.Getenv(envBrokenLoad) == "1",
		LateReplay:    os.Getenv(envLateReplay) == "1",
		Models:        os.Getenv(envModels),
		Logger:        log,
	})
	if errors.Is(err, mockagent.ErrCrash) {
		return 1
	}
	if err != nil {
		return 2
	}
	return 0
}

// heldLog keeps an agent's log until it exits.
type heldLog struct {
	mu  sync.Mutex // guards buf
	buf []byte
}

func (h *heldLog) flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, _ = os.Stderr.Write(h.buf)
	h.buf = nil
}

func (h *heldLog) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf = append(h.buf, p...)
	return len(p), nil
}

// testTimeout bounds every Start and Prompt so a bug fails instead of hanging.
const testTimeout = 20 * time.Second

func newTestManager(t *testing.T) *Manager {
	t.Helper()
	m, err := NewManager(Config{KillGrace: time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("manager close: %v", err)
		}
	})
	return m
}

// mockProfile runs this test binary as the mock agent with its own state dir.
func mockProfile(t *testing.T, stateDir string, env ...string) Profile {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := Profile{Name: "mock", Command: exe, Env: map[string]string{envMockAgent: "1", envStateDir: stateDir}}
	for i := 0; i+1 < len(env); i += 2 {
		p.Env[env[i]] = env[i+1]
	}
	return p
}

// recorder collects OnEvent calls.
type recorder struct {
	mu     sync.Mutex // guards events
	events []Event
}

func (r *recorder) on(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func messageText(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == EventAgentMessage {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

type agentOpts struct {
	stateDir string
	taskID   string
	resume   string
	env      []string
	model    string // Profile.Model
	onEvent  func(Event)
}

func startAgent(t *testing.T, m *Manager, o agentOpts) (*Execution, *recorder) {
	t.Helper()
	e, rec, err := tryStart(t, m, o)
	if err != nil {
		t.Fatalf("start: %v (%+v)", err, evidenceOf(err))
	}
	return e, rec
}

func tryStart(t *testing.T, m *Manager, o agentOpts) (*Execution, *recorder, error) {
	t.Helper()
	if o.stateDir == "" {
		o.stateDir = t.TempDir()
	}
	if o.taskID == "" {
		o.taskID = "task-" + strings.ReplaceAll(t.Name(), "/", "-")
	}
	rec := &recorder{}
	on := rec.on
	if o.onEvent != nil {
		on = func(ev Event) { rec.on(ev); o.onEvent(ev) }
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	profile := mockProfile(t, o.stateDir, o.env...)
	profile.Model = o.model
	e, err := m.Start(ctx, StartRequest{
		Profile:         profile,
		Workdir:         t.TempDir(),
		Env:             map[string]string{envTaskID: o.taskID},
		ResumeSessionID: o.resume,
		OnEvent:         on,
	})
	if err == nil {
		t.Cleanup(func() { _ = e.Close() })
	}
	return e, rec, err
}

func prompt(t *testing.T, e *Execution, text string) (PromptResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return e.Prompt(ctx, text)
}

func mustFail(t *testing.T, err error) *FailureError {
	t.Helper()
	fe, ok := AsFailure(err)
	if !ok {
		t.Fatalf("want *FailureError, got %v", err)
	}
	return fe
}

func evidenceOf(err error) any {
	if fe, ok := AsFailure(err); ok {
		return fe.Evidence
	}
	return nil
}

// groupMembers lists the live (non-zombie) processes of a process group.
// kill(-pgid, 0) cannot be used: it also succeeds for zombies, which a
// container's PID 1 may never reap.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// requireGroupGone waits until the group has no live member. Close has
// SIGKILLed the group by then, but only the leader is ours to reap: a
// grandchild can stay visible for a moment while the kernel finishes it.
func requireGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		left := groupMembers(t, pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has live members %v", pgid, left)
		}
		<-tick.C
	}
}
