package orchestrator

// Session ownership in a fleet of daemons sharing one PostgreSQL database
// (issue 17). Each session is owned, by lease, by the daemon that runs its
// agent: only the owner starts executions, arms timers or writes the
// session's events (the store fences every event write by the lease). A
// daemon alone (Config.Fleet nil) owns every session, as before.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Fleet is this daemon's part in a fleet; *fleet.Owner satisfies it.
type Fleet interface {
	// Self is this daemon's id.
	Self() string
	// Claim takes session id's lease for this daemon when it is free,
	// expired or its own; fresh when it was not held here before. An ok
	// claim pins the lease until Unpin: it is not released meanwhile.
	Claim(ctx context.Context, sessionID string) (ok, fresh bool, err error)
	// Unpin ends a Claim's pin.
	Unpin(sessionID string)
	// Release gives up the session's lease now unless a claim pins it
	// (released false): nobody runs the session until its next command
	// claims it, on whichever daemon gets it.
	Release(ctx context.Context, sessionID string) (released bool, err error)
	// Forget drops a deleted session's lease (its row went with it).
	Forget(sessionID string)
	// Holder is the daemon whose lease on the session is current.
	Holder(ctx context.Context, sessionID string) (string, error)
	// Place chooses the daemon a new task of agent runs on (named: the
	// one task.create named).
	Place(ctx context.Context, agent, named string) (string, error)
	// Hand gives a task placed on daemon its first prompt and its
	// session's lease.
	Hand(ctx context.Context, sessionID, daemon, prompt string) error
}

// ErrElsewhere: the session runs on another daemon of the fleet, which
// alone may act on it.
var ErrElsewhere = errors.New("the session runs on another daemon of the fleet")

// ErrFleet: the fleet's leases could not be read or written (the database
// is unreachable); nothing was changed.
var ErrFleet = errors.New("the fleet's session ownership is unavailable")

// placeTask chooses the daemon of a new task: "" for this one (also
// always without a fleet).
func (s *Service) placeTask(ctx context.Context, agent, named string) (string, error) {
	f := s.cfg.Fleet
	if f == nil {
		if named != "" {
			return "", &FieldError{Field: "daemon", Reason: "no_fleet", Msg: "daemon names a daemon of a fleet, and this daemon runs alone"}
		}
		return "", nil
	}
	target, err := f.Place(ctx, agent, named)
	switch {
	case errors.Is(err, fleet.ErrUnknownDaemon):
		return "", &FieldError{Field: "daemon", Reason: "unknown", Msg: err.Error()}
	case errors.Is(err, fleet.ErrNoRoom):
		return "", fmt.Errorf("%w: unknown agent %q: no live daemon of the fleet has it", ErrValidation, agent)
	case err != nil:
		return "", fmt.Errorf("%w: %w", ErrFleet, err)
	}
	if target == f.Self() {
		return "", nil
	}
	return target, nil
}

// claimNew takes the lease of a session about to be created or started
// here, pinned until the returned unpin (the caller's turn has started by
// then, so the lease stays).
func (s *Service) claimNew(ctx context.Context, sessionID string) (unpin func(), err error) {
	if s.cfg.Fleet == nil {
		return func() {}, nil
	}
	ok, _, err := s.cfg.Fleet.Claim(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFleet, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: session %q", ErrElsewhere, sessionID) // a fresh uuid: never
	}
	return func() { s.cfg.Fleet.Unpin(sessionID) }, nil
}

// createPlaced stores a task placed on another daemon and hands it its
// first prompt; that daemon creates its workspace (when none was named)
// and starts the turn.
func (s *Service) createPlaced(ctx context.Context, target string, task store.Task, sess store.Session, prompt string) (TaskView, error) {
	if task.Workdir != "" {
		dir := strings.TrimSpace(task.Workdir)
		if !filepath.IsAbs(dir) {
			return TaskView{}, &FieldError{Field: "workdir", Reason: "not_absolute",
				Msg: fmt.Sprintf("workdir must be an absolute path on daemon %s's machine, got %q", target, dir)}
		}
		task.Workdir = filepath.Clean(dir)
	}
	if err := s.store.CreateTask(ctx, task, sess); err != nil {
		return TaskView{}, fmt.Errorf("save task: %w", storageErr(err))
	}
	if err := s.cfg.Fleet.Hand(ctx, sess.ID, target, routingerr.Sanitize(prompt)); err != nil {
		_ = s.store.DeleteTask(s.storeCtx(), task.ID)
		return TaskView{}, fmt.Errorf("%w: %w", ErrFleet, err)
	}
	s.log.Info("task placed on another daemon", zap.String("task_id", task.ID), zap.String("session_id", sess.ID),
		zap.String("daemon", target), zap.String("agent", task.Agent))
	return newTaskView(task, []store.Session{sess}), nil
}

// StartHanded starts the first turn of a task placed on this daemon
// (fleet.Owner calls it for each fleet_starts row of this daemon). A
// session whose log already holds its prompt started before (its first
// daemon died after starting it): nothing is sent again.
func (s *Service) StartHanded(ctx context.Context, sessionID, prompt string) error {
	unpin, err := s.claimNew(ctx, sessionID)
	if err != nil {
		return err
	}
	defer unpin()
	rt, err := s.reload(ctx, sessionID)
	if errors.Is(err, ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	rt.mu.Lock()
	started := rt.sess.LastSeq > 0
	if !started && rt.task.Workdir == "" {
		dir := filepath.Join(s.cfg.DataDir, "workspaces", rt.task.ID)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			rt.mu.Unlock()
			return fmt.Errorf("create task workdir: %w", err)
		}
		t := rt.task
		t.Workdir = dir
		if err := s.store.UpdateTask(ctx, t); err != nil {
			rt.mu.Unlock()
			return fmt.Errorf("save task workdir: %w", storageErr(err))
		}
		rt.task = t
	}
	rt.mu.Unlock()
	if started {
		return nil
	}
	s.log.Info("starting a task placed here", zap.String("session_id", sessionID))
	return s.startUserTurn(rt, prompt)
}

// owned returns the session's runtime once this daemon owns it: claimed
// now when its lease is free or expired (and then read afresh: its last
// owner wrote it), ErrElsewhere while another daemon's lease is current.
// The lease is pinned until unpin: the caller acts on the session first.
func (s *Service) owned(ctx context.Context, rt *sessionRT, sessionID string) (_ *sessionRT, unpin func(), err error) {
	f := s.cfg.Fleet
	if f == nil {
		return rt, func() {}, nil
	}
	ok, fresh, err := f.Claim(ctx, sessionID)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrFleet, err)
	}
	if !ok {
		holder, _ := f.Holder(ctx, sessionID)
		return nil, nil, fmt.Errorf("%w: session %q runs on daemon %s", ErrElsewhere, sessionID, holder)
	}
	unpin = func() { f.Unpin(sessionID) }
	if fresh {
		if err := s.Adopt(ctx, []string{sessionID}, "claim"); err != nil {
			unpin()
			return nil, nil, err
		}
	}
	// The runtime held so far may be one a release dropped (its copy of
	// the session is stale): the one loaded now is current.
	if now := s.loaded(sessionID); now != nil {
		return now, unpin, nil
	}
	if now, err := s.reload(ctx, sessionID); err == nil {
		return now, unpin, nil
	}
	return rt, unpin, nil
}

// startFleet is Start on a fleet: the sessions with work in flight — a
// parked retry, a running turn — that nobody else owns (their lease is
// this daemon's from before a restart, expired, or missing) are claimed
// and adopted; the others are their owners' business.
func (s *Service) startFleet(ctx context.Context) error {
	pending, err := s.store.ListPendingRetries(ctx)
	if err != nil {
		return fmt.Errorf("list pending retries: %w", err)
	}
	sessions, err := s.store.ListAllSessions(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	seen := map[string]bool{}
	var want []string
	for _, r := range pending {
		if !seen[r.SessionID] {
			seen[r.SessionID] = true
			want = append(want, r.SessionID)
		}
	}
	for _, sess := range sessions {
		if !seen[sess.ID] && (sess.State == store.SessionStarting || sess.State == store.SessionRunning) {
			seen[sess.ID] = true
			want = append(want, sess.ID)
		}
	}
	var mine []string
	defer func() {
		for _, id := range mine {
			s.cfg.Fleet.Unpin(id)
		}
	}()
	for _, id := range want {
		ok, _, err := s.cfg.Fleet.Claim(ctx, id)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrFleet, err)
		}
		if ok {
			mine = append(mine, id)
		}
	}
	if err := s.Adopt(ctx, mine, "restart"); err != nil {
		return err
	}
	s.startFleetGates() // the fleet's overload gates (gate_fleet.go), as Start does alone
	return nil
}

// Adopt takes up sessions whose leases this daemon just took (from a dead
// daemon, at a restart, or on a command for a session nobody owned): each
// is read afresh from the store; a parked retry is re-armed at its
// original retry_at, and one that waited on the fleet's overload gate
// rejoins it (gate_adopt.go); a retry that was being dispatched, and a turn that
// was running, become an "interrupted" banner, never a blind replay; and
// where the task's work directory cannot be reached from this machine the
// banner says the task's machine went away.
func (s *Service) Adopt(ctx context.Context, sessionIDs []string, from string) error {
	if len(sessionIDs) == 0 {
		return nil
	}
	pending, err := s.store.ListPendingRetries(ctx)
	if err != nil {
		return fmt.Errorf("list pending retries: %w", err)
	}
	want := make(map[string]bool, len(sessionIDs))
	for _, id := range sessionIDs {
		want[id] = true
	}
	parked := make(map[string]store.PendingRetry, len(sessionIDs))
	for _, r := range pending {
		if want[r.SessionID] {
			parked[r.SessionID] = r
		}
	}
	ga, err := s.gateAdoptionFor(ctx, parked)
	if err != nil {
		// Adopted without the fleet's gate: a gated retry fires on its own
		// timer, as before gates were adopted, rather than every session of
		// the batch staying unadopted.
		s.log.Warn("reading the fleet's gates to adopt waiters failed; their retries fire on their own timers", zap.Error(err))
		ga = nil
	}
	for _, id := range sessionIDs {
		if s.busy(id) {
			continue // adopted already (an Adopt run again after a failure)
		}
		rt, err := s.reload(ctx, id)
		if errors.Is(err, ErrNotFound) {
			_ = s.store.DeletePendingRetry(ctx, id) // a lease or row of a deleted task
			continue
		}
		if err != nil {
			return err
		}
		rec, ok := parked[id]
		rt.mu.Lock()
		s.adoptLocked(rt, rec, ok, from, ga)
		rt.mu.Unlock()
	}
	return nil
}

func (s *Service) adoptLocked(rt *sessionRT, rec store.PendingRetry, parked bool, from string, ga *gateAdoption) {
	takeover := from != "restart"
	reason := "interrupted"
	if !workdirReachable(rt.task.Workdir) {
		reason = kindMachineGone
	}
	if parked {
		if rt.banner != "" {
			_ = s.store.DeletePendingRetry(s.storeCtx(), rt.sess.ID) // behind a banner: never fires (see Start)
			return
		}
		rt.notice = rec.NoticeID
		rt.retry = &parkedRetry{rec: rec}
		s.cfg.Metrics.parkedSessions.Inc()
		rt.gateKey = sessionGateOfRetry(rec)
		key, _, deadline := gateOfRetry(rec)
		switch {
		case reason == kindMachineGone:
			s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindMachineGone, takeover: takeover, workdir: rt.task.Workdir})
		case rec.State == store.RetryDispatching:
			s.recoveryBannerLocked(rt, nil, recoveryReason{kind: "interrupted_retry", takeover: takeover})
		case key != "" && ga != nil:
			s.rejoinGateLocked(rt, ga, key) // the fleet's gate (gate_adopt.go)
		default:
			// Without the fleet's gates a gated retry's gate lived with its
			// daemon; here it fires on its own schedule (the gate, if open
			// here, holds it).
			if key != "" {
				rt.chain = chainOf(rec.Attempt, rec.MaxAttempts, deadline)
			} else {
				rt.chain = chainOf(rec.Attempt-1, rec.MaxAttempts, deadline)
			}
			s.usageRestore(rec.SessionID, rt.retry)
			delay := rec.RetryAt.Sub(s.now())
			s.armLocked(rt, rec.RetryAt)
			s.log.Info("pending retry adopted", zap.String("session_id", rec.SessionID), zap.String("from", from),
				zap.Time("retry_at", rec.RetryAt), zap.Duration("in", max(delay, 0)))
		}
		return
	}
	if rt.sess.State == store.SessionStarting || rt.sess.State == store.SessionRunning {
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: reason, takeover: takeover, workdir: rt.task.Workdir})
	}
}

// kindMachineGone: the session's turn or retry was taken over by a daemon
// that cannot reach the task's work directory (it lives on the machine
// that went away).
const kindMachineGone = "machine_gone"

func workdirReachable(dir string) bool {
	if dir == "" {
		return true // a placed task not started yet: its daemon makes one
	}
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// Disown drops a session whose lease passed to another daemon (this one
// was too slow to renew it and was judged dead): its timer stops, its turn
// and agent end, and nothing more is written — the new owner carries on
// from the store.
func (s *Service) Disown(sessionID string) {
	s.mu.Lock()
	rt := s.sessions[sessionID]
	delete(s.sessions, sessionID)
	s.mu.Unlock()
	if rt == nil {
		return
	}
	rt.mu.Lock()
	rt.gone = true
	s.forgetRetryLocked(rt)
	if t := rt.turn; t != nil {
		t.stopped = true
		t.cancel()
	}
	s.stopIdleLocked(rt)
	s.stopReconcileLocked(rt)
	if rt.stream != nil && rt.stream.timer != nil {
		rt.stream.timer.Stop()
		rt.stream.timer = nil
	}
	ex := rt.exec
	rt.exec = nil
	rt.mu.Unlock()
	if ex != nil {
		s.goTurn(func() { _ = ex.Close() })
	}
	s.log.Warn("session disowned: another daemon of the fleet owns it now", zap.String("session_id", sessionID))
}

// busy reports whether the session's runtime here runs something: a turn,
// a parked retry or an agent process. Such a runtime is this daemon's own
// and never replaced by a fresh read.
func (s *Service) busy(sessionID string) bool {
	rt := s.loaded(sessionID)
	if rt == nil {
		return false
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.turn != nil || rt.retry != nil || rt.exec != nil
}

// reload reads a session afresh from the store and puts it in place of
// the runtime held so far (a copy another daemon's writes made stale),
// keeping its subscribers.
func (s *Service) reload(ctx context.Context, sessionID string) (*sessionRT, error) {
	rt, err := s.build(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	old := s.sessions[sessionID]
	s.sessions[sessionID] = rt
	s.mu.Unlock()
	if old != nil {
		old.mu.Lock()
		subs := old.subs
		old.subs = nil
		old.gone = true
		old.mu.Unlock()
		rt.mu.Lock()
		if rt.subs == nil {
			rt.subs = subs
		}
		rt.mu.Unlock()
	}
	return rt, nil
}
