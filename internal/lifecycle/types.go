package lifecycle

// The types below are what internal/orchestrator consumes; Manager and
// Execution live in manager.go and execution.go.

import (
	"encoding/json"
	"errors"
	"fmt"
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
	// Agents that retry a failing provider by themselves (opencode, Qwen
	// Code) send nothing for a minute or more. A running turn without any
	// update for SilenceNotice gets a calm line in the chat; one silent for
	// SilenceLimit is cancelled as hung and retried like a lost connection.
	// 0 = the daemon's defaults (45s, 5m); negative turns the timer off.
	SilenceNotice Duration `json:"silence_notice,omitempty"`
	SilenceLimit  Duration `json:"silence_limit,omitempty"`
	// Fallback names the profiles (typically the same agent with another
	// model) a session of this profile continues on when an overload gate
	// has held it past its task's gate deadline, in order of preference.
	// Empty: no fallback. The orchestrator uses and validates it; launching
	// ignores it.
	Fallback []string `json:"fallback,omitempty"`
	// Model is the model the agent's sessions should use (a model id the
	// agent offers, e.g. "gpt-5.4"): asked for over ACP when the agent
	// reports a choice of models (model.go), and shown for its tasks when
	// the agent reports none. "" = the agent's own default.
	Model string `json:"model,omitempty"`
}

// Duration is a time.Duration written as a string in config files ("45s", "5m").
type Duration time.Duration

// UnmarshalJSON accepts "45s"-style strings, and "off" (or false: YAML
// reads a bare off as false), which is -1.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "false" {
		*d = -1
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string like \"45s\": %w", err)
	}
	if s == "off" {
		*d = -1
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the string form.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Profile.Permission values. The default is allow: agents run unattended in
// the task's own workdir, and rejecting every tool call would stall them.
const (
	PermissionAllow  = "allow"
	PermissionReject = "reject"
)

// EventKind names a streamed session/update.
type EventKind string

const (
	EventAgentMessage   EventKind = "agent_message"    // Text is a chunk of assistant text
	EventAgentThought   EventKind = "agent_thought"    // Text is a chunk of a thought
	EventToolCall       EventKind = "tool_call"        // a new tool call
	EventToolCallUpdate EventKind = "tool_call_update" // status/title change of a tool call
	EventPlan           EventKind = "plan"             // Text is a rendered plan
	// EventUsage is the agent's usage_update: Usage has the context window
	// and the cumulative cost. Not activity: it never counts as output.
	EventUsage EventKind = "usage"
	// EventModel: the agent announced another model for the session (a
	// config_option_update); Model has it. Not activity either.
	EventModel EventKind = "model"
)

// Usage is what an agent reports of a turn's tokens (ACP PromptResponse
// usage) and of its session's context window and cost (ACP usage_update
// session update). Zero fields were not reported.
type Usage struct {
	InputTokens, OutputTokens, TotalTokens int
	CachedReadTokens, ThoughtTokens        int
	ContextUsed, ContextSize               int     // usage_update: tokens in context, window size
	CostAmount                             float64 // usage_update: cumulative session cost
	CostCurrency                           string  // ISO 4217
}

// Event is one streamed update of the live turn (never a session/load replay).
type Event struct {
	Kind       EventKind
	Text       string
	ToolCallID string
	Title      string
	Status     string // pending, in_progress, completed, failed
	ToolKind   string
	// Input and Output are a tool call's raw input and its output (raw
	// output as JSON text, else the text of its content blocks); "" when
	// the update carries none. Unsanitised: the orchestrator redacts them.
	Input, Output string
	// Permission is how a session/request_permission for this tool call was
	// answered ("allowed", "rejected" or "cancelled"), with the chosen
	// option's name; "" on other events.
	Permission, PermissionOption string
	// Usage is EventUsage's report; nil on other events.
	Usage *Usage
	// Model is EventModel's model; nil on other events.
	Model *Model
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
	// Execution; it never runs inside the SDK's notification handler. Prompt and
	// Close wait for that goroutine, so OnEvent must not call back into the
	// Execution. May be nil.
	OnEvent func(Event)
}

// PromptResult is a turn that ended without error.
type PromptResult struct {
	StopReason string // end_turn, cancelled, max_tokens, ...
	// HadOutput and HadToolActivity describe the turn like the Evidence fields
	// of the same name, so a cancelled turn can be judged for replay safety too.
	HadOutput       bool
	HadToolActivity bool
	// Usage is the turn's token usage when the agent reported it (the
	// prompt response's usage field); nil otherwise.
	Usage *Usage
}

var (
	// ErrClosed is returned by Start after Manager.Close and by Prompt after Execution.Close.
	ErrClosed = errors.New("lifecycle: closed")
	// ErrTurnInProgress is returned by Prompt while an earlier turn is still
	// outstanding (a concurrent Prompt, or an agent that never answered session/cancel).
	ErrTurnInProgress = errors.New("lifecycle: a turn is already in progress")
)

// FailureError is returned by Start and Prompt when the agent run failed; it
// carries the evidence routingerr classifies.
type FailureError struct {
	// Evidence is taken when the failure arrived; Settle waits for the
	// agent's last stderr lines when they could still matter.
	Evidence routingerr.Evidence

	ex *Execution // the execution that failed; nil for a start failure
}

func (e *FailureError) Error() string { return "agent failed in " + string(e.Evidence.Phase) }

// AsFailure extracts the evidence from an error returned by this package.
func AsFailure(err error) (*FailureError, bool) {
	var fe *FailureError
	ok := errors.As(err, &fe)
	return fe, ok
}
