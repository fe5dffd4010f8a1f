package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Service is the orchestrator. Create it with New, call Start once, and
// Close it to stop every timer and turn it started.
type Service struct {
	cfg    Config
	store  Store
	log    *zap.Logger
	policy *routingerr.Policy

	ctx    context.Context // cancelled by Close; parent of every turn
	cancel context.CancelFunc
	wg     sync.WaitGroup // every turn goroutine and timer callback

	mu       sync.RWMutex // guards closed and sessions; read-locked on the timers' paths
	closed   bool
	sessions map[string]*sessionRT

	tasks fanout // task.updated and gate.updated subscribers

	gate  gateOwner // provider overload gates (gate.go)
	fleet fleetSync // fleet mode of the gates (gate_fleet.go)

	usage     usageOwner // usage windows (usagewindow.go)
	due       dueQueue   // retries due, for one claim transaction per round (retrydue.go)
	dueTimers *dueTimers // their timers, one per instant (duetimers.go)

	slots agentSlots // live agent processes and their line (queue.go)

	fallback fallbackOwner // fallback profiles' bookkeeping (fallback.go)

	remote remoteFeeds // the fleet's relay, for released sessions' subscribers (lease.go)
}

// New validates cfg and builds a Service; nothing runs until Start.
func New(cfg Config) (*Service, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := cfg.Policy.Validate(); err != nil {
		return nil, fmt.Errorf("orchestrator: retry policy: %w", err)
	}
	if err := cfg.Overload.Validate(); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	if err := cfg.Usage.Validate(); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{
		cfg:      cfg,
		store:    cfg.Store,
		log:      cfg.Logger,
		policy:   routingerr.NewPolicy(cfg.Policy, cfg.Rand),
		ctx:      ctx,
		cancel:   cancel,
		sessions: make(map[string]*sessionRT),
		slots:    agentSlots{max: max(cfg.MaxAgents, 0)},
		gate: gateOwner{cfg: cfg.Overload.WithDefaults(), rand: orRand(cfg.Rand),
			gates: make(map[string]*gateRT)},
		usage: newUsageOwner(cfg.Usage, orRand(cfg.Rand)),
	}
	s.gate.releases = newReleases(cfg.Clock, "gate-release", s.onGateRelease)
	s.usage.releases = newReleases(cfg.Clock, "usage-release", s.onUsageRelease)
	s.dueTimers = newDueTimers(cfg.Clock, s.fire)
	return s, nil
}

func orRand(f func() float64) func() float64 {
	if f == nil {
		return rand.Float64
	}
	return f
}

// storeCtx is for writes that must complete even while shutting down, so a
// half-finished turn is recorded rather than lost.
func (s *Service) storeCtx() context.Context { return context.WithoutCancel(s.ctx) }

func (s *Service) now() time.Time { return s.cfg.Clock.Now().UTC() }

// enter registers work that Close must wait for; false once closing.
func (s *Service) enter() bool {
	s.mu.RLock() // thousands of timers fire at once; Close takes it exclusively
	defer s.mu.RUnlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Service) leave() { s.wg.Done() }

// goTurn runs f as owned work; false when the service is closing.
func (s *Service) goTurn(f func()) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return false
	}
	s.wg.Go(f)
	return true
}

// Close disarms every timer, cancels every turn and waits for all of them.
// Pending retries stay persisted and are re-armed by the next Start.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	rts := make([]*sessionRT, 0, len(s.sessions))
	for _, rt := range s.sessions {
		rts = append(rts, rt)
	}
	s.mu.Unlock()

	for _, rt := range rts {
		rt.mu.Lock()
		if rt.retry != nil {
			s.stopTimersLocked(rt.retry)
		}
		s.stopIdleLocked(rt)
		s.stopReconcileLocked(rt)
		if rt.stream != nil && rt.stream.timer != nil {
			rt.stream.timer.Stop()
			rt.stream.timer = nil
		}
		rt.mu.Unlock()
	}
	s.closeGates()
	s.closeUsage()
	s.cancel()
	s.wg.Wait()
	// Agent processes end in parallel: each Close may wait out a kill
	// grace, and a thousand idle agents one after another took longer
	// than --shutdown-timeout.
	var ends sync.WaitGroup
	for _, rt := range rts {
		rt.mu.Lock()
		_ = s.flushBufferLocked(rt) // whatever a timer would have written
		ex := rt.exec
		rt.exec = nil
		rt.subs.closeAll()
		rt.mu.Unlock()
		if ex != nil {
			ends.Go(func() { _ = ex.Close() })
		}
	}
	ends.Wait()
	s.tasks.closeAll()
	return nil
}

// Agents lists the launchable profiles.
func (s *Service) Agents() []AgentInfo {
	out := make([]AgentInfo, 0, len(s.cfg.Profiles))
	for name, p := range s.cfg.Profiles {
		path, err := lifecycle.ResolveCommand(p.Command)
		out = append(out, AgentInfo{Name: name, Command: p.Command, Installed: err == nil, Path: path,
			Available: err == nil, Default: name == s.cfg.DefaultAgent, Model: p.Model})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// maxPromptBytes bounds one prompt; larger input is refused, not truncated.
const maxPromptBytes = 256 << 10

func validatePrompt(text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("%w: prompt is empty", ErrValidation)
	}
	if len(text) > maxPromptBytes {
		return fmt.Errorf("%w: prompt is %d bytes; the limit is %d", ErrValidation, len(text), maxPromptBytes)
	}
	return nil
}

// CreateTask stores a task with its session and starts the first turn.
func (s *Service) CreateTask(ctx context.Context, req CreateTaskRequest) (TaskView, error) {
	if err := validatePrompt(req.Prompt); err != nil {
		return TaskView{}, err
	}
	agent := req.Agent
	if agent == "" {
		agent = s.cfg.DefaultAgent
	}
	if _, ok := s.cfg.Profiles[agent]; !ok && s.cfg.Fleet == nil {
		return TaskView{}, fmt.Errorf("%w: unknown agent %q (known: %s)", ErrValidation, agent, strings.Join(s.profileNames(), ", "))
	}
	maxAttempts := 0
	if req.MaxAttempts != nil {
		if *req.MaxAttempts < 1 || *req.MaxAttempts > 100 {
			return TaskView{}, fmt.Errorf("%w: max_attempts must be between 1 and 100, got %d", ErrValidation, *req.MaxAttempts)
		}
		maxAttempts = *req.MaxAttempts
	}
	if err := validateGateDeadline(req.GateDeadline); err != nil {
		return TaskView{}, err
	}
	if err := validateOnUsageLimit(req.OnUsageLimit); err != nil {
		return TaskView{}, err
	}
	title := routingerr.Sanitize(strings.TrimSpace(req.Title))
	if title == "" {
		title = defaultTitle(routingerr.Sanitize(req.Prompt)) // sanitised whole: a cut key would not look like one
	}
	if len(title) > 200 {
		return TaskView{}, fmt.Errorf("%w: title is longer than 200 bytes", ErrValidation)
	}
	target, err := s.placeTask(ctx, agent, req.Daemon)
	if err != nil {
		return TaskView{}, err
	}
	if _, ok := s.cfg.Profiles[agent]; !ok && target == "" {
		return TaskView{}, fmt.Errorf("%w: unknown agent %q (known: %s)", ErrValidation, agent, strings.Join(s.profileNames(), ", "))
	}
	id := uuid.NewString()
	if target != "" {
		now := s.now()
		return s.createPlaced(ctx, target, store.Task{ID: id, Title: title, Agent: agent, Workdir: req.Workdir, MaxAttempts: maxAttempts,
			GateDeadline: req.GateDeadline, OnUsageLimit: req.OnUsageLimit, State: store.TaskTodo, CreatedAt: now, UpdatedAt: now},
			store.Session{ID: uuid.NewString(), TaskID: id, State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}, req.Prompt)
	}
	workdir := req.Workdir
	ownDir := "" // the workspace created here, removed again if the task is not saved
	if workdir != "" {
		var err error
		if workdir, err = checkWorkdir(workdir); err != nil {
			return TaskView{}, err
		}
	} else {
		workdir = filepath.Join(s.cfg.DataDir, "workspaces", id)
		if err := os.MkdirAll(workdir, 0o700); err != nil {
			return TaskView{}, fmt.Errorf("create task workdir: %w", err)
		}
		ownDir = workdir
	}
	now := s.now()
	task := store.Task{ID: id, Title: title, Agent: agent, Workdir: workdir, MaxAttempts: maxAttempts,
		GateDeadline: req.GateDeadline, OnUsageLimit: req.OnUsageLimit, State: store.TaskTodo, CreatedAt: now, UpdatedAt: now}
	sess := store.Session{ID: uuid.NewString(), TaskID: id, State: store.SessionCreated, CreatedAt: now, UpdatedAt: now}
	unpin, err := s.claimNew(ctx, sess.ID)
	if err != nil {
		if ownDir != "" {
			_ = os.Remove(ownDir)
		}
		return TaskView{}, err
	}
	defer unpin()
	if err := s.store.CreateTask(ctx, task, sess); err != nil {
		if ownDir != "" {
			_ = os.Remove(ownDir) // empty: nothing ran in it yet
		}
		return TaskView{}, fmt.Errorf("save task: %w", storageErr(err))
	}
	rt := s.install(task, sess)
	s.log.Info("task created", zap.String("task_id", id), zap.String("session_id", sess.ID), zap.String("agent", agent))
	var view TaskView
	if err := s.startUserTurnView(rt, req.Prompt, &view); err != nil {
		return TaskView{}, err
	}
	return view, nil
}

// checkWorkdir validates a user-chosen work directory: an absolute path
// (a leading ~/ is the daemon user's home) to an existing directory. The
// error is a *FieldError naming "workdir".
func checkWorkdir(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if rest, ok := strings.CutPrefix(dir, "~/"); ok || dir == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(dir) {
		return "", &FieldError{Field: "workdir", Reason: "not_absolute",
			Msg: fmt.Sprintf("workdir must be an absolute path (like /home/you/project), got %q", dir)}
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", &FieldError{Field: "workdir", Reason: "not_found", Msg: fmt.Sprintf("workdir %q does not exist on the daemon's machine", dir)}
	case err != nil:
		return "", &FieldError{Field: "workdir", Reason: "unreadable", Msg: fmt.Sprintf("workdir %q cannot be read by the daemon", dir)}
	case !st.IsDir():
		return "", &FieldError{Field: "workdir", Reason: "not_directory", Msg: fmt.Sprintf("workdir %q is a file, not a directory", dir)}
	}
	return dir, nil
}

func defaultTitle(prompt string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(prompt), "\n", 2)[0])
	if r := []rune(line); len(r) > 60 {
		line = string(r[:60]) + "…"
	}
	return line
}

func (s *Service) profileNames() []string {
	names := make([]string, 0, len(s.cfg.Profiles))
	for n := range s.cfg.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ListTasks returns a page of tasks, newest first, each with its sessions,
// in one store query however many tasks there are.
func (s *Service) ListTasks(ctx context.Context, req ListTasksRequest) (TaskPage, error) {
	if req.Limit < 0 || req.Limit > MaxTaskPage {
		return TaskPage{}, fmt.Errorf("%w: limit must be between 1 and %d, got %d", ErrValidation, MaxTaskPage, req.Limit)
	}
	rows, next, err := s.store.ListTaskPage(ctx, req.Limit, req.Cursor)
	if errors.Is(err, store.ErrInvalid) {
		return TaskPage{}, fmt.Errorf("%w: cursor %q is not one task.list handed out", ErrValidation, req.Cursor)
	}
	if err != nil {
		return TaskPage{}, fmt.Errorf("list tasks: %w", err)
	}
	out := TaskPage{Tasks: make([]TaskView, 0, len(rows)), NextCursor: next}
	var pos map[*sessionRT]int
	if s.slots.waiting() {
		pos = s.slots.positions()
	}
	for _, r := range rows {
		v := s.viewModel(newTaskView(r.Task, r.Sessions))
		if n := len(r.Sessions); n > 0 {
			if rt := s.loaded(r.Sessions[n-1].ID); rt != nil {
				if pos != nil {
					v.QueuePosition = pos[rt]
				}
				rt.mu.Lock()
				v.Paused = pausedLocked(rt)
				rt.mu.Unlock()
			}
		}
		out.Tasks = append(out.Tasks, v)
	}
	s.remoteMarks(ctx, out.Tasks) // of tasks other daemons of the fleet run
	return out, nil
}

// GetTask returns one task with its sessions.
func (s *Service) GetTask(ctx context.Context, id string) (TaskView, error) {
	if id == "" {
		return TaskView{}, fmt.Errorf("%w: task_id is required", ErrValidation)
	}
	task, err := s.store.GetTask(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return TaskView{}, fmt.Errorf("%w: task %q", ErrNotFound, id)
	}
	if err != nil {
		return TaskView{}, fmt.Errorf("get task: %w", err)
	}
	sessions, err := s.store.ListSessions(ctx, id)
	if err != nil {
		return TaskView{}, fmt.Errorf("list sessions: %w", err)
	}
	vs := []TaskView{s.viewModel(newTaskView(task, sessions))}
	if n := len(sessions); n > 0 {
		if rt := s.loaded(sessions[n-1].ID); rt != nil {
			vs[0].QueuePosition = s.slots.position(rt)
			rt.mu.Lock()
			vs[0].Paused = pausedLocked(rt)
			rt.mu.Unlock()
		}
	}
	s.remoteMarks(ctx, vs)
	return vs[0], nil
}

// SubscribeTasks feeds task.updated notifications for every task, and
// gate.updated for every overload gate.
func (s *Service) SubscribeTasks(buffer int) *Subscription {
	sub := newSubscription(buffer)
	s.tasks.add(sub)
	return sub
}
