package routingerr

// Sessions that cannot go on as they are: a conversation the agent cannot
// compact any further, a session to resume that is not there (or whose
// saved history cannot be read), and the flags that ask for a resume the
// wrong way. Replaying the same prompt on the same session fails the same
// way, so none of these is transient. Catalogue claude-code.jsonl
// claude-code-compact-*, claude-code-resume-*, claude-code-session-flag-*;
// codex.jsonl codex-rollout-*.
var resumeRules = []rule{
	// Claude Code's compaction gives up: "Error during compaction: Error:
	// Conversation too long. Press esc twice to go up a few messages and try
	// again." (2.1.112 cli.js; 1.0.30 cli.js says "Press esc to go up a few
	// messages", without "twice") and "Compaction failed · conversation
	// could not be reduced below the context limit". The context is full and
	// cannot be made smaller by the agent.
	{id: "claude_code.compaction_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		any: []string{"conversation too long. press esc", "could not be reduced below the context limit"}},
	// "Compaction failed · attached media exceeds size limits": an image or
	// document in the history is over the API's limit and cannot be
	// stripped, so every request with this history fails.
	// Codex's remote compaction that came back empty: "Error running remote
	// compact task: Fatal error: remote compaction v2 expected exactly one
	// compaction output item, got 0 from 2 output items" (openai/codex
	// issues, heldout111). The history was not reduced, and the next turn
	// meets the same full context.
	{id: "codex.remote_compaction_empty.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.8,
		any: []string{"expected exactly one compaction output item"}},
	{id: "claude_code.compaction_media.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"attached media exceeds size limits"}},
	// A resume of a session that does not exist: "No conversation found with
	// session ID: <uuid>" (print mode, also inside a stream-json result's
	// errors) and "No conversation found to continue" (--continue).
	// Codex: "no rollout found for thread id …" (thread/resume, -32600),
	// "… for conversation id", "No rollout found for attached thread", and a
	// saved rollout it cannot read: "failed to load thread history …"
	// and "failed to read thread: thread-store internal error: …", "error
	// resuming thread: … failed to resume local thread recorder: …"
	// (@openai/codex 0.171.0 strings). The TUI's `codex resume <id>` for an
	// id it has no rollout for: "No saved session found with ID <id>. Run
	// `codex resume` without an ID to choose from existing sessions."
	// (openai/codex codex-rs/tui/src/lib.rs at 001cb8e233; later "Run
	// `codex {action}` …" for resume and fork, printed as "ERROR: …").
	{id: "session.resume_missing.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.8,
		any: []string{"no conversation found with session id", "no conversation found to continue",
			"no rollout found for thread id", "no rollout found for conversation id", "no rollout found for attached thread",
			"failed to load thread history", "failed to read thread: thread-store internal error",
			"failed to resume local thread recorder", "no saved session found with id"}},
	// Claude Code refusing its own session flags before any request:
	// "Error: --session-id can only be used with --continue or --resume if
	// --fork-session is also specified.", "Error: Invalid session ID. Must
	// be a valid UUID." (2.1.112 cli.js), and the native builds' "Error:
	// --resume requires a valid session ID when used with --print. …".
	{id: "claude_code.session_flags.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"can only be used with --continue or --resume", "invalid session id. must be a valid uuid",
			"requires a valid session id when used with --print"}},
	// "Error: Session ID <uuid> is already in use." (2.1.112 cli.js): a
	// --session-id another session holds; the same flags fail again.
	{id: "claude_code.session_in_use.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		all: []string{"session id ", "is already in use"}},
}
