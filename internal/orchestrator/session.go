package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// sessionRT is the live state of one session. Its mutex is held while an
// event is persisted and fanned out, so seq order is delivery order.
type sessionRT struct {
	mu     sync.Mutex // guards every field below
	task   store.Task
	sess   store.Session
	subs   *fanout       // nil until someone subscribes
	exec   Execution     // live agent process; nil when none
	idle   *quartz.Timer // stops exec after Config.IdleTimeout without a turn (idle.go)
	turn   *turn         // running turn; nil when idle
	retry  *parkedRetry  // armed or dispatching retry; nil when none
	notice string        // id of this turn's retry notice; "" when none
	banner string        // id of the live recovery banner; "" when none
	// bannerReason is the live banner's metadata reason ("interrupted", …).
	bannerReason string
	chain        chainState // automatic retries of the current prompt generation
	// gateKey is the overload gate the session's last failure counted on
	// (agent, and model when a failure named one); "" until then. See gateKey.
	gateKey string
	// fb is the fallback profile the session continues on instead of its
	// task's (fallback.go); nil on the task's own profile.
	fb *fallbackState
	// Storage faults (storefault.go).
	writeErr  error          // the last failed persist; finishTurn resets it to see its own
	unsaved   *store.Message // a recovery banner the store did not take yet
	dirty     bool           // sess/task state moved on in memory only
	staleRow  bool           // a pending-retry row the store would not delete
	deletes   []string       // ids of messages gone for the user, still in the store
	reconcile *quartz.Timer  // writes unsaved and dirty state again
	stream    *streamBuf     // streamed text not yet flushed (stream.go); nil when none
	gone      bool           // its task was deleted (taskedit.go): nothing is written any more
	// userMsgs is at least the number of the session's user messages
	// (agentHoldsPrompt answers from it without a read).
	userMsgs int32
	// remoteWatch: until then (Unix nanoseconds) another daemon of the
	// fleet shows the session to a client (remotewatch.go); 0: none.
	remoteWatch int64
}

// chainState describes the retry chain of the current generation.
type chainState struct {
	retry int // automatic retries already started
	max   int // effective ceiling written into the chain; 0 = none yet
	// until is how long the chain may wait on overload gates (unix ns; 0
	// until it first waits): eight bytes, not a time.Time's 24, in each of
	// thousands of parked sessions. See deadline and chainOf.
	until int64
}

// deadline is until as a time; zero when unset.
func (c chainState) deadline() time.Time {
	if c.until == 0 {
		return time.Time{}
	}
	return time.Unix(0, c.until).UTC()
}

func (c *chainState) setDeadline(t time.Time) {
	c.until = 0
	if !t.IsZero() {
		c.until = t.UnixNano()
	}
}

func chainOf(retry, max int, deadline time.Time) chainState {
	c := chainState{retry: retry, max: max}
	c.setDeadline(deadline)
	return c
}

// Message kinds carried in status messages' metadata.
const (
	kindRetryNotice = "retry_notice"
	kindRecovery    = "recovery"
)

// taskIDOf is the session's task (immutable, read under the lock).
func (rt *sessionRT) taskIDOf() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.task.ID
}

func (rt *sessionRT) view() TaskView {
	v := newTaskView(rt.task, []store.Session{rt.sess})
	v.Paused = pausedLocked(rt)
	return v
}

// install registers the runtime of a freshly created task.
func (s *Service) install(task store.Task, sess store.Session) *sessionRT {
	rt := &sessionRT{task: task, sess: sess} // userMsgs 0: a new session has no messages
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[sess.ID] = rt
	return rt
}

// loaded returns the runtime of a session already in memory, or nil.
func (s *Service) loaded(sessionID string) *sessionRT {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.sessions[sessionID]
}

// session returns the runtime of a session, loading it on first use. A
// non-empty taskID must own the session.
func (s *Service) session(ctx context.Context, sessionID, taskID string) (*sessionRT, error) {
	if sessionID == "" {
		return nil, fmt.Errorf("%w: session_id is required", ErrValidation)
	}
	s.mu.Lock()
	rt, ok := s.sessions[sessionID]
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if !ok {
		var err error
		if rt, err = s.load(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	if taskID != "" && rt.taskIDOf() != taskID {
		return nil, fmt.Errorf("%w: session %q does not belong to task %q", ErrForbidden, sessionID, taskID)
	}
	return rt, nil
}

func (s *Service) load(ctx context.Context, sessionID string) (*sessionRT, error) {
	rt, err := s.build(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing, ok := s.sessions[sessionID]; ok {
		return existing, nil // loaded concurrently
	}
	s.sessions[sessionID] = rt
	return rt, nil
}

// build reads a session's runtime from the store, not registered yet.
func (s *Service) build(ctx context.Context, sessionID string) (*sessionRT, error) {
	sess, err := s.store.GetSession(ctx, sessionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: session %q", ErrNotFound, sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("get session: %w", err)
	}
	task, err := s.store.GetTask(ctx, sess.TaskID)
	if err != nil {
		return nil, fmt.Errorf("get task of session: %w", err)
	}
	msgs, err := s.store.ListMessages(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	rt := &sessionRT{task: task, sess: sess}
	for _, m := range msgs {
		if m.Role == "user" {
			rt.userMsgs++
		}
		switch m.Metadata["kind"] {
		case kindRetryNotice:
			rt.notice = m.ID
		case kindRecovery:
			if len(m.Actions) > 0 {
				rt.banner = m.ID
				rt.bannerReason, _ = m.Metadata["reason"].(string)
			}
		case kindFallback:
			rt.fb = s.fallbackOf(task, m)
		}
	}
	return rt, nil
}

// change is what one event does besides being logged.
type change struct {
	sess   *store.Session // next session row; nil: unchanged
	task   *store.Task    // next task row; nil: unchanged
	upsert *store.Message
	append *store.TextAppend
	delete string
	retry  *store.PendingRetry // upserted with the event
	// claim: the event is written only if it claims this pending retry
	// (store.ErrNotClaimed otherwise); deleteRetry: the session's pending
	// retry row goes with the event. A retry's turn.started and
	// turn.completed carry them, one commit each instead of two.
	claim       *store.RetryClaim
	deleteRetry bool
}

// emitLocked persists one session event and fans it out, after the
// streamed text buffered before it. rt.mu is held.
func (s *Service) emitLocked(rt *sessionRT, action string, body map[string]any, c change) error {
	s.flushOrFailLocked(rt)
	return s.persistLocked(rt, action, body, c)
}

// persistLocked persists one session event and fans it out.
func (s *Service) persistLocked(rt *sessionRT, action string, body map[string]any, c change) error {
	if rt.gone {
		return fmt.Errorf("%w: session %q: its task was deleted", ErrNotFound, rt.sess.ID)
	}
	b, err := s.buildEvent(rt.sess, rt.task, s.now(), pendingEvent{action: action, body: body, c: c})
	if err != nil {
		return err
	}
	if err := s.store.AppendEvent(s.storeCtx(), b.w); err != nil {
		return s.persistFailedLocked(rt, action, err)
	}
	s.appliedLocked(rt, []builtEvent{b})
	return nil
}

// pendingEvent is one event of a batch (emitAllLocked).
type pendingEvent struct {
	action string
	body   map[string]any
	c      change
	// state, taskState: a session.state_changed moving the session (and
	// the task, when taskState is set and differs) from where the events
	// before it in the batch left them; c.sess and c.task are set from it.
	state, taskState string
	agentSession     *string // with state: the session's agent session id from then on
}

// stateEvent is setStateLocked's event, for a batch.
func stateEvent(state, taskState string) pendingEvent {
	return pendingEvent{action: "session.state_changed", state: state, taskState: taskState}
}

// builtEvent is an event ready for the store, and what it leaves behind.
type builtEvent struct {
	w       store.EventWrite
	sess    store.Session // the session after it
	task    *store.Task   // the task after it; nil: unchanged
	payload []byte
	action  string
	body    map[string]any
	notify  bool // a task.updated follows
	at      time.Time
}

// buildEvent makes the store write of one event that follows sess and
// task (the session and task as the events before it leave them).
func (s *Service) buildEvent(sess store.Session, task store.Task, now time.Time, e pendingEvent) (builtEvent, error) {
	c, body := e.c, e.body
	if e.state != "" {
		next := sess
		next.State = e.state
		if e.agentSession != nil {
			next.AgentSessionID = *e.agentSession
		}
		c.sess = &next
		if e.taskState != "" && e.taskState != task.State {
			t := task
			t.State = e.taskState
			t.UpdatedAt = now
			c.task = &t
		}
		body = map[string]any{"task_id": task.ID, "state": e.state}
	}
	next := sess
	if c.sess != nil {
		next = *c.sess
		next.Model = sess.Model // set only by setModelLocked (model.go)
	}
	next.LastSeq = sess.LastSeq + 1
	next.UpdatedAt = now
	body["session_id"] = next.ID
	body["seq"] = next.LastSeq
	payload, err := json.Marshal(body)
	if err != nil {
		return builtEvent{}, fmt.Errorf("encode %s: %w", e.action, err)
	}
	if r := c.retry; r != nil && r.Prompt != "" {
		// Persisted sanitised like the chat's copy; the armed retry keeps
		// the prompt as typed in memory.
		persisted := *r
		persisted.Prompt = routingerr.Sanitize(r.Prompt)
		c.retry = &persisted
	}
	w := store.EventWrite{
		Event:         store.Event{SessionID: next.ID, Seq: next.LastSeq, Type: e.action, Payload: payload, At: now},
		UpsertMessage: c.upsert,
		AppendText:    c.append,
		DeleteMessage: c.delete,
		Session:       &next,
		Task:          c.task,
		SaveRetry:     c.retry,
		ClaimRetry:    c.claim,
		DeleteRetry:   c.deleteRetry,
	}
	return builtEvent{w: w, sess: next, task: c.task, payload: payload, action: e.action, body: body,
		notify: c.task != nil || c.sess != nil && c.sess.State != "", at: now}, nil
}

// persistFailedLocked handles a write the store refused; it returns the
// caller's error.
func (s *Service) persistFailedLocked(rt *sessionRT, action string, err error) error {
	if errors.Is(err, store.ErrNotClaimed) {
		return fmt.Errorf("persist %s: %w", action, err) // not a storage fault: nothing to save
	}
	if errors.Is(err, store.ErrNotOwner) {
		// The session's lease passed to another daemon of the fleet
		// (fleet.go): nothing more is written here; the owner's loop
		// disowns it when its renewal finds the lease gone.
		s.log.Warn("session event refused: another daemon owns the session now",
			zap.String("session_id", rt.sess.ID), zap.String("action", action))
		rt.gone = true
		if t := rt.turn; t != nil {
			t.stopped = true
			t.cancel()
		}
		return fmt.Errorf("persist %s: %w: %w", action, ErrElsewhere, err)
	}
	s.log.Error("persist session event failed; the change is not applied",
		zap.String("session_id", rt.sess.ID), zap.String("action", action), zap.Error(err))
	rt.writeErr = err
	if t := rt.turn; t != nil && t.storeErr == nil {
		// A running turn with an event missing from the store would end
		// with a hole in it: stop it now; its end shows the banner.
		t.storeErr = err
		t.cancel()
	}
	return fmt.Errorf("persist %s: %w", action, err)
}

// appliedLocked applies saved events to the session and fans them out, in
// order; one task.updated for all of them.
func (s *Service) appliedLocked(rt *sessionRT, bs []builtEvent) {
	notify := false
	for _, b := range bs {
		rt.sess = b.sess
		if b.task != nil {
			rt.task = *b.task
		}
		if m := b.w.UpsertMessage; m != nil && m.Role == "user" {
			rt.userMsgs++ // an update counted as an add only makes the bound looser
		}
		rt.subs.publish(Notification{Action: b.action, Seq: b.sess.LastSeq, Payload: b.payload, At: b.at})
		s.attentionLocked(rt, b.action, b.body)
		notify = notify || b.notify
	}
	if notify {
		s.publishTask(rt)
	}
}

// emitAllLocked persists events of the session in one store call (one
// commit), after the streamed text buffered before them, and fans them
// out in order: all of them, or none and an error (handled as
// persistLocked handles one; the buffered text is dropped with them, as a
// flush that fails drops it).
func (s *Service) emitAllLocked(rt *sessionRT, evs []pendingEvent) error {
	bs, ws, err := s.buildAllLocked(rt, evs)
	if err != nil || len(ws) == 0 {
		return err
	}
	if len(ws) == 1 {
		err = s.store.AppendEvent(s.storeCtx(), ws[0])
	} else {
		err = s.store.AppendEvents(s.storeCtx(), ws)[0]
	}
	return s.settleLocked(rt, bs, err)
}

// buildAllLocked makes the store writes of events of the session, after
// the streamed text buffered before them (taken from the buffer: a batch
// that fails drops it, as a flush that fails does).
func (s *Service) buildAllLocked(rt *sessionRT, evs []pendingEvent) ([]builtEvent, []store.EventWrite, error) {
	var segs []streamSeg
	if b := rt.stream; b != nil {
		rt.stream = nil
		if b.timer != nil {
			b.timer.Stop()
		}
		segs = b.segs
	}
	if rt.gone { // the buffer goes too: no later flush tries it again
		return nil, nil, fmt.Errorf("%w: session %q: its task was deleted", ErrNotFound, rt.sess.ID)
	}
	now := s.now()
	sess, task := rt.sess, rt.task
	bs := make([]builtEvent, 0, len(segs)+len(evs))
	ws := make([]store.EventWrite, 0, len(segs)+len(evs))
	for i := range len(segs) + len(evs) {
		var e pendingEvent
		if i < len(segs) {
			e = segs[i].event(sess.LastSeq + 1)
		} else {
			e = evs[i-len(segs)]
		}
		b, err := s.buildEvent(sess, task, now, e)
		if err != nil {
			return nil, nil, err
		}
		sess = b.sess
		if b.task != nil {
			task = *b.task
		}
		bs = append(bs, b)
		ws = append(ws, b.w)
	}
	return bs, ws, nil
}

// settleLocked applies built events the store took (err nil) and fans
// them out, or handles its refusal as persistLocked does.
func (s *Service) settleLocked(rt *sessionRT, bs []builtEvent, err error) error {
	if err != nil {
		return s.persistFailedLocked(rt, bs[len(bs)-1].action, err)
	}
	s.appliedLocked(rt, bs)
	return nil
}

func (s *Service) publishTask(rt *sessionRT) {
	v := s.withModel(rt.view(), rt.agent())
	v.QueuePosition = s.slots.position(rt)
	s.publishTaskView(v)
}

// setStateLocked moves the session (and optionally the task) to a new state.
func (s *Service) setStateLocked(rt *sessionRT, state, taskState string) error {
	next := rt.sess
	next.State = state
	c := change{sess: &next}
	if taskState != "" && taskState != rt.task.State {
		t := rt.task
		t.State = taskState
		t.UpdatedAt = s.now()
		c.task = &t
	}
	return s.emitLocked(rt, "session.state_changed",
		map[string]any{"task_id": rt.task.ID, "state": state}, c)
}

func (s *Service) addMessageLocked(rt *sessionRT, m store.Message) error {
	return s.addMessageWithLocked(rt, m, change{})
}

// addMessageWithLocked adds a message and applies c in the same transaction.
func (s *Service) addMessageWithLocked(rt *sessionRT, m store.Message, c change) error {
	s.flushOrFailLocked(rt) // first: the message's seq is its event's
	now := s.now()
	m.SessionID = rt.sess.ID
	m.Seq = rt.sess.LastSeq + 1
	m.CreatedAt, m.UpdatedAt = now, now
	sanitizeMessage(&m)
	c.upsert = &m
	return s.emitLocked(rt, "session.message.added", map[string]any{"message": m}, c)
}

// replaceMessageLocked rewrites a message in place (same id, same position).
func (s *Service) replaceMessageLocked(rt *sessionRT, m store.Message) error {
	return s.replaceMessageWithLocked(rt, m, change{})
}

func (s *Service) replaceMessageWithLocked(rt *sessionRT, m store.Message, c change) error {
	m.SessionID = rt.sess.ID
	m.UpdatedAt = s.now()
	sanitizeMessage(&m)
	c.upsert = &m
	return s.emitLocked(rt, "session.message.updated", map[string]any{"message": m}, c)
}

func (s *Service) deleteMessageLocked(rt *sessionRT, id string) error {
	return s.emitLocked(rt, "session.message.deleted", map[string]any{"message_id": id}, change{delete: id})
}

// maxReplayEvents bounds an after_seq replay; a client further behind gets a snapshot.
const maxReplayEvents = 5000

// liveSessionLocked is s.session, locked, and not a copy that went away
// meanwhile (its lease released, ReleaseIdle, which drops it from the map
// just after): a subscriber added to such a copy would never be fed.
func (s *Service) liveSessionLocked(ctx context.Context, sessionID, taskID string) (*sessionRT, error) {
	for range 100 {
		rt, err := s.session(ctx, sessionID, taskID)
		if err != nil {
			return nil, err
		}
		rt.mu.Lock()
		if !rt.gone {
			return rt, nil
		}
		rt.mu.Unlock()
		runtime.Gosched() // its drop from the map is a moment away
	}
	return nil, fmt.Errorf("%w: session %q: it moved to another daemon; subscribe again", ErrConflict, sessionID)
}

// SubscribeSession returns the session's state and a feed of every event
// after it: a snapshot of messages, or with AfterSeq the events after it.
func (s *Service) SubscribeSession(ctx context.Context, req SubscribeRequest, buffer int) (SubscribeResult, *Subscription, error) {
	rt, err := s.liveSessionLocked(ctx, req.SessionID, req.TaskID)
	if err != nil {
		return SubscribeResult{}, nil, err
	}
	defer rt.mu.Unlock()
	if buffer <= 0 {
		buffer = s.cfg.SubscriberBuffer
	}
	s.refreshGateNoticeLocked(rt) // a waiting notice is only kept current for those watching
	res := SubscribeResult{Task: rt.task, Session: rt.sess, LastSeq: rt.sess.LastSeq}
	after := req.AfterSeq
	if after != nil && (*after < 0 || *after > rt.sess.LastSeq || rt.sess.LastSeq-*after > maxReplayEvents) {
		after = nil // unknown position: start from a snapshot
	}
	if after != nil {
		evs, complete, err := s.store.ListEventsUpTo(ctx, rt.sess.ID, *after, 4*s.cfg.SnapshotPageBytes)
		if err != nil {
			return SubscribeResult{}, nil, fmt.Errorf("list events: %w", err)
		}
		if complete {
			res.Mode = "replay"
			res.Events = make([]Notification, 0, len(evs))
			for _, e := range evs {
				res.Events = append(res.Events, Notification{Action: e.Type, Seq: e.Seq, Payload: e.Payload, At: e.At})
			}
		} else {
			after = nil // more than a few pages behind: a (paged) snapshot is cheaper
		}
	}
	if after == nil {
		msgs, next, err := s.pageLocked(ctx, rt, snapshotCursor{until: rt.sess.LastSeq, afterSeq: -1})
		if err != nil {
			return SubscribeResult{}, nil, err
		}
		res.Mode, res.Messages, res.NextCursor = "snapshot", msgs, next
	}
	if len(rt.deletes) > 0 { // deleted in memory only: gone from every answer too
		if res.Mode == "snapshot" {
			res.Messages = slices.DeleteFunc(res.Messages, func(m store.Message) bool { return slices.Contains(rt.deletes, m.ID) })
		} else {
			for _, id := range rt.deletes {
				if payload, err := jsonOf(map[string]any{"session_id": rt.sess.ID, "unsaved": true, "message_id": id}); err == nil {
					res.Events = append(res.Events, Notification{Action: "session.message.deleted", Payload: payload, At: s.now()})
				}
			}
		}
	}
	if m := rt.unsaved; m != nil { // held in memory only: part of every answer
		if res.Mode == "snapshot" {
			res.Messages = append(res.Messages, *m)
		} else if payload, err := jsonOf(map[string]any{"session_id": rt.sess.ID, "unsaved": true, "message": m}); err == nil {
			res.Events = append(res.Events, Notification{Action: "session.message.added", Payload: payload, At: m.CreatedAt})
		}
	}
	sub := newSubscription(buffer)
	if rt.subs == nil {
		rt.subs = &fanout{}
	}
	rt.subs.add(sub)
	return res, sub, nil
}

func jsonOf(v any) (json.RawMessage, error) { return json.Marshal(v) }
