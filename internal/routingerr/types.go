package routingerr

import "time"

// Phase says where in an agent run a failure happened.
type Phase string

const (
	PhaseProcessStart Phase = "process_start"
	PhaseSessionInit  Phase = "session_init"
	PhasePromptSend   Phase = "prompt_send"
	PhaseStreaming    Phase = "streaming"
)

// Evidence is everything lifecycle knows about a failed agent run. It is the
// only input of classification; no field is required.
type Evidence struct {
	Agent string `json:"agent,omitempty"` // agent profile name, e.g. "mock", "claude"
	// Model is the model the turn ran on, when whoever built the evidence
	// knows it; Classify prefers it over a model named in the error text.
	Model string `json:"model,omitempty"`
	Phase Phase  `json:"phase,omitempty"`

	HasRPCError bool   `json:"has_rpc_error,omitempty"` // a JSON-RPC error response was received
	RPCCode     int    `json:"rpc_code,omitempty"`
	RPCMessage  string `json:"rpc_message,omitempty"`
	RPCData     string `json:"rpc_data,omitempty"` // raw JSON text of error.data, "" when absent

	HTTPStatus int    `json:"http_status,omitempty"` // 0 when unknown
	ExitStatus string `json:"exit_status,omitempty"` // e.g. "exit status 1", "signal: killed"; "" while running
	StderrTail string `json:"stderr_tail,omitempty"` // bounded tail of the agent's stderr
	Err        string `json:"err,omitempty"`         // transport/Go error text, e.g. "peer disconnected before response"

	HadOutput       bool   `json:"had_output,omitempty"`        // the turn streamed assistant text
	OutputText      string `json:"output_text,omitempty"`       // the turn's assistant text when short (≤ 4 KiB), else ""
	HadToolActivity bool   `json:"had_tool_activity,omitempty"` // the turn emitted tool calls
	Cancelled       bool   `json:"cancelled,omitempty"`         // the user (or the daemon) cancelled this turn
}

// Class is the routing decision family of a classification.
type Class string

const (
	ClassTransient    Class = "transient"
	ClassWaitForReset Class = "wait_for_reset"
	ClassUserAction   Class = "user_action"
	ClassTerminal     Class = "terminal"
	ClassInProgress   Class = "in_progress"
	ClassUnclassified Class = "unclassified"
)

// Classification is what routingerr concludes from Evidence.
type Classification struct {
	Code       string         `json:"code"`        // family: overloaded, capacity, unavailable, server_error, network, transport_lost, rate_limited, quota, auth, billing, ...
	Class      Class          `json:"class"`       //
	Confidence float64        `json:"confidence"`  // 0..1
	RuleID     string         `json:"rule_id"`     // stable and versioned, e.g. "anthropic.overloaded.529.v1"
	RetryAfter *time.Duration `json:"retry_after"` // provider's hint; nil when unknown
	ResetAt    *time.Time     `json:"reset_at"`    // absolute reset of a usage window; nil when unknown
	ResumeSafe bool           `json:"resume_safe"` // resuming the agent session cannot duplicate work
	// OutputIsError: the turn's only output was the agent's own copy of this
	// error (claude-agent-acp streams it before failing): not real work.
	OutputIsError bool   `json:"output_is_error"`
	Excerpt       string `json:"excerpt"` // sanitised, capped; safe to show and log
	// Model is the model the failure names (Evidence.Model, else an explicit
	// form in the text: "The model `gpt-4o` …", `"model":"…"`, "model: …",
	// "models/…"); "" when none. Only plausible ids, never a path or a
	// secret: it keys the overload gate (overload.Key).
	Model string `json:"model,omitempty"`
}
