package orchestrator

// The per-session retry-loop owner (DESIGN §4): a failed turn is classified,
// the policy decides, and a transient failure is parked as one notice, one
// durable pending-retry row and one timer. Everything here runs with the
// session's mutex held unless the name says otherwise.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/coder/quartz"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// parkedRetry is the in-memory twin of a store.PendingRetry row.
// Its fields are ordered to fit the 240-byte size class: thousands park at
// once in an outage.
type parkedRetry struct {
	rec   store.PendingRetry
	timer *quartz.Timer // the deadline while waiting on a gate; nil when none (its own timer: duetimers.go)

	// Overload gate (gate.go).
	gate       string // key of the gate it waits on (or probes for); "" when on its own schedule
	noticeSaid uint64 // what the waiting notice says, as last written (saidSum of gateView.said)
	probe      bool   // dispatched as the gate's probe

	dispatching bool  // claimed; its attempt is running
	due         int32 // its place in the armed retries' heap, 1-based; 0: not armed (duetimers.go, under its mutex)
}

// turnFailedLocked classifies a failure and parks a retry or shows the banner.
func (s *Service) turnFailedLocked(rt *sessionRT, t *turn, ev routingerr.Evidence) {
	ev.HadOutput = ev.HadOutput || t.hadOutput
	ev.HadToolActivity = ev.HadToolActivity || t.hadTool
	now := s.now()
	c := routingerr.Classify(ev, now)
	s.cfg.Metrics.failures.WithLabelValues(c.Code, string(c.Class)).Inc()
	d := s.policy.Decide(c, ev, routingerr.AttemptState{
		Retry: t.retry, TaskMaxAttempts: rt.task.MaxAttempts, ChainMax: rt.chain.max,
	}, now)
	// A session that waited on a usage window and does not wait on it
	// again leaves it (usagewindow.go).
	defer s.usageAfterFailureLocked(rt, usageKeyOf(rt.retry))
	s.log.Warn("agent turn failed",
		zap.String("session_id", rt.sess.ID), zap.String("task_id", rt.task.ID),
		zap.String("phase", string(ev.Phase)), zap.String("code", c.Code), zap.String("class", string(c.Class)),
		zap.String("rule_id", c.RuleID), zap.String("decision", string(d.Kind)), zap.String("reason", d.Reason),
		zap.Int("retry", t.retry), zap.String("excerpt", c.Excerpt))
	// The execution record is written after the notice or banner: the user
	// hears first (notice first, issue 13).
	defer s.saveExecution(rt, t, ev, c)
	if c.OutputIsError {
		delete(t.streams, "agent") // never shown: the notice or banner says it instead
	}
	s.flushStreamsLocked(rt, t)
	if c.OutputIsError && t.agentMsg != "" {
		// The agent streamed its error line as if it were a reply; the
		// notice or banner says it in plain words instead.
		if s.deleteMessageLocked(rt, t.agentMsg) == nil {
			t.agentMsgs = slices.DeleteFunc(t.agentMsgs, func(id string) bool { return id == t.agentMsg })
			t.agentMsg = ""
		}
	}
	// What the failed attempt streamed stays, marked as interrupted, so the
	// user reads one reply rather than a pile of half-replies; after the
	// notice, which comes first.
	defer s.markInterruptedLocked(rt, t)
	if s.fallbackTryFailedLocked(rt, t, c, d) {
		return // a return try from a fallback met the overload again (fallback.go)
	}
	if s.gateFailedLocked(rt, t, c, d, now) {
		return
	}
	if s.usageFailedLocked(rt, t, c, d, now) {
		return
	}
	if d.Kind == routingerr.DecisionRetry {
		if err := s.parkLocked(rt, t, c, d, now); err == nil {
			return
		}
		d = routingerr.Decision{Kind: routingerr.DecisionManual, Reason: "persist_failed"}
	}
	reason := d.Reason
	if reason == "" {
		reason = string(c.Class) // a usage window (wait_for_reset) has no policy reason
	}
	s.recoveryBannerLocked(rt, t, recoveryReason{kind: reason, class: c, decision: d, retries: t.retry, detail: errorDetail(ev), hung: t.hung})
}

// markInterruptedLocked sets metadata interrupted=true on the agent text
// messages of a failed attempt.
func (s *Service) markInterruptedLocked(rt *sessionRT, t *turn) {
	s.markAgentMsgsLocked(rt, t, "interrupted", true, false)
}

func (s *Service) saveExecution(rt *sessionRT, t *turn, ev routingerr.Evidence, c routingerr.Classification) {
	evJSON, _ := jsonOf(routingerr.SanitizeEvidence(ev))
	cJSON, _ := jsonOf(c)
	now := s.now()
	_ = s.store.SaveExecution(s.storeCtx(), store.Execution{
		ID: uuid.NewString(), SessionID: rt.sess.ID, Generation: t.gen, Attempt: t.retry + 1,
		StartedAt: now, EndedAt: &now, Outcome: "failed", Evidence: evJSON, Classification: cJSON,
	})
}

// parkLocked: the notice and the durable row in one transaction, then the
// state, then the timer — so a crash at any point leaves either nothing
// scheduled or a row (with its notice) that the next start re-arms.
func (s *Service) parkLocked(rt *sessionRT, t *turn, c routingerr.Classification, d routingerr.Decision, now time.Time) error {
	retryAt := now.Add(d.Delay)
	noticeID := rt.notice
	if noticeID == "" {
		noticeID = uuid.NewString()
	}
	rec := store.PendingRetry{
		SessionID: rt.sess.ID, TaskID: rt.task.ID, Generation: rt.sess.Generation,
		Attempt: d.Retry, MaxAttempts: d.MaxAttempts, Code: c.Code, RuleID: c.RuleID,
		RetryAt: retryAt, Prompt: t.prompt, Resume: true,
		NoticeID: noticeID, State: store.RetryPending, CreatedAt: now,
	}
	if d := rt.chain.deadline(); !d.IsZero() {
		rec.Extra = map[string]any{extraGateDeadline: d.Format(time.RFC3339Nano)}
	}
	if rt.gateKey != "" {
		// Across a restart the retry still asks its own gate when it is due.
		if rec.Extra == nil {
			rec.Extra = map[string]any{}
		}
		rec.Extra[extraLastGate] = rt.gateKey
	}
	text := fmt.Sprintf("%s — retrying in %s (attempt %d/%d)", routingerr.FamilyLabel(c.Code), humanDelay(d.Delay), d.Retry, d.MaxAttempts)
	if err := s.upsertNoticeLocked(rt, text, rec); err != nil {
		s.log.Error("persist pending retry failed; falling back to manual recovery", zap.String("session_id", rt.sess.ID), zap.Error(err))
		return err
	}
	_ = s.emitLocked(rt, "session.turn.completed", map[string]any{"turn_id": t.id, "stop_reason": "retry_scheduled"}, change{})
	_ = s.setStateLocked(rt, store.SessionWaitingForInput, store.TaskInProgress)
	rt.chain = chainState{retry: d.Retry, max: d.MaxAttempts, until: rt.chain.until}
	if old := rt.retry; old != nil {
		s.stopTimersLocked(old)
		if old.gate != "" {
			s.gateLeaveLocked(rt.sess.ID, old.gate, now)
		}
	} else {
		s.cfg.Metrics.parkedSessions.Inc()
	}
	rt.retry = &parkedRetry{rec: rec}
	rt.staleRow = false // the row just saved replaced it
	// retry_at was fixed before the writes above: the timer counts to it,
	// not d.Delay from now, or every write would make the retry late.
	s.armLocked(rt, retryAt)
	s.cfg.Metrics.retriesArmed.WithLabelValues(c.Code).Inc()
	s.cfg.Metrics.retryDelay.Observe(d.Delay.Seconds())
	s.log.Info("retry scheduled", zap.String("session_id", rt.sess.ID), zap.Int("attempt", d.Retry),
		zap.Int("max_attempts", d.MaxAttempts), zap.Time("retry_at", retryAt), zap.String("code", c.Code))
	return nil
}

// armLocked arms the timer of rt.retry for at, its retry_at (or its
// release from a gate): it fires exactly then, with every retry due at the
// same instant (duetimers.go). The timer holds the parked retry itself,
// not its key: a parked retry is never re-keyed (a new generation or
// attempt parks a new one).
func (s *Service) armLocked(rt *sessionRT, at time.Time) {
	s.dueTimers.arm(rt.retry, at)
}

// stopTimersLocked stops p's timers: its own, and its gate deadline.
func (s *Service) stopTimersLocked(p *parkedRetry) {
	s.dueTimers.stop(p)
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// upsertNoticeLocked writes the one status message of this retry chain:
// added on the first failure, updated in place on every later one.
func (s *Service) upsertNoticeLocked(rt *sessionRT, text string, rec store.PendingRetry) error {
	m := store.Message{
		ID: rec.NoticeID, Role: "status", Variant: "warning", Text: text,
		Metadata: map[string]any{
			"kind": kindRetryNotice, "retrying": true, "attempt": rec.Attempt, "max_attempts": rec.MaxAttempts,
			"retry_at": rec.RetryAt.UTC().Format(time.RFC3339Nano), "failure_code": rec.Code, "rule_id": rec.RuleID,
		},
		Actions: waitingActions(rt),
	}
	return s.writeNoticeLocked(rt, m, change{retry: &rec})
}

// fire is the timer callback: start the retry, claim it exactly once, then
// re-drive the prompt. The in-memory check drops stale callbacks cheaply;
// the durable claim marks the retry as dispatching, so a crash from then on
// never replays blindly, and the prompt waits for it. Retries due together
// are claimed together (retrydue.go).
func (s *Service) fire(due []*parkedRetry) {
	if !s.enter() {
		return
	}
	defer s.leave()
	woke := s.now()
	items := make([]dueItem, len(due))
	for i, p := range due {
		items[i] = dueItem{sid: p.rec.SessionID, p: p, woke: woke} // rec's key fields never change
	}
	s.queueDue(items...)
}

// dispatchLocked claims a parked retry and starts its attempt. The claim
// rides on the attempt's session.turn.started (one commit): exactly once is
// the store's conditional update, and a retry that is not claimable leaves
// no trace of a start. Retries due together share one transaction
// (retrydue.go).
func (s *Service) dispatchLocked(rt *sessionRT, p *parkedRetry) {
	t, evs := s.dispatchEventsLocked(rt, p)
	began := s.now()
	err := s.emitAllLocked(rt, evs)
	s.dispatchedLocked(rt, p, t, err, s.now().Sub(began))
}

// dispatchEventsLocked is the attempt of a parked retry and the events of
// its start, which claim the retry.
func (s *Service) dispatchEventsLocked(rt *sessionRT, p *parkedRetry) (*turn, []pendingEvent) {
	t := s.newTurn(rt, p.rec.Prompt)
	t.replay, t.retry, t.fresh, t.probe = true, p.rec.Attempt, !p.rec.Resume, p.probe
	claim := store.RetryClaim{SessionID: rt.sess.ID, Generation: p.rec.Generation, Attempt: p.rec.Attempt}
	return t, s.turnStartedEvents(t, change{claim: &claim})
}

// dispatchedLocked goes on from the claim's outcome: err nil, the attempt
// runs; otherwise nothing started. claim is how long the claim's commit took.
func (s *Service) dispatchedLocked(rt *sessionRT, p *parkedRetry, t *turn, err error, claim time.Duration) {
	sessionID := rt.sess.ID
	if err != nil {
		t.cancel()
		if errors.Is(err, store.ErrUnwritable) {
			s.claimUnsavedLocked(rt, p, err)
			return
		}
		if errors.Is(err, store.ErrNotClaimed) {
			err = nil
		}
		s.log.Warn("retry not claimed", zap.String("session_id", sessionID), zap.Bool("claimable", false), zap.Error(err))
		if p.probe {
			s.gateAbandonLocked(rt, s.now())
		}
		return
	}
	s.stopTimersLocked(p) // a waiting session's deadline
	p.dispatching = true
	p.rec.State = store.RetryDispatching
	s.log.Info("retry firing", zap.String("session_id", sessionID), zap.Int("attempt", p.rec.Attempt), zap.Bool("probe", p.probe),
		zap.Duration("claim", claim)) // the claim with the turn's start
	_ = s.runLocked(rt, t) // only ErrClosed: the claimed row becomes manual recovery at the next start
}

// disarmLocked ends a parked or dispatching retry; outcome feeds the metrics.
func (s *Service) disarmLocked(rt *sessionRT, outcome string) {
	if rt.retry == nil {
		return
	}
	s.cfg.Metrics.outcomes.WithLabelValues(outcome).Inc()
	s.clearRetryLocked(rt)
}

// clearRetryLocked stops the timer and deletes the durable row.
func (s *Service) clearRetryLocked(rt *sessionRT) {
	if !s.forgetRetryLocked(rt) {
		return
	}
	s.retryRowDeletedLocked(rt, s.store.DeletePendingRetry(s.storeCtx(), rt.sess.ID))
}

// forgetRetryLocked is clearRetryLocked but for the durable row, which the
// caller deletes (with an event: change.deleteRetry); false: no retry.
func (s *Service) forgetRetryLocked(rt *sessionRT) bool {
	p := rt.retry
	if p == nil {
		return false
	}
	s.stopTimersLocked(p)
	if p.gate != "" {
		s.gateLeaveLocked(rt.sess.ID, p.gate, s.now())
	}
	s.usageLeaveLocked(rt.sess.ID, usageKeyOf(p))
	rt.retry = nil
	s.cfg.Metrics.parkedSessions.Dec()
	return true
}

// retryRowDeletedLocked handles the outcome of deleting the retry row.
func (s *Service) retryRowDeletedLocked(rt *sessionRT, err error) {
	if err == nil {
		return
	}
	// The claim checks generation and attempt, so a leftover row cannot
	// fire in this process; reconcile deletes it before a restart could
	// re-arm it.
	s.log.Error("delete pending retry failed", zap.String("session_id", rt.sess.ID), zap.Error(err))
	rt.staleRow = true
	s.armReconcileLocked(rt)
}

func (s *Service) dropNoticeLocked(rt *sessionRT) {
	if rt.notice == "" {
		return
	}
	if s.deleteMessageLocked(rt, rt.notice) != nil {
		s.deleteLaterLocked(rt, rt.notice) // gone for the user now, from the store at reconcile
	}
	rt.notice = ""
}

// retireBannerLocked removes the recovery banner once something supersedes it.
func (s *Service) retireBannerLocked(rt *sessionRT) {
	s.dropUnsavedLocked(rt)
	if rt.banner == "" {
		return
	}
	if s.deleteMessageLocked(rt, rt.banner) != nil {
		s.deleteLaterLocked(rt, rt.banner)
	}
	rt.banner, rt.bannerReason = "", ""
}

// Recovery banner reasons besides the policy's.
const (
	kindRetryCancelled = "retry_cancelled" // the user pressed Cancel on a retry notice
	kindGateDeadline   = "gate_deadline"   // waited on an overload gate past the chain's deadline
)

// recoveryReason says why a turn needs a human.
type recoveryReason struct {
	kind     string // routingerr decision reason, or retry_cancelled, interrupted, interrupted_retry
	class    routingerr.Classification
	decision routingerr.Decision
	retries  int
	wait     time.Duration // gate_deadline: the deadline that passed; usage_deadline: how long the task may wait
	until    time.Time     // usage_deadline: when the window resets (or the hint ends)
	hung     bool          // the last attempt was cancelled for its silence (silence.go)
	cause    error         // store_failed: the write that failed
	detail   string        // the failure as reported, sanitised (errorDetail)
	takeover bool          // interrupted, machine_gone: another daemon of the fleet took the session over (fleet.go)
	workdir  string        // machine_gone: the work directory out of reach
}

func (r recoveryReason) text() string {
	c := r.class
	switch r.kind {
	case kindRetryCancelled:
		return "Automatic retry cancelled. Resume when you are ready, or start fresh."
	case "interrupted":
		if r.takeover {
			return "The daemon running this turn went away; another daemon of the fleet took the task over. Nothing was re-sent automatically."
		}
		return "The daemon stopped while this turn was running. Nothing was re-sent automatically."
	case "interrupted_retry":
		if r.takeover {
			return "The daemon running this task went away while a retry was being sent; another daemon of the fleet took the task over. Nothing was re-sent automatically."
		}
		return "The daemon stopped while a retry was being sent. Nothing was re-sent automatically."
	case kindMachineGone:
		return "The machine running this task went away, and its work directory (" + r.workdir + ") cannot be reached from this daemon. " +
			"Nothing was re-sent automatically; resume it once that machine is back, or start fresh."
	case "exhausted":
		if r.hung {
			return hungText(r.retries)
		}
		return exhaustedText(c.Code, r.retries)
	case kindUsageDeadline:
		return usageDeadlineText(r)
	case routingerr.ReasonHintTooLong:
		return hintTooLongText(r)
	case kindGateDeadline:
		return deadlineText(c.Code, r.wait)
	case "disabled":
		return routingerr.Describe(c) + " Automatic retry is off for this task."
	case "replay_unsafe":
		return routingerr.Describe(c) + " The agent had already produced output, so the turn was not replayed automatically."
	case kindStoreFailed:
		return "The daemon could not save this turn (" + store.FaultReason(r.cause) + "), so it was stopped. " +
			"Free disk space or fix the data directory, then Resume."
	case "persist_failed":
		return routingerr.Describe(c) + " The retry could not be saved, so it was not scheduled."
	}
	text := routingerr.Describe(c)
	if c.Class == routingerr.ClassWaitForReset && c.ResetAt != nil {
		text += " It resets at " + c.ResetAt.UTC().Format("2006-01-02 15:04 UTC") + "."
	}
	return text
}

func exhaustedText(code string, retries int) string {
	noun := "retries"
	if retries == 1 {
		noun = "retry"
	}
	switch code {
	case "overloaded", "capacity":
		return fmt.Sprintf("The provider stayed overloaded after %d %s.", retries, noun)
	case "network", "transport_lost":
		return fmt.Sprintf("The connection kept failing after %d %s.", retries, noun)
	case "rate_limited":
		return fmt.Sprintf("The provider kept rate-limiting after %d %s.", retries, noun)
	}
	return fmt.Sprintf("The provider kept failing after %d %s.", retries, noun)
}

// recoveryBannerLocked ends the chain and asks the user what to do.
func (s *Service) recoveryBannerLocked(rt *sessionRT, t *turn, r recoveryReason) {
	if r.kind == kindGateDeadline && s.fallbackLocked(rt, t, r) {
		return // continues on a fallback profile instead (fallback.go)
	}
	outcome := outcomeExhausted
	switch r.kind {
	case kindRetryCancelled:
		outcome = outcomeCancelled
	case kindGateDeadline:
		outcome = outcomeDeadline
	}
	if rt.retry != nil || r.kind == "exhausted" {
		s.cfg.Metrics.outcomes.WithLabelValues(outcome).Inc()
	}
	s.clearRetryLocked(rt)
	s.dropNoticeLocked(rt)
	s.retireBannerLocked(rt)
	rt.chain = chainState{}
	meta := map[string]any{"kind": kindRecovery, "reason": r.kind}
	if r.class.Code != "" {
		meta["failure_code"] = r.class.Code
		meta["class"] = string(r.class.Class)
		meta["rule_id"] = r.class.RuleID
		meta["excerpt"] = r.class.Excerpt
	}
	if r.detail != "" {
		meta["error"] = r.detail
	}
	if r.class.ResetAt != nil {
		meta["reset_at"] = r.class.ResetAt.UTC().Format(time.RFC3339)
	}
	if r.kind == routingerr.ReasonHintTooLong && !r.decision.Until.IsZero() {
		meta["could_retry_at"] = r.decision.Until.UTC().Format(time.RFC3339Nano) // when a wait would have ended
	}
	if r.cause != nil {
		meta["store_error"] = r.cause.Error()
	}
	m := store.Message{ID: uuid.NewString(), Role: "status", Variant: "error", Text: r.text(), Metadata: meta,
		Actions: []store.Action{
			{ID: "resume", Label: "Resume", Type: "ws_request", Action: "session.recover",
				Payload: map[string]any{"task_id": rt.task.ID, "session_id": rt.sess.ID, "action": RecoverResume}},
			{ID: "fresh_start", Label: "Start fresh", Type: "ws_request", Action: "session.recover",
				Payload: map[string]any{"task_id": rt.task.ID, "session_id": rt.sess.ID, "action": RecoverFreshStart}},
		}}
	if t != nil {
		m.TurnID = t.id
	}
	// Where the store takes nothing (a full disk), the banner and the
	// state still reach the user, from memory (storefault.go).
	if s.addMessageLocked(rt, m) == nil {
		rt.banner, rt.bannerReason = m.ID, r.kind
	} else {
		s.holdUnsavedLocked(rt, m)
	}
	if t != nil {
		// After its banner: a client never sees a failed turn unexplained.
		done := map[string]any{"turn_id": t.id, "stop_reason": "failed"}
		if s.emitLocked(rt, "session.turn.completed", done, change{}) != nil {
			s.publishUnsavedLocked(rt, "session.turn.completed", done)
		}
	}
	if s.setStateLocked(rt, store.SessionFailed, store.TaskReview) != nil {
		s.forceStateLocked(rt, store.SessionFailed, store.TaskReview)
	}
}

// Recover handles session.recover: cancel_retry, resume, fresh_start.
func (s *Service) Recover(ctx context.Context, req RecoverRequest) error {
	if req.TaskID == "" {
		return fmt.Errorf("%w: task_id is required", ErrValidation)
	}
	switch req.Action {
	case RecoverCancelRetry, RecoverRetryNow, RecoverResume, RecoverFreshStart:
	default:
		return fmt.Errorf("%w: action must be cancel_retry, retry_now, resume or fresh_start, got %q", ErrValidation, req.Action)
	}
	rt, err := s.session(ctx, req.SessionID, req.TaskID)
	if err != nil {
		return err
	}
	rt, unpin, err := s.owned(ctx, rt, req.SessionID)
	if err != nil {
		return err
	}
	defer unpin()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch req.Action {
	case RecoverCancelRetry:
		return s.cancelRetryLocked(rt)
	case RecoverRetryNow:
		return s.retryNowLocked(rt)
	}
	if rt.turn != nil {
		return fmt.Errorf("%w: a turn is running; stop it before %s", ErrConflict, req.Action)
	}
	if err := s.reconcileLocked(rt); err != nil {
		return err // still cannot save: the banner stays, nothing changes
	}
	if req.Action == RecoverResume && rt.banner == "" && rt.retry == nil {
		// Nothing failed: resuming would send the agent the prompt it has
		// already answered (a second click on Resume, a stale page).
		return fmt.Errorf("%w: session %q has nothing to resume; send a new prompt instead", ErrConflict, rt.sess.ID)
	}
	prompt, ok := s.lastUserPromptLocked(rt)
	if !ok {
		return fmt.Errorf("%w: session %q has no prompt to re-send", ErrConflict, rt.sess.ID)
	}
	afterRestart := rt.banner != "" && (rt.bannerReason == "interrupted" || rt.bannerReason == "interrupted_retry")
	s.disarmLocked(rt, outcomeSuperseded)
	s.dropNoticeLocked(rt)
	s.retireBannerLocked(rt)
	fresh := req.Action == RecoverFreshStart
	if fresh {
		s.freshDividerLocked(rt) // history.go
	}
	next := rt.sess
	next.Generation++
	if fresh {
		next.AgentSessionID = ""
	}
	rt.chain = chainState{}
	waits, probe := s.gateResumeLocked(rt, prompt, &next, fresh)
	if waits {
		return nil // waits on the provider's overload gate
	}
	t := s.newTurn(rt, prompt)
	t.gen = next.Generation
	t.replay, t.fresh, t.probe, t.afterRestart = true, fresh, probe, afterRestart
	s.log.Info("manual recovery", zap.String("session_id", rt.sess.ID), zap.String("action", req.Action))
	return s.launchOrFailLocked(rt, t, &next)
}

// cancelRetryLocked disarms the chain and shows the banner; idempotent.
func (s *Service) cancelRetryLocked(rt *sessionRT) error {
	p := rt.retry
	if p == nil {
		return nil // nothing pending: already cancelled, fired or recovered
	}
	if p.dispatching && rt.turn != nil {
		// The attempt is already running: stop it, its end shows the banner.
		rt.turn.cancelledRetry = true
		rt.turn.cancel()
		s.stopTimersLocked(p)
		return nil
	}
	s.recoveryBannerLocked(rt, nil, recoveryReason{kind: kindRetryCancelled})
	return nil
}

func (s *Service) lastUserPromptLocked(rt *sessionRT) (string, bool) {
	if rt.retry != nil {
		return rt.retry.rec.Prompt, true
	}
	msgs, err := s.store.ListMessages(s.storeCtx(), rt.sess.ID)
	if err != nil {
		return "", false
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Text, true
		}
	}
	return "", false
}

// Start re-arms persisted retries at their original retry_at, restores the
// overload gates that were open with the sessions waiting on them, and
// turns work that a crash interrupted into manual recovery. Call it once,
// before serving.
func (s *Service) Start(ctx context.Context) error {
	if s.cfg.Fleet != nil {
		return s.startFleet(ctx) // only the sessions nobody else owns (fleet.go)
	}
	pending, err := s.store.ListPendingRetries(ctx)
	if err != nil {
		return fmt.Errorf("list pending retries: %w", err)
	}
	parked := make(map[string]bool, len(pending))
	gated := make(map[string][]*sessionRT)
	for _, rec := range pending {
		rt, err := s.session(ctx, rec.SessionID, "")
		if err != nil {
			s.log.Error("pending retry for unknown session dropped", zap.String("session_id", rec.SessionID), zap.Error(err))
			_ = s.store.DeletePendingRetry(ctx, rec.SessionID)
			continue
		}
		rt.mu.Lock()
		if rt.banner != "" {
			// A recovery banner ended this chain, but the store could not
			// delete its row then (a full disk): it must not fire behind
			// the banner now, nor turn into a second one.
			s.log.Warn("stale pending retry behind a recovery banner dropped", zap.String("session_id", rec.SessionID),
				zap.Int("attempt", rec.Attempt), zap.String("state", rec.State))
			_ = s.store.DeletePendingRetry(ctx, rec.SessionID)
			rt.mu.Unlock()
			continue
		}
		parked[rec.SessionID] = true
		rt.notice = rec.NoticeID
		rt.retry = &parkedRetry{rec: rec}
		s.cfg.Metrics.parkedSessions.Inc()
		key, _, deadline := gateOfRetry(rec)
		rt.gateKey = sessionGateOfRetry(rec)
		switch {
		case rec.State == store.RetryDispatching:
			// It may have reached the provider: never replay blindly.
			s.recoveryBannerLocked(rt, nil, recoveryReason{kind: "interrupted_retry"})
		case key != "":
			rt.chain = chainOf(rec.Attempt, rec.MaxAttempts, deadline)
			gated[key] = append(gated[key], rt) // restoreGates arms it
		default:
			rt.chain = chainOf(rec.Attempt-1, rec.MaxAttempts, deadline)
			s.usageRestore(rec.SessionID, rt.retry)
			delay := rec.RetryAt.Sub(s.now())
			s.armLocked(rt, rec.RetryAt)
			s.log.Info("pending retry re-armed", zap.String("session_id", rec.SessionID),
				zap.Time("retry_at", rec.RetryAt), zap.Duration("in", max(delay, 0)))
		}
		rt.mu.Unlock()
	}
	if err := s.restoreGates(ctx, gated); err != nil {
		return err
	}
	s.startFleetGates()
	sessions, err := s.store.ListAllSessions(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	for _, sess := range sessions {
		if parked[sess.ID] || sess.State != store.SessionStarting && sess.State != store.SessionRunning {
			continue
		}
		rt, err := s.session(ctx, sess.ID, "")
		if err != nil {
			continue
		}
		rt.mu.Lock()
		s.recoveryBannerLocked(rt, nil, recoveryReason{kind: "interrupted"})
		rt.mu.Unlock()
	}
	return nil
}

// humanDelay renders a delay for notices: "5s", "1m30s"; the exact time is in retry_at.
func humanDelay(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	secs := max(1, int(math.Round(d.Seconds()))) // 15.4s of jittered delay reads "15s"
	if secs < 60 {
		return fmt.Sprintf("%ds", secs)
	}
	return (time.Duration(secs) * time.Second).String()
}
