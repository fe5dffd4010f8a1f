package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

const (
	defaultKillGrace       = 3 * time.Second
	defaultStderrTailBytes = 16 << 10
)

// Manager owns every agent process it starts: Close reaps them all.
type Manager struct {
	cfg Config
	log *zap.Logger
	// ctx is the parent of every execution's lifetime, so nothing an
	// execution starts can outlive the manager.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex // guards live, closed, noLoad
	live   map[*Execution]struct{}
	closed bool
	noLoad map[string]bool // profiles whose session/load failed: they cannot resume
}

// NewManager validates cfg and applies its defaults.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.KillGrace < 0 {
		return nil, fmt.Errorf("lifecycle: KillGrace must not be negative, got %s", cfg.KillGrace)
	}
	if cfg.StderrTailBytes < 0 {
		return nil, fmt.Errorf("lifecycle: StderrTailBytes must not be negative, got %d", cfg.StderrTailBytes)
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = defaultKillGrace
	}
	if cfg.StderrTailBytes == 0 {
		cfg.StderrTailBytes = defaultStderrTailBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{
		cfg:    cfg,
		log:    cfg.Logger,
		ctx:    ctx,
		cancel: cancel,
		live:   make(map[*Execution]struct{}),
	}, nil
}

// Start launches an execution. ctx bounds only the start-up handshake
// (initialize and session/new or session/load); the process outlives it.
//
// Errors: a caller mistake (relative Workdir) is a plain error, ErrClosed
// after Close; everything about the agent itself is a *FailureError with
// Phase process_start (not found, exec failed, bad permission setting) or
// session_init (initialize, session/new failed).
func (m *Manager) Start(ctx context.Context, req StartRequest) (*Execution, error) {
	if !filepath.IsAbs(req.Workdir) {
		return nil, fmt.Errorf("lifecycle: workdir must be an absolute path, got %q", req.Workdir)
	}
	startFailure := func(err error) error {
		return &FailureError{Evidence: routingerr.Evidence{
			Agent: req.Profile.Name, Phase: routingerr.PhaseProcessStart, Err: err.Error(),
		}}
	}
	switch req.Profile.Permission {
	case "":
		req.Profile.Permission = PermissionAllow
	case PermissionAllow, PermissionReject:
	default:
		return nil, startFailure(fmt.Errorf("agent profile %q: permission must be %q or %q, got %q",
			req.Profile.Name, PermissionAllow, PermissionReject, req.Profile.Permission))
	}
	path, err := resolveCommand(req.Profile.Command)
	if err != nil {
		return nil, startFailure(err)
	}
	// exec reports a failed chdir as "fork/exec <agent>: no such file…",
	// which blames the executable; say what is actually missing.
	if err := checkDir(processDir(req)); err != nil {
		return nil, startFailure(err)
	}
	if m.isClosed() {
		return nil, ErrClosed
	}
	e, err := m.launch(req, path)
	if err != nil {
		return nil, startFailure(fmt.Errorf("start agent %q: %w", req.Profile.Command, err))
	}
	if !m.track(e) {
		_ = e.Close()
		return nil, ErrClosed
	}
	if err := e.handshake(ctx, req); err != nil {
		_ = e.Close()
		if m.isClosed() {
			return nil, ErrClosed
		}
		return nil, err
	}
	m.log.Info("agent started", zap.String("agent", req.Profile.Name), zap.Int("pid", e.proc.pid),
		zap.String("agent_session_id", e.sessionID), zap.Bool("resumed", e.resumed))
	return e, nil
}

// Close tears down every live execution in parallel and waits for them. Idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	live := slices.Collect(maps.Keys(m.live))
	m.mu.Unlock()

	var wg sync.WaitGroup
	errs := make([]error, len(live))
	for i, e := range live {
		wg.Go(func() { errs[i] = e.Close() })
	}
	wg.Wait()
	m.cancel()
	return errors.Join(errs...)
}

func (m *Manager) noteLoadBroken(profile string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.noLoad == nil {
		m.noLoad = make(map[string]bool)
	}
	m.noLoad[profile] = true
}

func (m *Manager) loadBroken(profile string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.noLoad[profile]
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

func (m *Manager) track(e *Execution) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.live[e] = struct{}{}
	return true
}

func (m *Manager) forget(e *Execution) {
	m.mu.Lock()
	delete(m.live, e)
	m.mu.Unlock()
}

func processDir(req StartRequest) string {
	if req.Profile.Cwd != "" {
		return req.Profile.Cwd
	}
	return req.Workdir
}

func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("agent working directory %q: %w", dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("agent working directory %q is not a directory", dir)
	}
	return nil
}

// daemonEnvPrefix names the daemon's own variables (its flags, among them
// ORCHESTRATORD_TOKEN): an agent never inherits them.
const daemonEnvPrefix = "ORCHESTRATORD_"

// processEnv is os.Environ without the daemon's own variables, then the
// profile's env, then the request's: later entries win (os/exec keeps the
// last duplicate). A profile or request may still set an ORCHESTRATORD_
// variable on purpose (the task and session ids).
func processEnv(req StartRequest) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, daemonEnvPrefix) })
	for _, m := range []map[string]string{req.Profile.Env, req.Env} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			env = append(env, k+"="+m[k])
		}
	}
	return env
}
