package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/coder/quartz"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// turn is one attempt at answering the current prompt.
type turn struct {
	id     string
	gen    int64
	prompt string // the user's prompt, cached for retries
	replay bool   // a re-drive of a prompt the agent may already hold
	fresh  bool   // start a new agent session instead of resuming
	// afterRestart: a Resume of a turn that a daemon stop or crash cut
	// short, so the continuation blames the daemon, not the provider.
	afterRestart bool
	retry        int // automatic retry number of this attempt; 0 for a user's send
	ctx          context.Context
	cancel       context.CancelFunc

	// Guarded by the session's mutex.
	stopped        bool // the user pressed Stop
	cancelledRetry bool // cancel_retry arrived while this retry ran
	agentMsg       string
	agentMsgs      []string // every agent text message of this attempt, for marking it interrupted
	thoughtMsg     string
	planMsg        string
	tools          map[string]store.Message
	hadOutput      bool
	hadTool        bool
	// probe: this attempt is its gate's probe (gate_probe.go).
	probe     bool
	answered  bool   // the probe proved the provider answers
	probeText string // its streamed text so far, capped
	storeErr  error  // an event of this turn could not be saved (storefault.go)
	// streams sanitise the streamed agent and thought text (redact.go).
	streams map[string]*redactor
	// Silence watch (silence.go).
	silence      *quartz.Timer
	lastActivity time.Time
	silentNote   string // id of the "no response" line; "" when none
	hung         bool   // cancelled for its silence
	// streamed lists the messages the turn appended text to, sealed when
	// it ends (stream.go).
	streamed []string
	usage    *lifecycle.Usage // what the agent reported of this turn (usage.go); nil when nothing
	// claim: a due retry's attempt, closed once its claim is settled,
	// claimErr nil when claimed; nil for other turns (retrydue.go).
	claim    chan struct{}
	claimErr error
	in       *execInputs // read when it started, so its agent starts while the claim holds the lock; nil: read at launch
}

func (s *Service) newTurn(rt *sessionRT, prompt string) *turn {
	ctx, cancel := context.WithCancel(s.ctx)
	return &turn{id: uuid.NewString(), gen: rt.sess.Generation, prompt: prompt, ctx: ctx, cancel: cancel}
}

// Prompt sends a user prompt to the session.
func (s *Service) Prompt(ctx context.Context, req PromptRequest) error {
	if err := validatePrompt(req.Text); err != nil {
		return err
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
	return s.startUserTurn(rt, req.Text)
}

// startUserTurn records the user's prompt and runs it. The prompt is durable
// before anything else happens; a parked retry or banner of an older prompt
// is superseded.
func (s *Service) startUserTurn(rt *sessionRT, text string) error {
	return s.startUserTurnView(rt, text, nil)
}

// startUserTurnView is startUserTurn that also fills view, when not nil,
// under the same hold of the session lock: a caller that locked again
// afterwards would queue behind the turn's first failure, which may hold
// the lock while it arms its retry.
func (s *Service) startUserTurnView(rt *sessionRT, text string, view *TaskView) (err error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if view != nil {
		defer func() {
			if err == nil {
				*view = s.withModel(rt.view(), rt.agent())
			}
		}()
	}
	if rt.turn != nil {
		return fmt.Errorf("%w: a turn is already running in session %q; stop it first", ErrConflict, rt.sess.ID)
	}
	if err := s.reconcileLocked(rt); err != nil {
		return err
	}
	s.flushOrFailLocked(rt) // nothing is buffered between turns; the seq below must be the next
	next := rt.sess
	next.Generation++
	turnID := uuid.NewString()
	// The chat and the history keep the prompt sanitised; the agent gets it
	// as typed (t.prompt), from memory.
	m := store.Message{ID: uuid.NewString(), TurnID: turnID, Role: "user", Text: routingerr.Sanitize(text)}
	now := s.now()
	m.SessionID, m.Seq, m.CreatedAt, m.UpdatedAt = rt.sess.ID, rt.sess.LastSeq+1, now, now
	if err := s.emitLocked(rt, "session.message.added", map[string]any{"message": m}, change{sess: &next, upsert: &m}); err != nil {
		return storageErr(err)
	}
	s.disarmLocked(rt, outcomeSuperseded)
	s.dropNoticeLocked(rt) // its Cancel would do nothing above the new turn
	s.retireBannerLocked(rt)
	rt.chain = chainState{}
	t := s.newTurn(rt, text)
	t.id = turnID
	return s.launchOrFailLocked(rt, t, nil)
}

// launchOrFailLocked launches a turn whose prompt is already recorded: if
// its start cannot be saved, the turn fails visibly (the could-not-save
// banner, Resume) rather than leaving the user's action half done.
func (s *Service) launchOrFailLocked(rt *sessionRT, t *turn, next *store.Session) error {
	err := s.launchLocked(rt, t, next)
	if errors.Is(err, ErrStorage) {
		s.storeFailedLocked(rt, nil, err)
		return nil
	}
	return err
}

// launchLocked publishes the turn's start (with the next session row, when
// the generation moves) and runs it in the background.
func (s *Service) launchLocked(rt *sessionRT, t *turn, next *store.Session) error {
	if err := s.emitTurnStartedLocked(rt, t, change{sess: next}); err != nil {
		return storageErr(err)
	}
	return s.runLocked(rt, t)
}

// emitTurnStartedLocked records the turn's start and the session's move
// to STARTING, one commit; c may carry the session row and a retry's
// claim.
func (s *Service) emitTurnStartedLocked(rt *sessionRT, t *turn, c change) error {
	return s.emitAllLocked(rt, s.turnStartedEvents(t, c))
}

// turnStartedEvents are the events of a turn's start.
func (s *Service) turnStartedEvents(t *turn, c change) []pendingEvent {
	return []pendingEvent{
		{action: "session.turn.started", body: map[string]any{"turn_id": t.id, "generation": t.gen, "retry": t.retry, "replay": t.replay}, c: c},
		stateEvent(store.SessionStarting, store.TaskInProgress),
	}
}

// runLocked runs a turn whose start is recorded, in the background.
func (s *Service) runLocked(rt *sessionRT, t *turn) error {
	s.fallbackBoundaryLocked(rt, t) // a session on a fallback moves back between turns, never in one
	rt.turn = t
	s.stopIdleLocked(rt)
	s.armSilenceLocked(rt, t)
	if !s.goTurn(func() { s.runTurn(rt, t) }) {
		rt.turn = nil
		t.cancel()
		return ErrClosed
	}
	return nil
}

// runTurn drives one attempt from launch to its end.
func (s *Service) runTurn(rt *sessionRT, t *turn) {
	defer t.cancel()
	ex, started, err := s.execution(rt, t)
	if !s.claimed(t) {
		return // a due retry not claimed: nothing was sent (retrydue.go)
	}
	if err != nil {
		s.finishTurn(rt, t, nil, lifecycle.PromptResult{}, err)
		return
	}
	text := t.prompt
	if t.replay && started && ex.Resumed() && s.agentHoldsPrompt(rt, ex, t.prompt) {
		text = s.cfg.Continuation
		if t.afterRestart {
			text = daemonContinuation
		}
	}
	forgot := ""
	if started && !t.fresh {
		forgot = resumeFailureOf(ex)
	}
	rt.mu.Lock()
	if forgot != "" {
		text = s.resendTranscriptLocked(rt, t, forgot, text)
	}
	if started {
		s.setModelLocked(rt, modelOf(ex)) // published with the state change below
	}
	// RUNNING rides the next flush (stream.go): with the reply's first
	// text, or with the turn's end when that comes first.
	agentSession := ex.AgentSessionID()
	s.stageEventLocked(rt, t, pendingEvent{action: "session.state_changed", state: store.SessionRunning, agentSession: &agentSession})
	rt.mu.Unlock()
	res, err := ex.Prompt(t.ctx, text)
	s.finishTurn(rt, t, ex, res, err)
}

// agentHoldsPrompt reports whether the resumed agent's history already holds
// every copy of the prompt the user sent, so re-sending it would duplicate a
// user turn.
func (s *Service) agentHoldsPrompt(rt *sessionRT, ex Execution, prompt string) bool {
	// The chat keeps prompts sanitised, and so does a retry restored after
	// a restart: compare what the agent holds in that form too.
	stored := routingerr.Sanitize(prompt)
	inAgent := 0
	for _, p := range ex.ReplayedUserPrompts() {
		if p == prompt || routingerr.Sanitize(p) == stored {
			inAgent++
		}
	}
	if inAgent == 0 {
		return false
	}
	rt.mu.Lock()
	users := int(rt.userMsgs)
	rt.mu.Unlock()
	if inAgent >= users {
		return true // it holds as many copies as the session has prompts at all: no read
	}
	sent, err := s.store.CountMessages(s.storeCtx(), rt.sess.ID, "user", stored)
	if err != nil {
		return true // unsure: a continuation is harmless, a duplicate turn is not
	}
	return inAgent >= sent
}

// execInputs is what a turn's execution starts from, read under the
// session's lock.
type execInputs struct {
	ex                      Execution // the live process; nil when none
	resumeID, agent, sessID string
	task                    store.Task
}

// execInputsLocked takes the session's process away from a fresh turn.
func (s *Service) execInputsLocked(rt *sessionRT, t *turn) *execInputs {
	in := &execInputs{ex: rt.exec, resumeID: rt.sess.AgentSessionID, task: rt.task,
		agent:  rt.agent(), // the task's profile, or the fallback it continues on (fallback.go)
		sessID: rt.sess.ID}
	if t.fresh && in.ex != nil {
		rt.exec = nil
	}
	return in
}

// execution returns the session's live agent process, starting (or
// resuming) one; started reports a new process.
func (s *Service) execution(rt *sessionRT, t *turn) (_ Execution, started bool, _ error) {
	in := t.in
	if in == nil {
		rt.mu.Lock()
		in = s.execInputsLocked(rt, t)
		rt.mu.Unlock()
	}
	ex, resumeID, task, agent, sessID := in.ex, in.resumeID, in.task, in.agent, in.sessID
	if t.fresh {
		if ex != nil {
			_ = ex.Close()
		}
		ex, resumeID = nil, ""
	}
	if ex != nil {
		return ex, false, nil
	}
	profile, ok := s.cfg.Profiles[agent]
	if !ok {
		return nil, false, &lifecycle.FailureError{Evidence: routingerr.Evidence{Agent: agent, Phase: routingerr.PhaseProcessStart,
			Err: fmt.Sprintf("agent profile %q is not configured", agent)}}
	}
	if err := s.waitSlot(rt, t); err != nil {
		return nil, false, err
	}
	ex, err := s.cfg.Agents.Start(t.ctx, lifecycle.StartRequest{
		Profile:         profile,
		Workdir:         task.Workdir,
		Env:             map[string]string{"ORCHESTRATORD_TASK_ID": task.ID, "ORCHESTRATORD_SESSION_ID": sessID},
		ResumeSessionID: resumeID,
		OnEvent:         func(ev lifecycle.Event) { s.onAgentEvent(rt, ev) },
	})
	if err != nil {
		s.releaseSlot()
		return nil, false, err
	}
	if s.slots.max > 0 {
		ex = &slotExec{Execution: ex, release: s.releaseSlot}
	}
	if !s.claimed(t) {
		_ = ex.Close() // started alongside a claim that was refused (retrydue.go)
		return nil, false, errNotClaimed
	}
	rt.mu.Lock()
	rt.exec = ex
	rt.mu.Unlock()
	return ex, true, nil
}

// onAgentEvent turns streamed updates into chat messages of the running turn.
func (s *Service) onAgentEvent(rt *sessionRT, ev lifecycle.Event) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if ev.Kind == lifecycle.EventModel { // not activity, and news between turns too (model.go)
		s.onModelLocked(rt, ev)
		return
	}
	t := rt.turn
	if t == nil {
		return
	}
	if ev.Kind == lifecycle.EventUsage { // bookkeeping, not activity (usage.go)
		t.usage = mergeUsage(t.usage, ev.Usage)
		return
	}
	s.activityLocked(rt, t)
	s.noteProbeOutputLocked(rt, t, ev)
	switch ev.Kind {
	case lifecycle.EventAgentMessage:
		t.hadOutput = true
		s.streamLocked(rt, t, &t.agentMsg, "agent", ev.Text)
	case lifecycle.EventAgentThought:
		s.streamLocked(rt, t, &t.thoughtMsg, "thought", ev.Text)
	case lifecycle.EventPlan:
		m := store.Message{ID: t.planMsg, TurnID: t.id, Role: "plan", Text: ev.Text}
		if t.planMsg == "" {
			m.ID = uuid.NewString()
			t.planMsg = m.ID
			_ = s.addMessageLocked(rt, m)
			return
		}
		_ = s.replaceMessageLocked(rt, m)
	case lifecycle.EventToolCall, lifecycle.EventToolCallUpdate:
		t.hadTool = true
		s.flushStreamLocked(rt, t, &t.agentMsg, "agent")
		t.agentMsg = "" // text after a tool call starts a new bubble
		m, known := t.tools[ev.ToolCallID]
		if !known {
			m = store.Message{ID: uuid.NewString(), TurnID: t.id, Role: "tool", Metadata: map[string]any{"tool_call_id": ev.ToolCallID}}
		}
		if ev.Title != "" {
			m.Text = ev.Title
		}
		if ev.Status != "" {
			m.Metadata["status"] = ev.Status
		}
		if ev.ToolKind != "" {
			m.Metadata["tool_kind"] = ev.ToolKind
		}
		toolDetailsLocked(m.Metadata, ev)
		if !known {
			if s.addMessageLocked(rt, m) == nil {
				m.Seq = rt.sess.LastSeq
				if t.tools == nil {
					t.tools = make(map[string]store.Message) // most attempts of a burst never call a tool
				}
				t.tools[ev.ToolCallID] = m
			}
			return
		}
		if s.replaceMessageLocked(rt, m) == nil {
			t.tools[ev.ToolCallID] = m
		}
	}
}

// streamLocked appends a chunk to the turn's message of that role, creating
// it first, once the chunk's text is sanitised (redact.go).
func (s *Service) streamLocked(rt *sessionRT, t *turn, id *string, role, text string) {
	if text == "" {
		return
	}
	delta, drop := t.stream(role).next(text, false)
	s.showStreamLocked(rt, t, id, role, delta, drop)
}

// StopTurn stops the running turn, or disarms a parked retry. Idempotent.
func (s *Service) StopTurn(ctx context.Context, req StopRequest) error {
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
	if t := rt.turn; t != nil {
		t.stopped = true
		t.cancel()
		return nil
	}
	if rt.retry != nil {
		s.disarmLocked(rt, outcomeCancelled)
		s.dropNoticeLocked(rt)
		if err := s.setStateLocked(rt, store.SessionWaitingForInput, store.TaskReview); err != nil {
			s.forceStateLocked(rt, store.SessionWaitingForInput, store.TaskReview)
		}
		return nil
	}
	if rt.sess.State == store.SessionStarting || rt.sess.State == store.SessionRunning {
		// No turn, yet the session says it runs: its end could not be
		// saved. Stop always ends it.
		if err := s.setStateLocked(rt, store.SessionWaitingForInput, store.TaskReview); err != nil {
			s.forceStateLocked(rt, store.SessionWaitingForInput, store.TaskReview)
		}
	}
	return nil
}

// finishTurn settles a turn: success, stop, or a failure for the retry owner.
// A failure's notice (or banner) goes out first; the failed agent process is
// torn down after it (evidence.go).
func (s *Service) finishTurn(rt *sessionRT, t *turn, ex Execution, res lifecycle.PromptResult, err error) {
	rt.mu.Lock()
	if rt.turn == t {
		s.stopSilenceLocked(rt, t)
	}
	if t.hung && !t.stopped && !t.cancelledRetry && s.ctx.Err() == nil {
		err = s.hungFailure(rt, t, err)
	}
	rt.mu.Unlock()
	var ev routingerr.Evidence
	if err != nil {
		var teardown func()
		ev, teardown = s.failureEvidence(rt, t, ex, err)
		defer teardown()
	}
	if s.ctx.Err() != nil && (err != nil || res.StopReason == "cancelled") {
		// Cut short by shutdown: leave the turn as it stands, with what it
		// streamed saved; the next start offers recovery. A turn that
		// finished is recorded as usual.
		rt.mu.Lock()
		if rt.turn == t {
			_ = s.flushBufferLocked(rt)
			s.sealLocked(rt, t)
			rt.turn = nil
		}
		rt.mu.Unlock()
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.turn != t {
		return
	}
	rt.turn = nil
	cancelled := t.ctx.Err() != nil || res.StopReason == "cancelled" || ev.Cancelled
	if err != nil || cancelled || t.cancelledRetry || t.storeErr != nil {
		s.flushOrFailLocked(rt) // a success's end batch takes the buffer with it (turnbatch.go)
	}
	if t.storeErr != nil {
		s.storeFailedLocked(rt, t, t.storeErr)
		return
	}
	rt.writeErr = nil
	defer s.sealLocked(rt, t)
	defer func() {
		// The turn's end could not be saved (a full disk at its last
		// event): it fails visibly instead of staying RUNNING.
		if err := rt.writeErr; err != nil {
			s.storeFailedLocked(rt, t, err)
		}
	}()
	if err == nil || cancelled {
		s.flushStreamsLocked(rt, t) // a failure flushes once it knows whether the text was the error line
	}
	s.turnUsageLocked(rt, t, res.Usage) // usage.go: under the reply, before the turn's end
	switch {
	case t.cancelledRetry:
		s.gateAbandonLocked(rt, s.now())
		s.recoveryBannerLocked(rt, t, recoveryReason{kind: kindRetryCancelled})
	case cancelled && t.stopped:
		s.gateAbandonLocked(rt, s.now())
		s.markAgentMsgsLocked(rt, t, "stopped", true, false)
		s.turnEndedLocked(rt, t, "cancelled", store.SessionWaitingForInput, store.TaskReview)
		s.disarmLocked(rt, outcomeCancelled)
		s.dropNoticeLocked(rt)
	case err == nil:
		s.turnSucceededLocked(rt, t, res.StopReason)
	default:
		s.turnFailedLocked(rt, t, ev)
	}
}

func (s *Service) turnEndedLocked(rt *sessionRT, t *turn, outcome, state, taskState string) {
	s.endTurnLocked(rt, t, outcome, state, taskState, false)
}

// endTurnLocked records the turn's end; deleteRetry: its session.turn.completed
// also deletes the pending retry row (forgetRetryLocked), one commit for both.
func (s *Service) endTurnLocked(rt *sessionRT, t *turn, outcome, state, taskState string, deleteRetry bool) {
	err := s.emitLocked(rt, "session.turn.completed", map[string]any{"turn_id": t.id, "stop_reason": outcome}, change{deleteRetry: deleteRetry})
	if deleteRetry {
		s.retryRowDeletedLocked(rt, err)
	}
	_ = s.setStateLocked(rt, state, taskState)
	s.armIdleLocked(rt)
}

func (s *Service) turnSucceededLocked(rt *sessionRT, t *turn, stopReason string) {
	s.gateSucceededLocked(rt, s.now())
	s.usageSucceededLocked(rt)
	s.fallbackSucceededLocked(rt, t)
	mark := false
	if rt.retry != nil || t.replay && rt.chain.retry > 0 {
		s.cfg.Metrics.outcomes.WithLabelValues(outcomeRecovered).Inc()
		s.log.Info("retry chain recovered", zap.String("session_id", rt.sess.ID), zap.Int("retry", t.retry))
		mark = t.retry > 0 // the page says quietly that this reply took retries
	}
	hadRetry := s.forgetRetryLocked(rt) // its row goes with turn.completed
	rt.chain = chainState{}
	if stopReason == "" {
		stopReason = "end_turn"
	}
	s.succeededEndLocked(rt, t, stopReason, mark, hadRetry) // turnbatch.go: one commit
}

// errStale marks work from a superseded generation.
var errStale = errors.New("stale generation")
