package store

// The records below, with the methods of *DB in the files named after them,
// are what internal/orchestrator's Store interface consumes.

import (
	"encoding/json"
	"time"
)

// Task states and session states (DESIGN §2).
const (
	TaskTodo       = "TODO"
	TaskInProgress = "IN_PROGRESS"
	TaskReview     = "REVIEW"
	TaskDone       = "DONE"
	TaskCancelled  = "CANCELLED"

	SessionCreated         = "CREATED"
	SessionStarting        = "STARTING"
	SessionRunning         = "RUNNING"
	SessionWaitingForInput = "WAITING_FOR_INPUT"
	// SessionQueued: the turn waits for an agent slot (--max-agents).
	SessionQueued    = "QUEUED"
	SessionCompleted = "COMPLETED"
	SessionFailed    = "FAILED"
	SessionCancelled = "CANCELLED"
)

type Task struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Agent       string    `json:"agent"`
	Workdir     string    `json:"workdir"`
	MaxAttempts int       `json:"max_attempts,omitempty"` // 0 = unset (policy budget)
	State       string    `json:"state"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// GateDeadline bounds how long the task's retry chains may wait on
	// provider overload gates; 0 = the daemon's default. Not in the JSON:
	// clients see it in whole seconds (orchestrator.TaskView).
	GateDeadline time.Duration `json:"-"`
	// ArchivedAt is when the user archived the task; nil while it is not.
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
	// OnUsageLimit is what the task does when a usage window is exhausted:
	// UsageLimitWait parks it until the reset, UsageLimitAsk shows the
	// banner; "" = the daemon's default.
	OnUsageLimit string `json:"on_usage_limit,omitempty"`
}

// Task.OnUsageLimit values.
const (
	UsageLimitWait = "wait"
	UsageLimitAsk  = "ask"
)

type Session struct {
	ID             string    `json:"id"`
	TaskID         string    `json:"task_id"`
	State          string    `json:"state"`
	AgentSessionID string    `json:"agent_session_id,omitempty"` // ACP session id, for session/load
	Generation     int64     `json:"generation"`                 // bumps on every user prompt and fresh start
	LastSeq        int64     `json:"last_seq"`                   // seq of the newest event
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
	// Model is the model the session's agent reported, as it names it
	// (else its id, e.g. "gpt-5.4"); "" when it reported none. Written by SetSessionModel,
	// never by AppendEvent: a session replace keeps it.
	Model string `json:"model,omitempty"`
}

// Action is a button attached to a message.
type Action struct {
	ID      string         `json:"id"`
	Label   string         `json:"label"`
	Type    string         `json:"type"`   // "ws_request"
	Action  string         `json:"action"` // e.g. "session.recover"
	Payload map[string]any `json:"payload,omitempty"`
}

// Message is the current state of one chat item.
type Message struct {
	ID        string         `json:"id"`
	SessionID string         `json:"session_id"`
	TurnID    string         `json:"turn_id,omitempty"`
	Seq       int64          `json:"seq"`               // seq of the event that created it; orders messages
	Role      string         `json:"role"`              // user, agent, thought, tool, status
	Variant   string         `json:"variant,omitempty"` // "", info, warning, error
	Text      string         `json:"text"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Actions   []Action       `json:"actions,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// Event is one entry of a session's append-only event log.
type Event struct {
	SessionID string          `json:"session_id"`
	Seq       int64           `json:"seq"`
	Type      string          `json:"type"` // notification action, e.g. "session.message.added"
	Payload   json.RawMessage `json:"payload"`
	At        time.Time       `json:"at"`
}

// TextAppend appends streamed text to an existing message.
type TextAppend struct {
	MessageID string
	Delta     string
}

// EventWrite is applied atomically: the event is appended (Seq must be
// session.last_seq+1, else an error), sessions.last_seq advances, and the
// optional changes are applied in the same transaction.
//
// The changes are applied in this order: session, upsert, append, delete,
// task. UpsertMessage inserts (Seq 0 → Event.Seq, zero CreatedAt/UpdatedAt →
// Event.At) or replaces the message's content; a replace keeps the stored Seq
// and CreatedAt, because they describe the event that created the message.
// The message must belong to Event.SessionID (an empty SessionID means that
// one). AppendText on a missing message fails with ErrNotFound; deleting a
// missing message is not an error. Any failure leaves everything unchanged.
type EventWrite struct {
	Event         Event
	UpsertMessage *Message    // insert or replace by ID
	AppendText    *TextAppend // text = text || delta (a chunk row, see SealMessages), updated_at = Event.At
	// DeleteMessage is a message ID to delete. A deleted message is gone
	// from the log too: the earlier events that carried its text keep their
	// seq and type, but "message.text" (and its metadata's "excerpt") and
	// "delta" of those naming it ("message.id", "message_id") become empty,
	// so a replay from seq 0 never shows what the chat no longer does.
	DeleteMessage string
	Session       *Session // replace the session row (state, agent session id, generation, updated_at; LastSeq is set by the store; ID must be Event.SessionID; TaskID and CreatedAt are immutable)
	Task          *Task    // replace the task row (all but ID and CreatedAt); ErrNotFound if missing
	// SaveRetry upserts the session's pending retry in the same transaction,
	// so a retry notice never exists without the durable retry it announces.
	SaveRetry *PendingRetry
	// ClaimRetry claims the session's pending retry before anything else
	// is written, as ClaimPendingRetry does (pending → dispatching iff
	// generation and attempt match); when it is not claimable, nothing is
	// written and AppendEvent fails with ErrNotClaimed. A retry's
	// session.turn.started carries its claim: one commit, not two.
	ClaimRetry *RetryClaim
	// DeleteRetry deletes the session's pending retry, in any state (none:
	// nothing to do): a retry's turn.completed carries it.
	DeleteRetry bool
}

// Execution is one agent process run, for history and debugging.
type Execution struct {
	ID             string          `json:"id"`
	SessionID      string          `json:"session_id"`
	Generation     int64           `json:"generation"`
	Attempt        int             `json:"attempt"`
	StartedAt      time.Time       `json:"started_at"`
	EndedAt        *time.Time      `json:"ended_at,omitempty"`
	Outcome        string          `json:"outcome,omitempty"` // running, succeeded, failed, cancelled
	Evidence       json.RawMessage `json:"evidence,omitempty"`
	Classification json.RawMessage `json:"classification,omitempty"`
}

// Pending retry states.
const (
	RetryPending     = "pending"
	RetryDispatching = "dispatching"
)

// PendingRetry is a parked transient retry, durable before its timer is armed.
type PendingRetry struct {
	SessionID   string         `json:"session_id"` // primary key: at most one per session
	TaskID      string         `json:"task_id"`
	Generation  int64          `json:"generation"`
	Attempt     int            `json:"attempt"`      // the attempt that will run when it fires
	MaxAttempts int            `json:"max_attempts"` // effective ceiling
	Code        string         `json:"code"`
	RuleID      string         `json:"rule_id"`
	RetryAt     time.Time      `json:"retry_at"`
	Prompt      string         `json:"prompt"` // cached prompt of the turn
	Resume      bool           `json:"resume"` // resume the agent session (session/load) rather than start fresh
	NoticeID    string         `json:"notice_id"`
	State       string         `json:"state"`           // pending | dispatching
	Extra       map[string]any `json:"extra,omitempty"` // room for coordination state (gate key, deadlines)
	CreatedAt   time.Time      `json:"created_at"`
}

// GateOpen is the state of a stored overload gate (closed gates have no row).
const GateOpen = "open"

// Gate is an open provider overload gate, kept so a restart carries on
// where it stood. Its waiting sessions are pending retries whose Extra
// names the gate.
type Gate struct {
	Key          string    `json:"key"` // agent profile (and model)
	State        string    `json:"state"`
	OpenedAt     time.Time `json:"opened_at"`
	NextProbeAt  time.Time `json:"next_probe_at"`
	FailedProbes int       `json:"failed_probes"`
	ProbesSent   int       `json:"probes_sent"`
	UpdatedAt    time.Time `json:"updated_at"`
}
