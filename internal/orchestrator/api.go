package orchestrator

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Sentinel errors; every error returned by Service wraps exactly one of them,
// with a message written for the user.
var (
	ErrNotFound   = errors.New("not found")
	ErrValidation = errors.New("invalid request")
	ErrConflict   = errors.New("conflict")
	ErrForbidden  = errors.New("forbidden")
	ErrClosed     = errors.New("service is shutting down")
)

// FieldError is an ErrValidation that names the request field at fault
// (and a stable reason), so a client can point at it.
type FieldError struct {
	Field  string // e.g. "workdir"
	Reason string // stable: not_absolute, not_found, not_directory, …
	Msg    string // for the user
}

func (e *FieldError) Error() string { return ErrValidation.Error() + ": " + e.Msg }
func (e *FieldError) Unwrap() error { return ErrValidation }

// CreateTaskRequest is task.create.
type CreateTaskRequest struct {
	Title       string `json:"title"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent"`        // "" → "mock"
	Workdir     string `json:"workdir"`      // "" → a fresh dir under the data dir; else absolute and existing
	MaxAttempts *int   `json:"max_attempts"` // nil → policy budget; 1 disables auto-retry
	// GateDeadline bounds how long the task's sessions wait on provider
	// overload gates, counted from a chain's first gated failure: 0 → the
	// daemon's (overload deadline, 30m by default), else up to
	// MaxGateDeadline. On the wire: gate_deadline_seconds (wsapi).
	GateDeadline time.Duration `json:"-"`
	// OnUsageLimit: "wait" parks the task's sessions until an exhausted
	// usage window resets (and waits out long rate-limit hints), "ask"
	// shows the banner; "" → the daemon's default (Config.Usage.Default).
	// Either way capped by GateDeadline, else Config.Usage.MaxWait.
	OnUsageLimit string `json:"on_usage_limit"`
	// Daemon names the fleet daemon the task runs on (its workdir is
	// there); "" → placement chooses (fleet.go).
	Daemon string `json:"daemon"`
}

// MaxTaskPage is the largest (and the default) page of task.list.
const MaxTaskPage = store.MaxTaskPage

// ListTasksRequest is task.list: Limit tasks (0: MaxTaskPage) after Cursor
// ("" for the newest).
type ListTasksRequest struct {
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
}

// TaskPage is one page of task.list; NextCursor is "" after the last.
type TaskPage struct {
	Tasks      []TaskView `json:"tasks"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

// PromptRequest is session.prompt.
type PromptRequest struct {
	TaskID    string `json:"task_id"` // optional; when set the session must belong to it
	SessionID string `json:"session_id"`
	Text      string `json:"text"`
}

// StopRequest is session.stop.
type StopRequest struct {
	TaskID    string `json:"task_id"`
	SessionID string `json:"session_id"`
}

// Recover actions.
const (
	RecoverCancelRetry = "cancel_retry"
	RecoverResume      = "resume"
	RecoverFreshStart  = "fresh_start"
)

// RecoverRequest is session.recover.
type RecoverRequest struct {
	TaskID    string `json:"task_id"`
	SessionID string `json:"session_id"`
	Action    string `json:"action"`
}

// SubscribeRequest is session.subscribe.
type SubscribeRequest struct {
	TaskID    string `json:"task_id"`
	SessionID string `json:"session_id"`
	AfterSeq  *int64 `json:"after_seq"` // nil → snapshot of messages; else replay of events after it
}

// SubscribeResult is the response to session.subscribe. Live notifications
// follow with seq > LastSeq.
type SubscribeResult struct {
	Mode     string          `json:"mode"` // "snapshot" (Messages) or "replay" (Events)
	Task     store.Task      `json:"task"`
	Session  store.Session   `json:"session"`
	Messages []store.Message `json:"messages,omitempty"` // snapshot (no after_seq, or too far behind)
	Events   []Notification  `json:"events,omitempty"`   // replay when after_seq was given
	LastSeq  int64           `json:"last_seq"`
	// NextCursor: the snapshot is larger than a page and Messages is its
	// first page; session.page with this cursor sends the next one, as a
	// session.page notification in order with the live events.
	NextCursor string `json:"next_cursor,omitempty"`
}

// PageRequest is session.page: the next page of a subscription's snapshot.
type PageRequest struct {
	TaskID    string `json:"task_id"`
	SessionID string `json:"session_id"`
	Cursor    string `json:"cursor"`
}

// Page is the payload of a session.page notification: messages of the
// snapshot as of AsOfSeq. A client replaces its copy of each of them (the
// events up to AsOfSeq that touched them came before the page in the feed;
// later ones follow it) and asks for NextCursor, when set.
type Page struct {
	SessionID  string          `json:"session_id"`
	Messages   []store.Message `json:"messages"`
	AsOfSeq    int64           `json:"as_of_seq"`
	NextCursor string          `json:"next_cursor,omitempty"`
}

// TaskView is a task with its sessions.
type TaskView struct {
	store.Task
	// GateDeadlineSeconds is Task.GateDeadline in seconds, absent when the
	// task uses the daemon's default (gate.list deadline_seconds).
	GateDeadlineSeconds float64         `json:"gate_deadline_seconds,omitempty"`
	Sessions            []store.Session `json:"sessions"`
	// QueuePosition is the task's place in line for an agent slot
	// (1-based; see Config.MaxAgents), absent when it is not waiting.
	QueuePosition int `json:"queue_position,omitempty"`
	// Paused: the newest session stopped because the user cancelled its
	// retry, not because something failed (the page styles it calmly).
	Paused bool `json:"paused,omitempty"`
	// Model is the model the task's agent uses: the one the newest
	// session's agent reported, else the one its profile names; absent
	// when neither says (model.go).
	Model string `json:"model,omitempty"`
}

func newTaskView(t store.Task, sessions []store.Session) TaskView {
	return TaskView{Task: t, GateDeadlineSeconds: t.GateDeadline.Seconds(), Sessions: sessions}
}

// AgentInfo is one entry of agent.list.
type AgentInfo struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	// Installed: the command resolves to an executable (on PATH, or its
	// absolute path), as it would when a task starts; Path is where.
	Installed bool   `json:"installed"`
	Path      string `json:"path,omitempty"`
	Available bool   `json:"available"` // the same as Installed (older clients)
	Default   bool   `json:"default"`
	Model     string `json:"model,omitempty"` // the profile's model; "" = the agent's default
}

// Notification is one event for clients: Action is the notification name
// (session.message.added, task.updated…), Payload its JSON body. Session
// events carry "seq" and "session_id" inside Payload.
type Notification struct {
	Action  string          `json:"action"`
	Seq     int64           `json:"seq,omitempty"`
	Payload json.RawMessage `json:"payload"`
	At      time.Time       `json:"ts"`
}
