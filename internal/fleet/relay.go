package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// The relay's channels besides postgres.EventsChannel (migration 0005).
const (
	commandsChannel = "orchestratord_commands" // "<target daemon> <command id>"
	answersChannel  = "orchestratord_answers"  // "<origin daemon> <command id>"
)

// EventReader reads a session's events after a seq; the PostgreSQL store
// satisfies it.
type EventReader interface {
	ListEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]store.Event, error)
}

// RelayConfig configures a Relay.
type RelayConfig struct {
	Pool   *pgxpool.Pool // the store's pool; required. The listener dials its own connection with the pool's settings.
	Self   string        // this daemon's id; required
	Events EventReader   // required
	// Execute runs a command another daemon forwarded to this one, for a
	// session this one owns. Nil: forwarded commands are answered with an
	// error.
	Execute Executor
	// TaskChanged is called (from the relay's reader, one task at a time)
	// for every task whose row or session state another daemon — or this
	// one — changed (postgres.TasksChannel). Nil: task changes are not
	// followed.
	TaskChanged func(ctx context.Context, taskID string) error
	// CommandTimeout bounds how long Send waits for the owner to take a
	// command; past it the command is withdrawn (ErrOwnerUnavailable).
	// Default DefaultCommandTimeout.
	CommandTimeout time.Duration
	Clock          quartz.Clock // backoffs and command timeouts; default real
	Logger         *zap.Logger
}

// DefaultCommandTimeout is RelayConfig.CommandTimeout's default: an owner
// answers a command in milliseconds; ten seconds is a daemon that is gone.
const DefaultCommandTimeout = 10 * time.Second

// eventBatch is how many events one read of the relay takes.
const eventBatch = 500

// Relay carries a fleet's traffic between daemons through the database
// (DESIGN §7): the events of sessions another daemon runs, to this
// daemon's subscribers (Watch), and session commands to the daemon that
// owns the session (Send, and the execution of the commands sent here).
// NOTIFY is only the wake-up; the data is always read from the tables, so
// a notification lost while the listening connection reconnects costs a
// catch-up read, never an event.
type Relay struct {
	cfg    RelayConfig
	listen listener
	ctx    context.Context // cancelled by Close; parent of every goroutine's work
	cancel context.CancelFunc
	wg     sync.WaitGroup // the listener, the event reader, command executions
	wake   chan struct{}  // capacity 1: dirty has sessions

	mu      sync.Mutex // guards watch, dirty, waiters, started, closed
	watch   map[string]map[*watcher]struct{}
	dirty   map[string]struct{} // watched sessions with events to read
	tasks   map[string]struct{} // tasks changed, for TaskChanged
	waiters map[string]chan struct{}
	started bool
	closed  bool
}

// watcher is one Watch: deliver gets every event after after, in order.
type watcher struct {
	after   int64 // guarded by Relay.mu
	deliver func(store.Event) bool
}

// NewRelay checks cfg; nothing runs until Start.
func NewRelay(cfg RelayConfig) (*Relay, error) {
	switch {
	case cfg.Pool == nil:
		return nil, errors.New("fleet: relay: a pool is required")
	case cfg.Self == "":
		return nil, errors.New("fleet: relay: the daemon id is required")
	case cfg.Events == nil:
		return nil, errors.New("fleet: relay: an event reader is required")
	case cfg.CommandTimeout < 0:
		return nil, fmt.Errorf("fleet: relay: negative command timeout %v", cfg.CommandTimeout)
	}
	if cfg.CommandTimeout == 0 {
		cfg.CommandTimeout = DefaultCommandTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = quartz.NewReal()
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Relay{cfg: cfg, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		watch: map[string]map[*watcher]struct{}{}, dirty: map[string]struct{}{}, tasks: map[string]struct{}{}, waiters: map[string]chan struct{}{}}
	connCfg := cfg.Pool.Config().ConnConfig.Copy()
	channels := []string{postgres.EventsChannel, commandsChannel, answersChannel}
	if cfg.TaskChanged != nil {
		channels = append(channels, postgres.TasksChannel)
	}
	r.listen = listener{
		connect:   func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, connCfg) },
		channels:  channels,
		handle:    r.handle,
		connected: r.caughtUp,
		clock:     cfg.Clock,
		log:       cfg.Logger,
	}
	return r, nil
}

// Start opens the listening connection (its error is returned: a daemon
// that cannot listen would show other daemons' sessions frozen) and starts
// the relay's goroutines; then it runs the commands sent here while it was
// not listening.
func (r *Relay) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started || r.closed {
		return errors.New("fleet: relay already started or closed")
	}
	conn, err := r.listen.open(ctx)
	if err != nil {
		return err
	}
	r.started = true
	r.wg.Go(func() { r.listen.run(r.ctx, conn) })
	r.wg.Go(r.readLoop)
	r.wg.Go(func() {
		r.sweepCommands()
		r.runPending()
	})
	return nil
}

// Close stops listening and waits for every goroutine of the relay; each
// Watch's deliver is never called after. Safe to call twice.
func (r *Relay) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	return nil
}

// handle is the listener's: one notification.
func (r *Relay) handle(channel, payload string) {
	switch channel {
	case postgres.EventsChannel:
		sid, seq, err := postgres.ParseEventNotification(payload)
		if err != nil {
			r.cfg.Logger.Debug("fleet relay: bad event notification", zap.Error(err))
			return
		}
		r.notified(sid, seq)
	case commandsChannel:
		if target, id, ok := splitNotice(payload); ok && target == r.cfg.Self {
			r.wg.Go(func() { r.runCommand(id) })
		}
	case postgres.TasksChannel:
		if payload != "" {
			r.mu.Lock()
			r.tasks[payload] = struct{}{}
			r.mu.Unlock()
			r.poke()
		}
	case answersChannel:
		if origin, id, ok := splitNotice(payload); ok && origin == r.cfg.Self {
			r.answered(id)
		}
	}
}

// caughtUp runs after the listener reconnected: notifications sent while
// it was away are lost, so every watched session is read again from the
// tables, every command waiting for an answer looks at its row, and the
// commands sent here meanwhile run.
func (r *Relay) caughtUp() {
	r.mu.Lock()
	for sid := range r.watch {
		r.dirty[sid] = struct{}{}
	}
	for _, w := range r.waiters {
		select {
		case w <- struct{}{}:
		default:
		}
	}
	r.mu.Unlock()
	r.poke()
	r.wg.Go(r.runPending)
}

// Watch feeds deliver every event of sessionID after seq after, in seq
// order, read from the events table whenever the session's writer — any
// daemon — notifies. It reads at once too, so the events written between
// a snapshot at after and the Watch are delivered. deliver must not
// block; when it returns false the watch ends. stop ends it too (safe to
// call twice); deliver is never called after stop returns.
func (r *Relay) Watch(sessionID string, after int64, deliver func(store.Event) bool) (stop func()) {
	w := &watcher{after: after, deliver: deliver}
	r.mu.Lock()
	set := r.watch[sessionID]
	if set == nil {
		set = map[*watcher]struct{}{}
		r.watch[sessionID] = set
	}
	set[w] = struct{}{}
	r.dirty[sessionID] = struct{}{}
	r.mu.Unlock()
	r.poke()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.unwatchLocked(sessionID, w)
	}
}

func (r *Relay) unwatchLocked(sessionID string, w *watcher) {
	set := r.watch[sessionID]
	delete(set, w)
	if len(set) == 0 {
		delete(r.watch, sessionID)
		delete(r.dirty, sessionID)
	}
}

// notified: the session's events are written up to seq.
func (r *Relay) notified(sessionID string, seq int64) {
	r.mu.Lock()
	behind := false
	for w := range r.watch[sessionID] {
		if w.after < seq {
			behind = true
			break
		}
	}
	if behind {
		r.dirty[sessionID] = struct{}{}
	}
	r.mu.Unlock()
	if behind {
		r.poke()
	}
}

func (r *Relay) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// readLoop reads the events of dirty sessions and delivers them, one
// session after another, until Close. A failed read is retried after a
// second (the listener's reconnect catches up as well).
func (r *Relay) readLoop() {
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-r.wake:
		}
		if !r.ReadDirty(r.ctx) {
			t := r.cfg.Clock.NewTimer(time.Second, "fleet", "relay-retry")
			select {
			case <-r.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			r.poke()
		}
	}
}

// ReadDirty reads and delivers the events of every session notified since
// the last call, and passes on the tasks changed (readLoop's step, exported
// for tests); false when a read failed, its session staying dirty.
func (r *Relay) ReadDirty(ctx context.Context) bool {
	r.mu.Lock()
	sids := make([]string, 0, len(r.dirty))
	for sid := range r.dirty {
		sids = append(sids, sid)
	}
	clear(r.dirty)
	tasks := make([]string, 0, len(r.tasks))
	for id := range r.tasks {
		tasks = append(tasks, id)
	}
	clear(r.tasks)
	r.mu.Unlock()
	for _, id := range tasks {
		if err := r.cfg.TaskChanged(ctx, id); err != nil && ctx.Err() == nil {
			r.cfg.Logger.Debug("fleet relay: a changed task could not be published", zap.String("task_id", id), zap.Error(err))
		}
	}
	ok := true
	for _, sid := range sids {
		if err := r.readSession(ctx, sid); err != nil {
			if ctx.Err() == nil {
				r.cfg.Logger.Warn("fleet relay: reading a session's events failed; retrying", zap.String("session_id", sid), zap.Error(err))
			}
			r.mu.Lock()
			if _, watched := r.watch[sid]; watched {
				r.dirty[sid] = struct{}{}
			}
			r.mu.Unlock()
			ok = false
		}
	}
	return ok
}

// readSession delivers the session's events after its least advanced
// watcher, a batch at a time.
func (r *Relay) readSession(ctx context.Context, sid string) error {
	for {
		r.mu.Lock()
		from, found := int64(0), false
		for w := range r.watch[sid] {
			if !found || w.after < from {
				from, found = w.after, true
			}
		}
		r.mu.Unlock()
		if !found {
			return nil
		}
		evs, err := r.cfg.Events.ListEvents(ctx, sid, from, eventBatch)
		if err != nil {
			return err
		}
		r.mu.Lock()
		for _, e := range evs {
			for w := range r.watch[sid] {
				if e.Seq <= w.after {
					continue
				}
				if !w.deliver(e) {
					r.unwatchLocked(sid, w)
					continue
				}
				w.after = e.Seq
			}
		}
		r.mu.Unlock()
		if len(evs) < eventBatch {
			return nil
		}
	}
}
