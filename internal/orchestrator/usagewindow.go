package orchestrator

// Usage windows (issue 14, DESIGN §6: "a usage window is the same shape at
// a slower clock"). A task that waits (on_usage_limit: wait) parks a
// session whose provider said "usage limit reached, resets at T" like a
// retry — one notice, one durable row, one exact timer at T + margin — and
// re-drives the prompt then. A window belongs to an account, not a session:
// it is keyed like the overload gate (agent profile, and model when the
// error names one). When it is due, one session goes first; the others
// wait for its verdict and follow, spread over seconds, once it worked. A
// window with no known reset is tried again every ProbeEvery (≥ 15m).
//
// Lock order: a session's mutex, then usageOwner.mu; nothing here takes a
// session's mutex while holding usageOwner.mu (other sessions are reached
// through timers).

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Extra keys of a pending retry that waits on a usage window.
const (
	extraUsage         = "usage"          // window key
	extraUsageDeadline = "usage_deadline" // when its chain stops waiting (RFC 3339)
	extraUsageReset    = "usage_reset"    // the provider's reset (RFC 3339), when known
	extraUsageHint     = "usage_hint"     // true: a long retry-after hint, not a window
)

// kindUsageDeadline: the reset (or hint) is later than the task may wait.
const kindUsageDeadline = "usage_deadline"

type usageOwner struct {
	cfg  UsageConfig // effective: defaults and scale applied
	rand func() float64

	mu       sync.Mutex // guards windows (releases change under it too); taken after a session's mutex, never before one
	windows  map[string]*usageWindow
	releases *releases // the released sessions' timers (stagger.go)
}

// usageWindow is one account's window and the sessions parked on it.
type usageWindow struct {
	next    time.Time           // when the window is next worth trying (reset + margin, or the next probe)
	leader  string              // session trying it first; "" when none
	held    []string            // due sessions waiting for the leader's verdict, in order
	members map[string]struct{} // sessions parked on it
	open    bool                // the leader continued: due sessions go at once
}

func newUsageOwner(cfg UsageConfig, rand func() float64) usageOwner {
	return usageOwner{cfg: cfg.withDefaults(), rand: rand,
		windows: make(map[string]*usageWindow)}
}

// windowLocked returns the window of key, creating it. usage.mu is held.
func (u *usageOwner) windowLocked(key string) *usageWindow {
	w := u.windows[key]
	if w == nil {
		w = &usageWindow{members: make(map[string]struct{})}
		u.windows[key] = w
	}
	return w
}

// usageKeyOf is the window a parked retry waits on; "" when none.
func usageKeyOf(p *parkedRetry) string {
	if p == nil {
		return ""
	}
	k, _ := p.rec.Extra[extraUsage].(string)
	return k
}

// usageWait is a session about to wait on a usage window.
type usageWait struct {
	key          string
	at, deadline time.Time
	reset        time.Time // the provider's reset; zero when unknown
	hint         bool      // a long retry-after hint rather than a window
	held         bool      // due, waiting for another session's verdict
	code, ruleID string
	prompt       string
	resume       bool
	gen          int64
	attempt, max int
	waiting      int
}

// usageFailedLocked parks a usage-window failure (or a long hint) when the
// task waits for it. It returns true when it took over (parked, or the
// deadline banner); false means the banner as before.
func (s *Service) usageFailedLocked(rt *sessionRT, t *turn, c routingerr.Classification, d routingerr.Decision, now time.Time) bool {
	if d.Kind != routingerr.DecisionWaitUntil || !s.waitsOnUsage(rt.task) {
		return false
	}
	hint := d.Reason == routingerr.ReasonHintTooLong
	if !hint && c.Class != routingerr.ClassWaitForReset {
		return false
	}
	key := failureGateKey(rt, c)
	cfg := s.usage.cfg
	var at, reset time.Time
	switch {
	case hint:
		at = d.Until
	case !d.Until.IsZero():
		reset = d.Until
		at = reset.Add(cfg.Margin)
	default:
		at = now.Add(cfg.ProbeEvery)
	}
	at = maxTime(at, now)
	deadline := s.usageDeadlineLocked(rt, now)
	if at.After(deadline) {
		s.recoveryBannerLocked(rt, t, recoveryReason{kind: kindUsageDeadline, class: c, decision: d,
			wait: s.usageMaxWait(rt), until: at})
		return true
	}
	sid := rt.sess.ID
	s.usage.mu.Lock()
	w := s.usage.windowLocked(key)
	if w.leader == sid || !w.next.After(now) || at.After(w.next) {
		w.next = at // the newest word on the window
	}
	if w.leader == sid {
		w.leader = ""
	}
	w.open = false
	w.members[sid] = struct{}{}
	held := w.held
	w.held = nil
	waiting := len(w.members)
	s.usage.mu.Unlock()
	uw := usageWait{key: key, at: at, deadline: deadline, reset: reset, hint: hint, code: c.Code, ruleID: c.RuleID,
		prompt: t.prompt, resume: true, gen: rt.sess.Generation, attempt: t.retry, max: max(rt.chain.max, d.MaxAttempts),
		waiting: waiting}
	if err := s.parkOnUsageLocked(rt, uw, t.id); err != nil {
		s.usageLeaveLocked(sid, key)
		s.recoveryBannerLocked(rt, t, recoveryReason{kind: "persist_failed", class: c})
		return true
	}
	s.log.Info("usage window: waiting for the reset", zap.String("session_id", sid), zap.String("window", key),
		zap.Time("retry_at", at), zap.Bool("reset_known", !reset.IsZero()), zap.Bool("hint", hint))
	// Sessions that were waiting for this one's verdict follow the window's new time.
	s.usageRelease(key, held, 0)
	return true
}

// usageDeadlineLocked is when the chain stops waiting on usage windows:
// the one it has, or now plus the task's limit.
func (s *Service) usageDeadlineLocked(rt *sessionRT, now time.Time) time.Time {
	if p := rt.retry; p != nil {
		if d := extraTime(p.rec.Extra, extraUsageDeadline); !d.IsZero() {
			return d
		}
	}
	return now.Add(s.usageMaxWait(rt))
}

// parkOnUsageLocked writes the notice and the durable row in one
// transaction, then the state, then arms the timer at uw.at (none while
// held: the window's verdict releases it).
func (s *Service) parkOnUsageLocked(rt *sessionRT, uw usageWait, failedTurn string) error {
	now := s.now()
	noticeID := rt.notice
	if noticeID == "" {
		noticeID = uuid.NewString()
	}
	rec := store.PendingRetry{
		SessionID: rt.sess.ID, TaskID: rt.task.ID, Generation: uw.gen,
		Attempt: uw.attempt, MaxAttempts: uw.max, Code: uw.code, RuleID: uw.ruleID,
		RetryAt: uw.at, Prompt: uw.prompt, Resume: uw.resume,
		NoticeID: noticeID, State: store.RetryPending, CreatedAt: now,
		Extra: map[string]any{
			extraUsage:         uw.key,
			extraUsageDeadline: uw.deadline.UTC().Format(time.RFC3339Nano),
		},
	}
	if !uw.reset.IsZero() {
		rec.Extra[extraUsageReset] = uw.reset.UTC().Format(time.RFC3339Nano)
	}
	if uw.hint {
		rec.Extra[extraUsageHint] = true
	}
	if rt.gateKey != "" {
		rec.Extra[extraLastGate] = rt.gateKey
	}
	m := s.usageNotice(rt, rec, uw, now)
	if err := s.writeNoticeLocked(rt, m, change{retry: &rec}); err != nil {
		s.log.Error("persist usage wait failed", zap.String("session_id", rt.sess.ID), zap.Error(err))
		return err
	}
	if failedTurn != "" {
		_ = s.emitLocked(rt, "session.turn.completed", map[string]any{"turn_id": failedTurn, "stop_reason": "retry_scheduled"}, change{})
	}
	_ = s.setStateLocked(rt, store.SessionWaitingForInput, store.TaskInProgress)
	if old := rt.retry; old != nil {
		s.stopTimersLocked(old)
		if old.gate != "" {
			s.gateLeaveLocked(rt.sess.ID, old.gate, now)
		}
	} else {
		s.cfg.Metrics.parkedSessions.Inc()
	}
	rt.chain = chainState{retry: uw.attempt, max: uw.max, until: rt.chain.until}
	rt.retry = &parkedRetry{rec: rec}
	rt.staleRow = false
	if !uw.held {
		s.armLocked(rt, uw.at)
	}
	return nil
}

// usageDueLocked asks the window whether a due retry may go. It returns
// true when the window holds it back (another session goes first, or the
// window is not due yet); false means dispatch it now.
func (s *Service) usageDueLocked(rt *sessionRT, p *parkedRetry) bool {
	key := usageKeyOf(p)
	if key == "" {
		return false
	}
	now := s.now()
	sid := rt.sess.ID
	s.usage.mu.Lock()
	w := s.usage.windowLocked(key)
	w.members[sid] = struct{}{}
	if _, released := s.usage.releases.pending(sid); w.open && released {
		s.usage.mu.Unlock()
		return true // released with the others, in its turn: spread, not all at once
	}
	var at time.Time
	held := false
	switch {
	case w.open || w.leader == sid:
	case w.leader == "" && !now.Before(w.next):
		w.leader = sid
		s.log.Info("usage window: this session goes first", zap.String("window", key), zap.String("session_id", sid))
	case w.leader == "":
		at = w.next // another session's failure moved the window later
	default:
		held = true
		if !slices.Contains(w.held, sid) {
			w.held = append(w.held, sid)
		}
	}
	waiting := len(w.members)
	s.usage.mu.Unlock()
	if !held && at.IsZero() {
		return false
	}
	uw := usageWait{key: key, at: at, deadline: extraTime(p.rec.Extra, extraUsageDeadline), reset: extraTime(p.rec.Extra, extraUsageReset),
		held: held, code: p.rec.Code, ruleID: p.rec.RuleID, prompt: p.rec.Prompt, resume: p.rec.Resume,
		gen: p.rec.Generation, attempt: p.rec.Attempt, max: p.rec.MaxAttempts, waiting: waiting}
	uw.hint, _ = p.rec.Extra[extraUsageHint].(bool)
	if held {
		uw.at = now
	}
	if !uw.deadline.IsZero() && uw.at.After(uw.deadline) {
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindUsageDeadline, wait: s.usageMaxWait(rt), until: uw.at,
			class: routingerr.Classification{Code: p.rec.Code, RuleID: p.rec.RuleID, Class: routingerr.ClassWaitForReset}})
		return true
	}
	if err := s.parkOnUsageLocked(rt, uw, ""); err != nil {
		s.usageLeaveLocked(sid, key)
		return false // could not record the wait: go now
	}
	return true
}

// usageSucceededLocked: the session's turn succeeded, so its window is
// open again: every session parked on it continues, spread out.
func (s *Service) usageSucceededLocked(rt *sessionRT) {
	key := usageKeyOf(rt.retry)
	if key == "" {
		key = gateKey(rt)
	}
	sid := rt.sess.ID
	s.usage.mu.Lock()
	w := s.usage.windows[key]
	if w == nil {
		s.usage.mu.Unlock()
		return
	}
	delete(w.members, sid)
	if w.open {
		// Already open: its sessions were released when it opened.
		if len(w.members) == 0 {
			delete(s.usage.windows, key)
		}
		s.usage.mu.Unlock()
		return
	}
	w.open, w.leader, w.held = true, "", nil
	var rest []string
	for m := range w.members {
		rest = append(rest, m)
	}
	s.usage.mu.Unlock()
	if len(rest) == 0 {
		return
	}
	slices.Sort(rest) // a stable order; which one goes when does not matter
	s.log.Info("usage window open again; releasing its sessions", zap.String("window", key),
		zap.Int("released", len(rest)), zap.Duration("window_spread", s.usage.cfg.ReleaseWindow))
	s.usageRelease(key, rest, s.usage.cfg.ReleaseWindow)
}

// usageRelease fires the parked retries of sids, spread over window (0:
// all now), each as if its own timer fired.
func (s *Service) usageRelease(key string, sids []string, window time.Duration) {
	if len(sids) == 0 {
		return
	}
	offsets := overload.Spread(len(sids), window, s.usage.rand)
	if window <= 0 {
		offsets = make([]time.Duration, len(sids))
	}
	now := s.now()
	s.usage.mu.Lock() // a due session sees all of them armed or none (usageDueLocked)
	defer s.usage.mu.Unlock()
	for i, sid := range sids {
		s.usage.releases.arm(sid, key, now.Add(offsets[i]))
	}
}

func (s *Service) onUsageRelease(sid, key string) {
	if !s.enter() {
		return
	}
	defer s.leave()
	s.queueDue(dueItem{sid: sid, usage: key, woke: s.now()}) // as the gate's releases (retrydue.go)
}

// usageLeaveLocked takes a session off its window (success, cancel, a new
// prompt, another kind of failure). A first session that leaves without a
// verdict hands the turn to the next one waiting.
func (s *Service) usageLeaveLocked(sid, key string) {
	if key == "" {
		return
	}
	s.usage.mu.Lock()
	s.usage.releases.cancel(sid, key)
	w := s.usage.windows[key]
	if w == nil {
		s.usage.mu.Unlock()
		return
	}
	delete(w.members, sid)
	w.held = slices.DeleteFunc(w.held, func(h string) bool { return h == sid })
	var next []string
	if w.leader == sid {
		w.leader = ""
		if len(w.held) > 0 {
			next = []string{w.held[0]}
			w.held = w.held[1:]
		}
	}
	if len(w.members) == 0 {
		delete(s.usage.windows, key)
	}
	s.usage.mu.Unlock()
	s.usageRelease(key, next, 0)
}

// usageAfterFailureLocked: a session that waited on window key failed; if
// it did not park on that window again, it leaves it.
func (s *Service) usageAfterFailureLocked(rt *sessionRT, key string) {
	if key != "" && usageKeyOf(rt.retry) != key {
		s.usageLeaveLocked(rt.sess.ID, key)
	}
}

// usageRestore puts a retry restored at start back on its window.
func (s *Service) usageRestore(sid string, p *parkedRetry) {
	key := usageKeyOf(p)
	if key == "" {
		return
	}
	s.usage.mu.Lock()
	defer s.usage.mu.Unlock()
	s.usage.windowLocked(key).members[sid] = struct{}{}
}

// closeUsage stops every release timer; Close waits for running callbacks.
func (s *Service) closeUsage() {
	s.usage.releases.stop()
}

// usageNotice is the one status message of a session waiting on a window.
func (s *Service) usageNotice(rt *sessionRT, rec store.PendingRetry, uw usageWait, now time.Time) store.Message {
	usage := map[string]any{"key": uw.key, "hint": uw.hint, "held": uw.held, "reset_known": !uw.reset.IsZero()}
	if !uw.reset.IsZero() {
		usage["reset_at"] = uw.reset.UTC().Format(time.RFC3339Nano)
	}
	return store.Message{
		ID: rec.NoticeID, Role: "status", Variant: "warning", Text: usageWaitText(uw, now),
		Metadata: map[string]any{
			"kind": kindRetryNotice, "retrying": true, "attempt": rec.Attempt, "max_attempts": rec.MaxAttempts,
			"retry_at": rec.RetryAt.UTC().Format(time.RFC3339Nano), "failure_code": rec.Code, "rule_id": rec.RuleID,
			"usage": usage, "waiting": uw.waiting, "deadline": uw.deadline.UTC().Format(time.RFC3339Nano),
		},
		Actions: waitingActions(rt),
	}
}

// waitingActions are the buttons of every waiting notice: Cancel, and
// Retry now (retrynow.go).
func waitingActions(rt *sessionRT) []store.Action {
	return []store.Action{
		{ID: "cancel_retry", Label: "Cancel", Type: "ws_request", Action: "session.recover",
			Payload: map[string]any{"task_id": rt.task.ID, "session_id": rt.sess.ID, "action": RecoverCancelRetry}},
		{ID: "retry_now", Label: "Retry now", Type: "ws_request", Action: "session.recover",
			Payload: map[string]any{"task_id": rt.task.ID, "session_id": rt.sess.ID, "action": RecoverRetryNow}},
	}
}

// usageWaitText: "Usage limit reached — continuing at 3:00 PM (in 2h 14m)".
func usageWaitText(uw usageWait, now time.Time) string {
	label := routingerr.FamilyLabel(uw.code)
	switch {
	case uw.held:
		return fmt.Sprintf("%s — the limit should have reset; another session is checking first (%s waiting)", label, sessionsN(uw.waiting))
	case !uw.hint && uw.reset.IsZero():
		return fmt.Sprintf("%s — reset time unknown; checking again at %s (in %s)", label, clockTime(uw.at, now), untilText(uw.at.Sub(now)))
	}
	return fmt.Sprintf("%s — continuing at %s (in %s)", label, clockTime(uw.at, now), untilText(uw.at.Sub(now)))
}

// clockTime is t on the daemon's clock face: "3:00 PM", with the day when
// it is not today ("Tue 3:00 PM"). Clients show retry_at in their own zone.
func clockTime(t, now time.Time) string {
	lt, ln := t.In(time.Local), now.In(time.Local)
	if lt.YearDay() != ln.YearDay() || lt.Year() != ln.Year() {
		return lt.Format("Mon 3:04 PM")
	}
	return lt.Format("3:04 PM")
}

// untilText is a wait in words: "2h 14m", "14m", "45s".
func untilText(d time.Duration) string {
	secs := int64(max(d, 0).Round(time.Second) / time.Second)
	switch {
	case secs < 60:
		return fmt.Sprintf("%ds", secs)
	case secs < 3600:
		return fmt.Sprintf("%dm", (secs+30)/60)
	}
	mins := (secs + 30) / 60
	return fmt.Sprintf("%dh %dm", mins/60, mins%60)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// usageDeadlineText is the banner of a wait the task may not make.
func usageDeadlineText(r recoveryReason) string {
	if r.decision.Reason == routingerr.ReasonHintTooLong {
		return fmt.Sprintf("%s The provider asked to wait until %s, longer than this task may wait (%s).",
			routingerr.Describe(r.class), r.until.UTC().Format("2006-01-02 15:04 UTC"), longDuration(r.wait))
	}
	if r.class.ResetAt == nil && r.until.IsZero() {
		return routingerr.Describe(r.class) + " It did not reset within the time this task may wait (" + longDuration(r.wait) + ")."
	}
	return fmt.Sprintf("%s It resets at %s, later than this task may wait (%s).",
		routingerr.Describe(r.class), r.until.UTC().Format("2006-01-02 15:04 UTC"), longDuration(r.wait))
}

// hintTooLongText is the banner of a long hint the task does not wait for:
// when it could have retried.
func hintTooLongText(r recoveryReason) string {
	text := routingerr.Describe(r.class)
	if r.decision.Until.IsZero() {
		return text
	}
	return fmt.Sprintf("%s It asked to wait until %s, longer than the daemon retries by itself, so nothing was re-sent; Resume then, or let the task wait (on_usage_limit: wait).",
		text, r.decision.Until.UTC().Format("2006-01-02 15:04:05 UTC"))
}

// hungText is the banner of a turn that hung on every attempt.
func hungText(retries int) string {
	times := "time"
	if retries+1 != 1 {
		times = "times"
	}
	return fmt.Sprintf("The agent stopped responding %d %s in a row (no update within its silence limit), so it was not retried again.", retries+1, times)
}
