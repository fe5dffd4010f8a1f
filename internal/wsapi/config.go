package wsapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// Service is what wsapi needs from the orchestrator; *orchestrator.Service
// satisfies it. Errors must wrap one of the orchestrator sentinels (ErrNotFound,
// ErrValidation, ErrConflict, ErrForbidden, ErrClosed) to reach the client
// with their text; anything else is logged and reported as INTERNAL_ERROR.
type Service interface {
	CreateTask(ctx context.Context, req orchestrator.CreateTaskRequest) (orchestrator.TaskView, error)
	ListTasks(ctx context.Context, req orchestrator.ListTasksRequest) (orchestrator.TaskPage, error)
	GetTask(ctx context.Context, id string) (orchestrator.TaskView, error)
	// UpdateTask renames, marks done, archives a task (task.update).
	UpdateTask(ctx context.Context, req orchestrator.UpdateTaskRequest) (orchestrator.TaskView, error)
	// DeleteTask removes a task (task.delete); task.deleted follows.
	DeleteTask(ctx context.Context, req orchestrator.DeleteTaskRequest) (orchestrator.DeleteTaskResult, error)
	Prompt(ctx context.Context, req orchestrator.PromptRequest) error
	StopTurn(ctx context.Context, req orchestrator.StopRequest) error
	Recover(ctx context.Context, req orchestrator.RecoverRequest) error
	Agents() []orchestrator.AgentInfo
	// Gates lists the provider overload gates.
	Gates() orchestrator.GateList
	// SubscribeSession returns the snapshot or replay, then a feed of every
	// later event of the session (seq > result.LastSeq), in order.
	SubscribeSession(ctx context.Context, req orchestrator.SubscribeRequest, buffer int) (orchestrator.SubscribeResult, *orchestrator.Subscription, error)
	// SnapshotPage puts the next page of a snapshot into sub, the
	// connection's subscription to the session.
	SnapshotPage(ctx context.Context, req orchestrator.PageRequest, sub *orchestrator.Subscription) error
	// SubscribeTasks feeds task.updated for every task and gate.updated
	// for every overload gate.
	SubscribeTasks(buffer int) *orchestrator.Subscription
}

// feed is an *orchestrator.Subscription as the connection uses it. The
// indirection exists for tests: a Subscription cannot be built outside its
// package, so a fake Service also implements feedSource.
type feed interface {
	C() <-chan orchestrator.Notification
	Overflowed() <-chan struct{}
	Done() <-chan struct{}
	Close()
}

// feedSource opens subscriptions. Only types in this package can implement
// it (unexported methods), so in production it is always serviceFeeds.
type feedSource interface {
	subscribeSession(ctx context.Context, req orchestrator.SubscribeRequest, buffer int) (orchestrator.SubscribeResult, feed, error)
	subscribeTasks(buffer int) feed
	snapshotPage(ctx context.Context, req orchestrator.PageRequest, f feed) error
}

// serviceFeeds adapts Service's concrete *Subscription results to feed,
// keeping a nil pointer from turning into a non-nil interface.
type serviceFeeds struct{ svc Service }

func (f serviceFeeds) subscribeSession(ctx context.Context, req orchestrator.SubscribeRequest, buffer int) (orchestrator.SubscribeResult, feed, error) {
	res, sub, err := f.svc.SubscribeSession(ctx, req, buffer)
	if err != nil {
		if sub != nil {
			sub.Close()
		}
		return res, nil, err
	}
	if sub == nil {
		return res, nil, errors.New("orchestrator returned no subscription")
	}
	return res, sub, nil
}

func (f serviceFeeds) snapshotPage(ctx context.Context, req orchestrator.PageRequest, fd feed) error {
	sub, _ := fd.(*orchestrator.Subscription)
	return f.svc.SnapshotPage(ctx, req, sub)
}

func (f serviceFeeds) subscribeTasks(buffer int) feed {
	if sub := f.svc.SubscribeTasks(buffer); sub != nil {
		return sub
	}
	return nil
}

// Config configures a Server. The zero value of every optional field means
// its default.
type Config struct {
	// Service handles every request. Required.
	Service Service
	// Token is the access token, compared in constant time. Required.
	Token string
	// Logger defaults to zap.NewNop().
	Logger *zap.Logger
	// OriginPatterns are extra allowed Origin hosts for /ws, in the syntax of
	// websocket.AcceptOptions.OriginPatterns ("example.com", "*.example.com",
	// "https://ui.example.com"). The page's own host is always allowed, and
	// so is a request without an Origin header (a non-browser client).
	OriginPatterns []string
	// ReadLimit is the largest request frame handled. Default 1 MiB.
	ReadLimit int64
	// HardReadLimit is the largest frame drained and answered with
	// BAD_REQUEST; beyond it the connection is closed with 1009.
	// Default 16×ReadLimit.
	HardReadLimit int64
	// SubscriberBuffer bounds each orchestrator subscription and each
	// connection's outbound queue, in frames. Default 1024.
	SubscriberBuffer int
	// MaxQueueBytes bounds each connection's outbound queue in bytes (a
	// frame being written counts until it is written); a client over it is
	// closed with 1008 and resumes with after_seq. A single frame larger
	// than the bound still goes out when the queue is empty. Default 4 MiB.
	MaxQueueBytes int
	// WriteTimeout bounds every frame write. Default 10s.
	WriteTimeout time.Duration
	// RequestTimeout bounds one Service call. Default 30s.
	RequestTimeout time.Duration
	// RateLimit is the sustained requests per second per connection, with
	// bursts of RateBurst; excess requests get RATE_LIMITED. Default 50/s
	// with bursts of 100; a negative RateLimit disables the limit.
	RateLimit float64
	RateBurst int
	// Static is the web page, served at / without auth (it holds no data).
	// Nil serves 404 there.
	Static fs.FS
	// AllowedHosts are the Host header names accepted besides IP literals,
	// "localhost" and *.localhost (the defence against DNS rebinding):
	// exact names, "*.example.com" for its subdomains, "*" for any. Default
	// none.
	AllowedHosts []string
	// Health reports whether the store can write, for /healthz. Nil: always
	// healthy.
	Health func() StoreHealth
	// Fleet lists the daemons of this daemon's fleet, for fleet.list: a
	// *fleet.Registry on PostgreSQL, a *fleet.Local (just this daemon) on
	// SQLite. Nil: fleet.list answers UNAVAILABLE.
	Fleet fleet.Lister
	// Remote reaches the sessions other daemons of the fleet run (see
	// Remote). Nil: every session is this daemon's.
	Remote Remote
}

// StoreHealth is the store's write health as /healthz shows it.
type StoreHealth struct {
	Writable bool `json:"writable"`
	// LastError is the last failed write's error and ErrorAt its time; set
	// while Writable is false (and kept after, for the record).
	LastError string     `json:"last_error,omitempty"`
	ErrorAt   *time.Time `json:"error_at,omitempty"`
	// Failures counts failed writes since the store last wrote successfully.
	Failures int64 `json:"failures,omitempty"`
}

// Defaults.
const (
	DefaultReadLimit        = 1 << 20
	DefaultSubscriberBuffer = 1024
	DefaultMaxQueueBytes    = 4 << 20
	DefaultWriteTimeout     = 10 * time.Second
	DefaultRequestTimeout   = 30 * time.Second
	DefaultRateLimit        = 50
	DefaultRateBurst        = 100
)

// ConfigError reports an invalid Config.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("wsapi: config %s: %s", e.Field, e.Reason) }

// withDefaults validates c and fills in defaults.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Service == nil:
		return c, &ConfigError{"Service", "is required"}
	case c.Token == "":
		return c, &ConfigError{"Token", "is required"}
	case c.ReadLimit < 0:
		return c, &ConfigError{"ReadLimit", "must not be negative"}
	case c.HardReadLimit < 0:
		return c, &ConfigError{"HardReadLimit", "must not be negative"}
	case c.SubscriberBuffer < 0:
		return c, &ConfigError{"SubscriberBuffer", "must not be negative"}
	case c.MaxQueueBytes < 0:
		return c, &ConfigError{"MaxQueueBytes", "must not be negative"}
	case c.WriteTimeout < 0:
		return c, &ConfigError{"WriteTimeout", "must not be negative"}
	case c.RequestTimeout < 0:
		return c, &ConfigError{"RequestTimeout", "must not be negative"}
	case c.RateBurst < 0:
		return c, &ConfigError{"RateBurst", "must not be negative"}
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.ReadLimit == 0 {
		c.ReadLimit = DefaultReadLimit
	}
	if c.HardReadLimit == 0 {
		c.HardReadLimit = 16 * c.ReadLimit
	}
	if c.HardReadLimit < c.ReadLimit {
		return c, &ConfigError{"HardReadLimit", "must be at least ReadLimit"}
	}
	if c.SubscriberBuffer == 0 {
		c.SubscriberBuffer = DefaultSubscriberBuffer
	}
	if c.MaxQueueBytes == 0 {
		c.MaxQueueBytes = DefaultMaxQueueBytes
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.RateLimit == 0 {
		c.RateLimit = DefaultRateLimit
	}
	if c.RateBurst == 0 {
		c.RateBurst = DefaultRateBurst
	}
	return c, nil
}
