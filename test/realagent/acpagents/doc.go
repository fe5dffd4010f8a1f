// Package acpagents proves orchestratord's retry owner against four more
// real ACP agents — Gemini CLI, Codex (codex-acp), opencode and Qwen Code —
// each talking to the project's own fake of its provider's API on loopback:
// the Gemini API (streamGenerateContent over SSE, generativelanguage v1beta)
// for Gemini CLI, the OpenAI Responses API (SSE) for Codex, and OpenAI chat
// completions (SSE) for opencode and Qwen Code. The error bodies and stream
// shapes are the real providers'.
//
// Opt-in, one variable per agent; a test skips when its variable is unset
// (CONVENTIONS #11):
//
//	ORCHESTRATORD_REAL_GEMINI=/path/to/gemini      (npm @google/gemini-cli)
//	ORCHESTRATORD_REAL_CODEX=/path/to/codex-acp    (npm @zed-industries/codex-acp)
//	ORCHESTRATORD_REAL_OPENCODE=/path/to/opencode  (npm opencode-ai)
//	ORCHESTRATORD_REAL_QWEN=/path/to/qwen          (npm @qwen-code/qwen-code)
//
// `make realagents` installs them under /tmp/realagents and runs this
// package with every variable set, one agent at a time.
//
// Every scenario starts a fake, a daemon and one task. The fake fails the
// agent turns of one prompt in a scripted way — a 503/overload, a per-minute
// 429 with its retry hint (Gemini: google.rpc QuotaFailure and RetryInfo
// retryDelay; OpenAI: "Please try again in 3s"), a 500, a stream cut after
// its first chunk, an error inside a stream (response.failed, an error
// chunk) — once on the first turn, or on the second turn after a first one
// that went well. Each must end recovered: the turn ends with end_turn and
// no recovery banner; one retry notice for the failed turn (none when the
// agent's own silent retry absorbed the failure); the model sees each
// prompt once in the last request; on a second turn it still sees the first
// turn's answer in its history; the chat holds each prompt and each answer
// once, and a failed attempt's partial text, if kept, is marked interrupted.
// opencode also gets more 500s in a row than its own retries absorb.
//
// Each agent's config goes into a private HOME in t.TempDir(): its base URL
// on the fake, a dummy key, its own retries off where it has a knob (Gemini
// general.maxAttempts=1; Codex request_max_retries=0, stream_max_retries=0;
// Qwen maxRetries=0, which it ignores for 5xx/429; opencode has none),
// telemetry and updates off. Variables of the calling environment that name
// a provider (OPENAI_*, GEMINI_*, GOOGLE_*, ANTHROPIC_*, proxies, …) are not
// passed on.
//
// Every scenario adds one row to the evidence matrix — agent × failure →
// outcome, notices, daemon retries, what the provider answered to each
// agent turn, time from the first failure to the end of the turn, and how
// the daemon classified each failed execution — printed as a Markdown table
// at the end of the run and appended as JSON lines to the file named by
// ORCHESTRATORD_REAL_MATRIX. ORCHESTRATORD_REAL_AGENT_VERBOSE=1 logs every
// request body and the daemon's logs; ORCHESTRATORD_REAL_AGENT_DAEMON tests
// a prebuilt binary instead of building one with -race.
package acpagents
