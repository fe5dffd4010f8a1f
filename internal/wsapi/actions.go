package wsapi

import (
	"context"
	"strings"
	"time"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// actionFunc answers one request. The optional func runs after the response
// has been queued (session.subscribe starts its forwarder there, so the
// snapshot always precedes the live events).
type actionFunc func(ctx context.Context, c *conn, req request) (any, func(), error)

var actions = map[string]actionFunc{
	ActionTaskCreate:         taskCreate,
	ActionTaskList:           taskList,
	ActionTaskGet:            taskGet,
	ActionTaskUpdate:         routedTask(taskUpdate),
	ActionTaskDelete:         routedTask(taskDelete),
	ActionSessionSubscribe:   sessionSubscribe,
	ActionSessionUnsubscribe: sessionUnsubscribe,
	ActionSessionPage:        sessionPage,
	ActionSessionPrompt:      routed(sessionPrompt),
	ActionSessionStop:        routed(sessionStop),
	ActionSessionRecover:     routed(sessionRecover),
	ActionAgentList:          agentList,
	ActionGateList:           gateList,
	ActionFleetList:          fleetList,
}

// Response payloads.
type (
	taskResponse struct {
		Task orchestrator.TaskView `json:"task"`
	}
	agentListResponse struct {
		Agents []orchestrator.AgentInfo `json:"agents"`
	}
	sessionResponse struct {
		SessionID string `json:"session_id"`
	}
	unsubscribeResponse struct {
		SessionID    string `json:"session_id"`
		Unsubscribed bool   `json:"unsubscribed"` // false: there was no subscription
	}
)

// required reports a missing or blank string field.
func required(field, value string) *Error {
	if strings.TrimSpace(value) == "" {
		return fieldError(CodeValidationError, field, "%s is required", field)
	}
	return nil
}

// firstErr returns the first non-nil error, typed as error (nil stays nil).
// Its arguments must not read the payload being decoded: call it after
// decodePayload, since Go leaves the order of operand reads unspecified.
func firstErr(errs ...*Error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// taskCreateWire is what task.create's payload has besides the
// orchestrator's request: the gate deadline as a number of seconds (like
// gate.list's deadline_seconds); absent or null → the daemon's default. It
// is decoded separately rather than embedded, so that a type error in the
// request still names its field plainly.
type taskCreateWire struct {
	GateDeadlineSeconds *float64 `json:"gate_deadline_seconds"`
}

func taskCreate(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.CreateTaskRequest
	var w taskCreateWire
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := decodePayload(req.payload, &w); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("prompt", p.Prompt)); err != nil {
		return nil, nil, err
	}
	if p.MaxAttempts != nil && *p.MaxAttempts < 1 {
		return nil, nil, fieldError(CodeValidationError, "max_attempts", "max_attempts must be at least 1")
	}
	if s := w.GateDeadlineSeconds; s != nil {
		d, e := gateDeadline(*s)
		if e != nil {
			return nil, nil, e
		}
		p.GateDeadline = d
	}
	v, err := c.s.svc.CreateTask(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	return taskResponse{v}, nil, nil
}

// gateDeadline checks gate_deadline_seconds: from 1 second to
// orchestrator.MaxGateDeadline. Zero is refused rather than read as "the
// default" or "do not wait": a client means one or the other, and leaving
// the field out says the first.
func gateDeadline(secs float64) (time.Duration, *Error) {
	const field = "gate_deadline_seconds"
	maxSecs := orchestrator.MaxGateDeadline.Seconds()
	switch {
	case secs < 1:
		e := fieldError(CodeValidationError, field, "%s must be at least 1 (seconds), got %v; leave it out for the daemon's default", field, secs)
		e.Details["min"], e.Details["max"] = 1, maxSecs
		return 0, e
	case secs > maxSecs:
		e := fieldError(CodeValidationError, field, "%s must be at most %v (7 days), got %v", field, maxSecs, secs)
		e.Details["min"], e.Details["max"] = 1, maxSecs
		return 0, e
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// taskList answers one page, newest first: {limit?, cursor?} →
// {tasks, next_cursor?}; without a limit the page is the largest
// (orchestrator.MaxTaskPage), so a client that never pages sees every task
// of all but the largest daemons.
func taskList(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.ListTasksRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if p.Limit < 0 || p.Limit > orchestrator.MaxTaskPage {
		e := fieldError(CodeValidationError, "limit", "limit must be between 1 and %d, got %d", orchestrator.MaxTaskPage, p.Limit)
		e.Details["min"], e.Details["max"] = 1, orchestrator.MaxTaskPage
		return nil, nil, e
	}
	page, err := c.s.svc.ListTasks(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	if page.Tasks == nil {
		page.Tasks = []orchestrator.TaskView{}
	}
	return page, nil, nil
}

func taskGet(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p struct {
		TaskID string `json:"task_id"`
	}
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("task_id", p.TaskID)); err != nil {
		return nil, nil, err
	}
	v, err := c.s.svc.GetTask(ctx, p.TaskID)
	if err != nil {
		return nil, nil, err
	}
	return taskResponse{v}, nil, nil
}

// taskUpdate renames, marks done (or reopens), archives (or restores) a
// task: {task_id, title?, done?, archived?} → {task}; task.updated goes to
// every connection.
func taskUpdate(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.UpdateTaskRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("task_id", p.TaskID)); err != nil {
		return nil, nil, err
	}
	if p.Title != nil && strings.TrimSpace(*p.Title) == "" {
		return nil, nil, fieldError(CodeValidationError, "title", "title must not be empty")
	}
	v, err := c.s.svc.UpdateTask(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	return taskResponse{v}, nil, nil
}

// taskDelete removes a task: {task_id} → {task_id, workdir,
// workdir_removed}; task.deleted goes to every connection. A working task
// is a CONFLICT (stop it first).
func taskDelete(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.DeleteTaskRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("task_id", p.TaskID)); err != nil {
		return nil, nil, err
	}
	res, err := c.s.svc.DeleteTask(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	return res, nil, nil
}

// sessionSubscribe answers with the snapshot (or the replay after
// after_seq), then streams every later event. Subscribing again to the same
// session replaces the old subscription: nothing from the old one follows
// the new response.
func sessionSubscribe(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.SubscribeRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("session_id", p.SessionID)); err != nil {
		return nil, nil, err
	}
	if p.AfterSeq != nil && *p.AfterSeq < 0 {
		return nil, nil, fieldError(CodeValidationError, "after_seq", "after_seq must not be negative")
	}
	c.dropSub(p.SessionID)
	res, f, err := c.subscribeFeed(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	start, err := c.addSub(p.SessionID, f)
	if err != nil {
		return nil, nil, err
	}
	return res, start, nil
}

// sessionPage asks for the next page of the connection's snapshot of a
// session; it arrives as a session.page notification, in order with the
// live events (the answer itself only acknowledges).
func sessionPage(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.PageRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("session_id", p.SessionID), required("cursor", p.Cursor)); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	sub := c.subs[p.SessionID]
	c.mu.Unlock()
	if sub == nil {
		return nil, nil, newError(CodeConflict, "not subscribed to session %q on this connection; subscribe first", p.SessionID)
	}
	if err := c.s.feeds.snapshotPage(ctx, p, sub.feed); err != nil {
		return nil, nil, err
	}
	return sessionResponse{p.SessionID}, nil, nil
}

func sessionUnsubscribe(_ context.Context, c *conn, req request) (any, func(), error) {
	var p struct {
		SessionID string `json:"session_id"`
	}
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("session_id", p.SessionID)); err != nil {
		return nil, nil, err
	}
	return unsubscribeResponse{SessionID: p.SessionID, Unsubscribed: c.dropSub(p.SessionID)}, nil, nil
}

func sessionPrompt(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.PromptRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("session_id", p.SessionID), required("text", p.Text)); err != nil {
		return nil, nil, err
	}
	if err := c.s.svc.Prompt(ctx, p); err != nil {
		return nil, nil, err
	}
	return sessionResponse{p.SessionID}, nil, nil
}

func sessionStop(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.StopRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("session_id", p.SessionID)); err != nil {
		return nil, nil, err
	}
	if err := c.s.svc.StopTurn(ctx, p); err != nil {
		return nil, nil, err
	}
	return sessionResponse{p.SessionID}, nil, nil
}

func sessionRecover(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p orchestrator.RecoverRequest
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if err := firstErr(required("task_id", p.TaskID), required("session_id", p.SessionID), required("action", p.Action)); err != nil {
		return nil, nil, err
	}
	switch p.Action {
	case orchestrator.RecoverCancelRetry, orchestrator.RecoverRetryNow, orchestrator.RecoverResume, orchestrator.RecoverFreshStart:
	default:
		allowed := []string{orchestrator.RecoverCancelRetry, orchestrator.RecoverRetryNow, orchestrator.RecoverResume, orchestrator.RecoverFreshStart}
		e := fieldError(CodeValidationError, "action", "action must be one of %s; got %q", strings.Join(allowed, ", "), p.Action)
		e.Details["allowed"] = allowed
		return nil, nil, e
	}
	if err := c.s.svc.Recover(ctx, p); err != nil {
		return nil, nil, err
	}
	return sessionResponse{p.SessionID}, nil, nil
}

// gateList answers with the provider overload gates; gate.updated
// notifications (on every connection, like task.updated) follow changes.
func gateList(_ context.Context, c *conn, _ request) (any, func(), error) {
	l := c.s.svc.Gates()
	if l.Gates == nil {
		l.Gates = []orchestrator.GateInfo{}
	}
	return l, nil, nil
}

func agentList(_ context.Context, c *conn, _ request) (any, func(), error) {
	agents := c.s.svc.Agents()
	if agents == nil {
		agents = []orchestrator.AgentInfo{}
	}
	return agentListResponse{agents}, nil, nil
}
