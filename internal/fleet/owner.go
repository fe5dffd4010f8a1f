package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// KindSession is the lease kind of a session's ownership: key the session
// id, holder the daemon that runs its agent.
const KindSession = "session"

// ErrNoRoom: no live daemon of the fleet has the agent profile and room
// for one more agent (placement).
var ErrNoRoom = errors.New("fleet: no daemon has room for the task")

// ErrUnknownDaemon: task.create named a daemon that is not a live member
// of the fleet, or that lacks the task's agent profile.
var ErrUnknownDaemon = errors.New("fleet: no such live daemon")

// Runner is the side of the orchestrator an Owner drives:
// *orchestrator.Service.
type Runner interface {
	// Adopt takes up sessions whose leases this daemon just took: it
	// re-arms their parked retries at their original retry_at and turns
	// running turns into banners.
	Adopt(ctx context.Context, sessionIDs []string, from string) error
	// Disown drops a session whose lease passed to another daemon,
	// writing nothing.
	Disown(sessionID string)
	// StartHanded starts the first turn of a task placed on this daemon.
	StartHanded(ctx context.Context, sessionID, prompt string) error
	// ReleaseIdle gives up, with Owner.Release, the leases of those of
	// sessionIDs (held here) that have nothing running, parked or
	// waiting here, so that the next command for one is served by
	// whichever daemon gets it.
	ReleaseIdle(ctx context.Context, sessionIDs []string)
}

// OwnerConfig configures an Owner.
type OwnerConfig struct {
	Pool  *pgxpool.Pool // required: the store's pool
	Self  string        // required: this daemon's id
	Lease time.Duration // the session leases' length; default DefaultLease
	// Poll is how often expired leases are looked for; default Lease/10
	// within [100ms, 1s]. Leases are renewed every Lease/3.
	Poll time.Duration
	// StartPoll is how often the tasks handed to this daemon are looked
	// for without a word of them: the backstop of the NOTIFY that Hand
	// sends (starts_listen.go). Default Lease/3, at least Poll.
	StartPoll time.Duration
	Clock     quartz.Clock
	Logger    *zap.Logger
}

// Owner is this daemon's session ownership in a fleet (issue 17): a lease
// per session it runs (fleet_leases, kind "session"), renewed every
// Lease/3 in one statement; the takeover of the sessions of a daemon whose
// leases expired (TakeExpiredShare, then Runner.Adopt); and placement, the
// choice of the daemon a new task runs on and the hand-over of its first
// prompt (fleet_starts) to that daemon, which starts it when the NOTIFY
// of it arrives (or at its next StartPoll).
type Owner struct {
	cfg    OwnerConfig
	leases *Leases

	mu   sync.Mutex       // guards held, pins, releasing, unadopted, runner, cancel, done
	held map[string]int64 // session id → fence of the lease held
	// pins count the commands between their Claim and their Unpin: a
	// pinned session's lease is never released (its command is about to
	// write the session).
	pins map[string]int
	// releasing are the releases in flight: a Claim of one waits for it,
	// so that it never takes the lease the release is about to end.
	releasing map[string]chan struct{}
	// unadopted are sessions taken over whose Adopt failed (the store
	// refused a read): adopted again at the next poll, so a parked retry
	// taken over is never left without its timer.
	unadopted []string
	runner    Runner
	cancel    context.CancelFunc
	done      chan struct{}
	kick      chan struct{} // buffered 1: a task was handed here (starts_listen.go)
	starting  sync.Mutex    // serialises StartHanded, so a handed row starts once
}

// NewOwner checks cfg; nothing runs until Start.
func NewOwner(cfg OwnerConfig) (*Owner, error) {
	if cfg.Pool == nil || cfg.Self == "" {
		return nil, errors.New("fleet: an owner needs a pool and a daemon id")
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Lease < time.Second {
		return nil, fmt.Errorf("fleet: lease must be at least 1s, got %v", cfg.Lease)
	}
	if cfg.Poll == 0 {
		cfg.Poll = min(max(cfg.Lease/10, 100*time.Millisecond), time.Second)
	}
	if cfg.StartPoll == 0 {
		cfg.StartPoll = max(cfg.Lease/3, cfg.Poll)
	}
	if cfg.Clock == nil {
		cfg.Clock = quartz.NewReal()
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return &Owner{cfg: cfg, leases: NewLeases(cfg.Pool), held: map[string]int64{}, pins: map[string]int{},
		releasing: map[string]chan struct{}{}, kick: make(chan struct{}, 1)}, nil
}

// Self is this daemon's id.
func (o *Owner) Self() string { return o.cfg.Self }

// Claim takes session id's lease for this daemon when it is free, expired
// or already its own, and pins it (ok): the lease is not released until
// Unpin. fresh: it was not held here before (the caller reloads the
// session: another daemon may have written it).
func (o *Owner) Claim(ctx context.Context, sessionID string) (ok, fresh bool, err error) {
	for {
		o.mu.Lock()
		wait := o.releasing[sessionID]
		if wait == nil {
			break
		}
		o.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return false, false, ctx.Err()
		}
	}
	_, mine := o.held[sessionID]
	if mine {
		o.pins[sessionID]++
	}
	o.mu.Unlock()
	if mine {
		return true, false, nil
	}
	ls, ok, err := o.leases.Acquire(ctx, KindSession, sessionID, o.cfg.Self, o.cfg.Lease)
	if err != nil || !ok {
		return false, false, err
	}
	o.mu.Lock()
	o.held[sessionID] = ls.Fence
	o.pins[sessionID]++
	o.mu.Unlock()
	return true, true, nil
}

// Unpin ends a Claim's pin: once nothing pins it, an idle session's lease
// may be released.
func (o *Owner) Unpin(sessionID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pins[sessionID] <= 1 {
		delete(o.pins, sessionID)
		return
	}
	o.pins[sessionID]--
}

// Release gives up session id's lease now, unless a command pins it: its
// row keeps no holder (Route: nobody runs it), so the next command for the
// session, on any daemon, claims it. released is false when it was not
// held here or is pinned. The runner calls it under the session's lock,
// having found nothing running there.
func (o *Owner) Release(ctx context.Context, sessionID string) (released bool, err error) {
	o.mu.Lock()
	fence, held := o.held[sessionID]
	if !held || o.pins[sessionID] > 0 || o.releasing[sessionID] != nil {
		o.mu.Unlock()
		return false, nil
	}
	delete(o.held, sessionID)
	done := make(chan struct{})
	o.releasing[sessionID] = done
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		delete(o.releasing, sessionID)
		o.mu.Unlock()
		close(done)
	}()
	err = o.leases.Release(ctx, Lease{Kind: KindSession, Key: sessionID, Holder: o.cfg.Self, Fence: fence})
	switch {
	case errors.Is(err, ErrLeaseLost):
		return true, nil // expired or taken meanwhile: not ours either way
	case err != nil:
		o.mu.Lock()
		o.held[sessionID] = fence // still ours as far as anyone knows: renewed as before
		o.mu.Unlock()
		return false, err
	}
	return true, nil
}

// Forget drops session id from the leases held here without a write: its
// task was deleted, and its lease row with it.
func (o *Owner) Forget(sessionID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.held, sessionID)
}

// ReleaseIdle asks the runner to release the idle sessions among those
// held here (the loop does it before each renewal).
func (o *Owner) ReleaseIdle(ctx context.Context) {
	o.mu.Lock()
	keys := make([]string, 0, len(o.held))
	for k := range o.held {
		// An unadopted session has no runtime here yet: not idle, its
		// adoption is tried again.
		if o.pins[k] == 0 && !slices.Contains(o.unadopted, k) {
			keys = append(keys, k)
		}
	}
	runner := o.runner
	o.mu.Unlock()
	if runner != nil && len(keys) > 0 {
		slices.Sort(keys)
		runner.ReleaseIdle(ctx, keys)
	}
}

// Owns reports whether this daemon holds session id's lease.
func (o *Owner) Owns(sessionID string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.held[sessionID]
	return ok
}

// Holder is the daemon whose lease on session id is current, "" when none.
func (o *Owner) Holder(ctx context.Context, sessionID string) (string, error) {
	var holder string
	err := o.cfg.Pool.QueryRow(ctx, `SELECT holder FROM fleet_leases
		WHERE kind = $1 AND key = $2 AND expires_at > now()`, KindSession, sessionID).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: lease of session %s: %w", ErrUnavailable, sessionID, err)
	}
	return holder, nil
}

// Place chooses the daemon a new task of agent runs on: named when given
// (a live member with the profile), else this daemon when it has the
// profile and room (load < max_agents), else the live member with the
// profile and the most room.
func (o *Owner) Place(ctx context.Context, agent, named string) (string, error) {
	rows, err := o.cfg.Pool.Query(ctx, `SELECT id, load, max_agents, $1 = ANY(profiles) FROM fleet_members
		WHERE NOT stopped AND expires_at > now()`, agent)
	if err != nil {
		return "", fmt.Errorf("%w: placement: %w", ErrUnavailable, err)
	}
	type cand struct {
		id         string
		room       int
		hasProfile bool
	}
	var cs []cand
	for rows.Next() {
		var c cand
		var load, maxAgents int
		if err := rows.Scan(&c.id, &load, &maxAgents, &c.hasProfile); err != nil {
			rows.Close()
			return "", fmt.Errorf("%w: placement: %w", ErrUnavailable, err)
		}
		c.room = maxAgents - load
		cs = append(cs, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("%w: placement: %w", ErrUnavailable, err)
	}
	if named != "" {
		for _, c := range cs {
			if c.id == named && c.hasProfile {
				return named, nil
			}
			if c.id == named {
				return "", fmt.Errorf("%w: daemon %s has no agent profile %q", ErrUnknownDaemon, named, agent)
			}
		}
		return "", fmt.Errorf("%w: daemon %s is not a live member of the fleet", ErrUnknownDaemon, named)
	}
	best := -1
	for i, c := range cs {
		if !c.hasProfile || c.room <= 0 {
			continue
		}
		if c.id == o.cfg.Self {
			return c.id, nil // the receiving daemon first
		}
		if best < 0 || c.room > cs[best].room || c.room == cs[best].room && c.id < cs[best].id {
			best = i
		}
	}
	if best < 0 {
		return "", fmt.Errorf("%w (agent %q)", ErrNoRoom, agent)
	}
	return cs[best].id, nil
}

// Hand gives the first prompt of a task placed on daemon to it: the
// session's lease becomes daemon's and the prompt waits in fleet_starts,
// both in one statement, with a NOTIFY to daemon (StartsChannel), until
// daemon (or, should it die first, the daemon that takes the lease over)
// starts it.
func (o *Owner) Hand(ctx context.Context, sessionID, daemon, prompt string) error {
	_, err := o.cfg.Pool.Exec(ctx, `WITH l AS (
			INSERT INTO fleet_leases (kind, key, holder, fence, acquired_at, expires_at)
			VALUES ($1, $2, $3, 1, now(), now() + $5::bigint * interval '1 microsecond')
			ON CONFLICT (kind, key) DO UPDATE SET holder = EXCLUDED.holder, fence = fleet_leases.fence + 1,
				acquired_at = now(), expires_at = EXCLUDED.expires_at
			RETURNING key)
		, s AS (INSERT INTO fleet_starts (session_id, daemon, prompt) SELECT key, $3, $4 FROM l RETURNING daemon)
		SELECT pg_notify('`+StartsChannel+`', daemon) FROM s`,
		KindSession, sessionID, daemon, prompt, o.cfg.Lease.Microseconds())
	if err != nil {
		return fmt.Errorf("%w: hand session %s to daemon %s: %w", ErrUnavailable, sessionID, daemon, err)
	}
	return nil
}

// Start runs the ownership loop for runner until Close.
func (o *Owner) Start(runner Runner) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done != nil {
		return
	}
	o.runner = runner
	ctx, cancel := context.WithCancel(context.Background())
	o.cancel, o.done = cancel, make(chan struct{})
	go o.loop(ctx, o.done) // owned: Close cancels it and waits for done
}

func (o *Owner) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	var listen sync.WaitGroup
	defer listen.Wait()
	listen.Go(func() { o.listenStarts(ctx) })
	t := o.cfg.Clock.NewTicker(o.cfg.Poll, "fleet", "owner")
	defer t.Stop()
	// expiry fires when the next lease of another daemon runs out, so a
	// dead daemon's sessions are taken over then, not up to a poll later.
	expiry := o.cfg.Clock.NewTimer(o.cfg.Poll, "fleet", "owner", "expiry")
	defer expiry.Stop()
	lastRenew := o.cfg.Clock.Now()
	lastStarts := lastRenew
	for {
		polled := false
		select {
		case <-ctx.Done():
			return
		case <-o.kick:
			lastStarts = o.cfg.Clock.Now()
			if err := o.StartHanded(ctx); err != nil && ctx.Err() == nil {
				o.cfg.Logger.Warn("starting handed tasks failed; retrying", zap.Error(err))
			}
			continue
		case <-t.C:
			polled = true
		case <-expiry.C:
		}
		if now := o.cfg.Clock.Now(); polled && now.Sub(lastRenew) >= o.cfg.Lease/3 {
			lastRenew = now
			// Renewal first: releasing thousands of idle leases (one
			// statement each) must never delay the busy sessions' renewal,
			// and gets at most a third of a lease.
			if err := o.Renew(ctx); err != nil && ctx.Err() == nil {
				o.cfg.Logger.Warn("renewing session leases failed; retrying", zap.Error(err))
			}
			rctx, cancel := context.WithTimeout(ctx, o.cfg.Lease/3)
			o.ReleaseIdle(rctx)
			cancel()
		}
		if err := o.TakeOver(ctx); err != nil && ctx.Err() == nil {
			o.cfg.Logger.Warn("taking over expired sessions failed; retrying", zap.Error(err))
		}
		if in, ok, err := o.leases.NextExpiry(ctx, KindSession, o.cfg.Self); err == nil && ok {
			expiry.Reset(in+time.Millisecond, "fleet", "owner", "expiry")
		}
		if !polled {
			continue
		}
		if now := o.cfg.Clock.Now(); now.Sub(lastStarts) >= o.cfg.StartPoll {
			lastStarts = now
			if err := o.StartHanded(ctx); err != nil && ctx.Err() == nil {
				o.cfg.Logger.Warn("starting handed tasks failed; retrying", zap.Error(err))
			}
		}
	}
}

// Renew extends every session lease held here, in one statement; a lease
// that passed to another daemon meanwhile is dropped and its session
// disowned.
func (o *Owner) Renew(ctx context.Context) error {
	o.mu.Lock()
	keys := make([]string, 0, len(o.held))
	fences := make([]int64, 0, len(o.held))
	for k, f := range o.held {
		keys, fences = append(keys, k), append(fences, f)
	}
	o.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	rows, err := o.cfg.Pool.Query(ctx, `UPDATE fleet_leases l SET expires_at = now() + $3::bigint * interval '1 microsecond'
		FROM unnest($4::text[], $5::bigint[]) AS h(key, fence)
		WHERE l.kind = $1 AND l.holder = $2 AND l.key = h.key AND l.fence = h.fence
		RETURNING l.key`, KindSession, o.cfg.Self, o.cfg.Lease.Microseconds(), keys, fences)
	if err != nil {
		return fmt.Errorf("%w: renew session leases: %w", ErrUnavailable, err)
	}
	kept, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("%w: renew session leases: %w", ErrUnavailable, err)
	}
	var lost []string
	o.mu.Lock()
	for i, k := range keys {
		if !slices.Contains(kept, k) && o.held[k] == fences[i] {
			delete(o.held, k)
			lost = append(lost, k)
		}
	}
	runner := o.runner
	o.mu.Unlock()
	for _, k := range lost {
		o.cfg.Logger.Warn("session lease lost to another daemon; dropping the session here", zap.String("session_id", k))
		if runner != nil {
			runner.Disown(k)
		}
	}
	return nil
}

// takeBatch bounds one TakeExpiredShare: a dead daemon's sessions are shared
// among the takers a batch at a time.
const takeBatch = 100

// TakeOver takes this daemon's share of the expired session leases (their
// daemon died or lost the database; TakeExpiredShare: the live daemons
// split them by room, and what is left a poll after its expiry is anyone's)
// and adopts their sessions; a task handed to the dead daemon and not
// started yet is handed to this one.
func (o *Owner) TakeOver(ctx context.Context) error {
	o.mu.Lock()
	again, runner := o.unadopted, o.runner
	o.unadopted = nil
	o.mu.Unlock()
	if len(again) > 0 && runner != nil {
		if err := runner.Adopt(ctx, again, "takeover"); err != nil {
			o.mu.Lock()
			o.unadopted = append(o.unadopted, again...)
			o.mu.Unlock()
			return err
		}
	}
	for {
		taken, err := o.leases.TakeExpiredShare(ctx, KindSession, o.cfg.Self, o.cfg.Lease, o.cfg.Poll, takeBatch)
		if err != nil || len(taken) == 0 {
			return err
		}
		ids := make([]string, 0, len(taken))
		all := make([]string, len(taken))
		o.mu.Lock()
		for i, ls := range taken {
			all[i] = ls.Key
			if _, had := o.held[ls.Key]; !had {
				ids = append(ids, ls.Key) // one of ours that ran out is still ours: nothing to adopt
			}
			o.held[ls.Key] = ls.Fence
		}
		runner := o.runner
		o.mu.Unlock()
		moved, err := o.cfg.Pool.Exec(ctx, `UPDATE fleet_starts SET daemon = $1 WHERE session_id = ANY($2)`, o.cfg.Self, all)
		if err != nil {
			return fmt.Errorf("%w: take over handed tasks: %w", ErrUnavailable, err)
		}
		if moved.RowsAffected() > 0 {
			o.wakeStarts() // started next, not at the next StartPoll
		}
		o.cfg.Logger.Info("took over sessions of a daemon whose lease expired", zap.Int("sessions", len(ids)))
		if runner != nil && len(ids) > 0 {
			if err := runner.Adopt(ctx, ids, "takeover"); err != nil {
				o.mu.Lock()
				o.unadopted = append(o.unadopted, ids...)
				o.mu.Unlock()
				return err
			}
		}
		if len(taken) < takeBatch {
			return nil
		}
	}
}

// handedBatch is how many handed tasks StartHanded reads at a time.
const handedBatch = 100

// StartHanded starts the tasks handed to this daemon, oldest first; each
// row goes once its turn has started.
func (o *Owner) StartHanded(ctx context.Context) error {
	o.starting.Lock()
	defer o.starting.Unlock()
	rows, err := o.cfg.Pool.Query(ctx, `SELECT session_id, prompt FROM fleet_starts WHERE daemon = $1 ORDER BY created_at LIMIT $2`, o.cfg.Self, handedBatch)
	if err != nil {
		return fmt.Errorf("%w: handed tasks: %w", ErrUnavailable, err)
	}
	type start struct{ id, prompt string }
	starts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (start, error) {
		var s start
		return s, r.Scan(&s.id, &s.prompt)
	})
	if err != nil {
		return fmt.Errorf("%w: handed tasks: %w", ErrUnavailable, err)
	}
	o.mu.Lock()
	runner := o.runner
	o.mu.Unlock()
	for _, s := range starts {
		if runner == nil {
			return nil
		}
		if err := runner.StartHanded(ctx, s.id, s.prompt); err != nil {
			// Kept for the next poll: nothing of it was written.
			o.cfg.Logger.Warn("a task handed to this daemon did not start; trying again", zap.String("session_id", s.id), zap.Error(err))
			continue
		}
		if _, err := o.cfg.Pool.Exec(ctx, `DELETE FROM fleet_starts WHERE session_id = $1 AND daemon = $2`, s.id, o.cfg.Self); err != nil {
			return fmt.Errorf("%w: handed task done: %w", ErrUnavailable, err)
		}
	}
	if len(starts) == handedBatch {
		o.wakeStarts() // more wait: the next batch now, not at the backstop poll
	}
	return nil
}

// Close stops the loop and ends every session lease held here now, so
// the fleet takes the sessions over at once (a clean shutdown: their
// parked retries fire elsewhere at their retry_at). Safe to call twice.
func (o *Owner) Close() error {
	o.mu.Lock()
	cancel, done := o.cancel, o.done
	o.cancel = nil
	o.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	<-done
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if _, err := o.cfg.Pool.Exec(ctx, `UPDATE fleet_leases SET expires_at = least(expires_at, now())
		WHERE kind = $1 AND holder = $2`, KindSession, o.cfg.Self); err != nil {
		return fmt.Errorf("%w: end session leases: %w", ErrUnavailable, err)
	}
	return nil
}
