package lifecycle

// CONTRACT STUB: the types and signatures below are what internal/orchestrator
// consumes. The implementation replaces the panics; the signatures stay.

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// Profile says how to launch one kind of agent.
type Profile struct {
	Name       string            `json:"name"`
	Command    string            `json:"command"`
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`        // process cwd; defaults to the task workdir
	Permission string            `json:"permission,omitempty"` // "allow" | "reject"; "" = "allow"
}

// EventKind names a streamed session/update.
type EventKind string

const (
	EventAgentMessage   EventKind = "agent_message"   // Text is a chunk of assistant text
	EventAgentThought   EventKind = "agent_thought"   // Text is a chunk of a thought
	EventToolCall       EventKind = "tool_call"       // a new tool call
	EventToolCallUpdate EventKind = "tool_call_update" // status/title change of a tool call
	EventPlan           EventKind = "plan"            // Text is a rendered plan
)

// Event is one streamed update of the live turn (never a session/load replay).
type Event struct {
	Kind       EventKind
	Text       string
	ToolCallID string
	Title      string
	Status     string // pending, in_progress, completed, failed
	ToolKind   string
}

// Config of a Manager; zero values mean defaults.
type Config struct {
	Logger          *zap.Logger   // default zap.NewNop()
	KillGrace       time.Duration // SIGTERM → SIGKILL; default 3s
	StderrTailBytes int           // default 16 KiB
}

// StartRequest launches one execution: a process, initialize, session/new or session/load.
type StartRequest struct {
	Profile Profile
	Workdir string            // absolute; the ACP session cwd
	Env     map[string]string // added to the process env (ORCHESTRATORD_TASK_ID, ORCHESTRATORD_SESSION_ID)
	// ResumeSessionID: when set and the agent advertises loadSession, session/load it;
	// otherwise a new session is created (Execution.Resumed reports which).
	ResumeSessionID string
	// OnEvent receives live-turn updates in order from one goroutine owned by the
	// Execution; it never runs inside the SDK's notification handler.
	OnEvent func(Event)
}

// PromptResult is a turn that ended without error.
type PromptResult struct {
	StopReason string // end_turn, cancelled, max_tokens, ...
}

// FailureError is returned by Start and Prompt when the agent run failed; it
// carries the evidence routingerr classifies.
type FailureError struct {
	Evidence routingerr.Evidence
}

func (e *FailureError) Error() string { return "agent failed in " + string(e.Evidence.Phase) }

// AsFailure extracts the evidence from an error returned by this package.
func AsFailure(err error) (*FailureError, bool) {
	var fe *FailureError
	ok := errors.As(err, &fe)
	return fe, ok
}

// Manager owns every agent process it starts.
type Manager struct{}

func NewManager(cfg Config) (*Manager, error) { panic("unimplemented") }

// Start launches an execution. ctx bounds only the start-up handshake.
func (m *Manager) Start(ctx context.Context, req StartRequest) (*Execution, error) {
	panic("unimplemented")
}

// Close tears down every live execution and waits for them.
func (m *Manager) Close() error { panic("unimplemented") }

// Execution is one agent process run.
type Execution struct{}

// AgentSessionID is the ACP session id (new or loaded).
func (e *Execution) AgentSessionID() string { panic("unimplemented") }

// Resumed reports whether session/load was used.
func (e *Execution) Resumed() bool { panic("unimplemented") }

// ReplayedUserPrompts are the user prompts the agent replayed during session/load, oldest first.
func (e *Execution) ReplayedUserPrompts() []string { panic("unimplemented") }

// Prompt sends one turn and blocks until it ends. Cancelling ctx sends
// session/cancel and waits for the agent's answer (bounded by KillGrace).
func (e *Execution) Prompt(ctx context.Context, text string) (PromptResult, error) {
	panic("unimplemented")
}

// Close: session/cancel, SIGTERM to the process group, SIGKILL after the grace period; waits. Idempotent.
func (e *Execution) Close() error { panic("unimplemented") }
