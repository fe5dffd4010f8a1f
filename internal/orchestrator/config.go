package orchestrator

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Store is the durable state the orchestrator needs; *store.DB satisfies it.
type Store interface {
	CreateTask(ctx context.Context, t store.Task, s store.Session) error
	GetTask(ctx context.Context, id string) (store.Task, error)
	ListTaskPage(ctx context.Context, limit int, cursor string) ([]store.TaskWithSessions, string, error)
	GetSession(ctx context.Context, id string) (store.Session, error)
	ListSessions(ctx context.Context, taskID string) ([]store.Session, error)
	ListAllSessions(ctx context.Context) ([]store.Session, error)
	AppendEvent(ctx context.Context, w store.EventWrite) error
	// Batches of events, each atomic, in one transaction (emitAllLocked).
	AppendEvents(ctx context.Context, batches ...[]store.EventWrite) []error
	ListMessages(ctx context.Context, sessionID string) ([]store.Message, error)
	GetMessage(ctx context.Context, id string) (store.Message, error)
	CountMessages(ctx context.Context, sessionID, role, text string) (int, error)
	ListEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]store.Event, error)
	// Bounded by bytes (snapshot pages, replays).
	ListMessagesPage(ctx context.Context, sessionID string, p store.MessagePage) ([]store.Message, bool, error)
	ListEventsUpTo(ctx context.Context, sessionID string, afterSeq int64, maxBytes int) ([]store.Event, bool, error)
	SealMessages(ctx context.Context, ids ...string) error
	SaveExecution(ctx context.Context, e store.Execution) error
	SaveGate(ctx context.Context, g store.Gate) error
	DeleteGate(ctx context.Context, key string) error
	ListGates(ctx context.Context) ([]store.Gate, error)
	SavePendingRetry(ctx context.Context, r store.PendingRetry) error
	DeletePendingRetry(ctx context.Context, sessionID string) error
	ListPendingRetries(ctx context.Context) ([]store.PendingRetry, error)
	// Task management (taskedit.go).
	UpdateTask(ctx context.Context, t store.Task) error
	DeleteTask(ctx context.Context, id string) error
	// SetSessionModel records the model a session's agent reported (model.go).
	SetSessionModel(ctx context.Context, sessionID, model string) error
}

// Execution is one live agent process run; *lifecycle.Execution satisfies it.
type Execution interface {
	AgentSessionID() string
	Resumed() bool
	ReplayedUserPrompts() []string
	Prompt(ctx context.Context, text string) (lifecycle.PromptResult, error)
	Close() error
}

// Agents launches executions.
type Agents interface {
	Start(ctx context.Context, req lifecycle.StartRequest) (Execution, error)
}

// LifecycleAgents adapts a lifecycle.Manager to Agents.
func LifecycleAgents(m *lifecycle.Manager) Agents { return lifecycleAgents{m} }

type lifecycleAgents struct{ m *lifecycle.Manager }

func (a lifecycleAgents) Start(ctx context.Context, req lifecycle.StartRequest) (Execution, error) {
	e, err := a.m.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Config of a Service. Zero values mean the documented default.
type Config struct {
	Store  Store  // required
	Agents Agents // required
	// Profiles are the launchable agents by name; required, non-empty.
	Profiles map[string]lifecycle.Profile
	// DefaultAgent is used when task.create names none; default "mock".
	DefaultAgent string
	// DataDir holds per-task work directories (DataDir/workspaces/<task>); required.
	DataDir string
	Clock   quartz.Clock // default: the real clock
	Logger  *zap.Logger  // default: no-op
	// Policy is the retry policy (schedules, budgets, jitter, scale).
	Policy routingerr.PolicyConfig
	// Overload configures the provider overload gates (threshold, window,
	// probe backoff, release window, deadline); zero values are the
	// defaults, and the gates are on unless Overload.Disabled.
	Overload overload.Config
	// Rand is the jitter source in [0,1) of retries and gate releases; default math/rand.
	Rand func() float64
	// Metrics receives counters; default: unregistered (discarded).
	Metrics *Metrics
	// Continuation is sent instead of the failed prompt when the resumed agent
	// already holds it in its history; default a short "continue" request.
	Continuation string
	// FlushInterval is how long streamed text may wait in memory before it
	// is written and published (stream.go); default DefaultFlushInterval.
	FlushInterval time.Duration
	// FlushClock times those flushes; default the real clock, also when
	// Clock is a test's mock: it paces I/O, not anything a user schedules,
	// and a frozen mock clock would hold every reply until its turn ends.
	FlushClock quartz.Clock
	// MaxAgents bounds the agent processes alive at once; a turn needing
	// another waits in line (queue.go). 0: unbounded.
	MaxAgents int
	// SubscriberBuffer bounds each subscription; default 1024.
	SubscriberBuffer int
	// SnapshotPageBytes bounds one page of a session snapshot (and a
	// replay bounds its events at four pages, else it is a snapshot);
	// default 256 KiB. A page holds at least one message, however large.
	SnapshotPageBytes int
	// IdleTimeout stops a session's agent process after this long without a
	// turn (the next prompt resumes its agent session with session/load);
	// default 15m, negative keeps processes until shutdown.
	IdleTimeout time.Duration
	// SilenceNotice and SilenceLimit are the defaults of the agent profiles'
	// silence_notice and silence_limit (silence.go); 0 means
	// DefaultSilenceNotice / DefaultSilenceLimit, negative turns it off.
	SilenceNotice time.Duration
	SilenceLimit  time.Duration
	// Attention hears of banners, finished turns and parked retries
	// (attention.go), e.g. for webhooks; nil: nobody.
	Attention AttentionSink
	// Usage configures waiting out usage windows and long hints
	// (usage_config.go); zero values are the defaults.
	Usage UsageConfig
	// FleetGates makes every overload gate the fleet's (gate_fleet.go):
	// daemons sharing a PostgreSQL database send one probe per key between
	// them and all release their waiters when it succeeds. Nil: each gate
	// is this daemon's own (SQLite).
	FleetGates FleetGates
	// FleetGateSync is how often the gates are brought in step with the
	// fleet's besides when something changes (a NOTIFY, a gate opening or
	// closing here); default DefaultFleetGateSync (1s). It also renews the
	// probe right, so keep it well under the FleetGates' TTL.
	FleetGateSync time.Duration
	// Fleet is this daemon's session ownership in a fleet of daemons on
	// one PostgreSQL database (fleet.go); nil: a daemon alone, owning
	// every session.
	Fleet Fleet
}

// DefaultSnapshotPageBytes is Config.SnapshotPageBytes's default.
const DefaultSnapshotPageBytes = 256 << 10

// DefaultIdleTimeout is Config.IdleTimeout's default.
const DefaultIdleTimeout = 15 * time.Minute

// daemonContinuation replaces the continuation after a daemon stop or crash.
const daemonContinuation = "Your previous response was interrupted because the orchestrator daemon stopped and restarted. Please continue where you left off."

const defaultContinuation = "Your previous response was interrupted by a provider error. Please continue where you left off."

func (c *Config) validate() error {
	switch {
	case c.Store == nil:
		return fmt.Errorf("orchestrator: Config.Store is required")
	case c.Agents == nil:
		return fmt.Errorf("orchestrator: Config.Agents is required")
	case len(c.Profiles) == 0:
		return fmt.Errorf("orchestrator: Config.Profiles is empty")
	case c.DataDir == "" || !filepath.IsAbs(c.DataDir):
		return fmt.Errorf("orchestrator: Config.DataDir must be an absolute path, got %q", c.DataDir)
	}
	if c.DefaultAgent == "" {
		c.DefaultAgent = "mock"
	}
	if _, ok := c.Profiles[c.DefaultAgent]; !ok {
		return fmt.Errorf("orchestrator: default agent %q has no profile", c.DefaultAgent)
	}
	if err := ValidateFallbacks(c.Profiles); err != nil {
		return err
	}
	if c.Clock == nil {
		c.Clock = quartz.NewReal()
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.FlushInterval <= 0 {
		c.FlushInterval = DefaultFlushInterval
	}
	if c.FlushClock == nil {
		c.FlushClock = quartz.NewReal()
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.SnapshotPageBytes <= 0 {
		c.SnapshotPageBytes = DefaultSnapshotPageBytes
	}
	if c.SilenceNotice == 0 {
		c.SilenceNotice = DefaultSilenceNotice
	}
	if c.SilenceLimit == 0 {
		c.SilenceLimit = DefaultSilenceLimit
	}
	if c.Continuation == "" {
		c.Continuation = defaultContinuation
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics(nil)
	}
	return nil
}
