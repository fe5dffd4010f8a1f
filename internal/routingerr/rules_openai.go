package routingerr

import (
	"strconv"
	"strings"
	"time"
)

// OpenAI API bodies and the Codex CLI.
var openaiRules = []rule{
	// "Reconnecting... 4/5 (21s • esc to interrupt)": Codex is retrying its
	// stream; 21s is time elapsed, not a wait, so no hint. codex-acp says
	// "Re-connecting... 1/5".
	{id: "codex.reconnecting.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  []string{"reconnecting... ", "reconnecting… ", "re-connecting... "},
		check: checkRetriesOver,
		match: func(s *scan) int {
			for _, k := range []string{"reconnecting... ", "reconnecting… ", "re-connecting... "} {
				i := s.index(k, true)
				if i < 0 {
					continue
				}
				rest := s.low[i+len(k):]
				j := 0
				for j < len(rest) && isDigit(rest[j]) {
					j++
				}
				if j == 0 || j >= len(rest) || rest[j] != '/' {
					continue
				}
				if s.retriesOver(i) && !codexRetriedStreamError(s, i, rest[:j], rest[j+1:]) {
					continue
				}
				return i
			}
			return -1
		},
		hint: func(_ *scan, c Classification) Classification { return c }},

	// A wrapper's own retry around the OpenAI and Azure OpenAI SDKs:
	// microsoft/gpt-review logs "Call to GPT failed due to rate limit, retry
	// attempt 1 of 5" (earlier "retry attempt: 1") and "Waiting for 20
	// seconds before retrying."; Azure's computer-use sample prints "Rate
	// limit exceeded. Waiting for 10 seconds.". The request is still being
	// retried, so in progress with the wait as the hint, unless a final
	// error follows. "Timed out waiting for 60000 ms" is not a wait: the
	// line must say it retries or that it was rate-limited.
	{id: "wrapper.retry_wait.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.8,
		gate:  []string{"retry attempt", "waiting ", sleepBeforeRetry, tenacityBeforeLog, delayingBeforeRetry},
		check: checkRetriesOver,
		match: func(s *scan) int {
			if i := tenacityNthCall(s.low); i >= 0 && !s.retriesOver(i) {
				return i
			}
			if i, _ := strandsRetryDelay(s.low); i >= 0 && !s.retriesOver(i) {
				return i
			}
			if i := wrapperRetryAttempt(s.low); i >= 0 && !s.retriesOver(i) {
				return i
			}
			if i, _ := retryAttemptWait(s.low); i >= 0 && !s.retriesOver(i) {
				return i
			}
			if i := s.index(sleepBeforeRetry, true); i >= 0 && !s.retriesOver(i) {
				return i
			}
			if i, _ := wrapperWait(s.low); i >= 0 && !s.retriesOver(i) {
				return i
			}
			return -1
		},
		hint: func(s *scan, c Classification) Classification {
			if _, d := wrapperWait(s.low); d > 0 {
				c.RetryAfter = new(d)
			} else if _, d := strandsRetryDelay(s.low); d > 0 {
				c.RetryAfter = new(d)
			} else if _, d := retryAttemptWait(s.low); d > 0 {
				c.RetryAfter = new(d)
			}
			return c
		}},

	// codex-rs's own notices while it recovers a turn (0.171.0): "Previous
	// response was not found. Retrying the full request." (its websocket
	// lost the previous_response_id), "stream connection failed; waiting to
	// retry", the TUI's "Reconnecting... waiting for network", "Falling back
	// from WebSockets to HTTPS transport.". The turn goes on; a final error
	// after the notice decides.
	{id: "codex.recovery_notice.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.8,
		gate:  codexRecoveryNotices,
		check: checkRetriesOver,
		match: func(s *scan) int {
			for _, k := range codexRecoveryNotices {
				if i := s.index(k, true); i >= 0 && !s.retriesOver(i) && !codexFallbackDenied(s.low, i, k) {
					return i
				}
			}
			return -1
		}},

	// The Codex desktop app and IDE extension cannot reach a CLI they can
	// run: the app's CLI selector ("Unable to locate the Codex CLI binary.
	// Set CODEX_CLI_PATH or ensure the Electron resources include
	// bin/codex."), its app-server check appServer.error.unsupportedVersion
	// ("Codex on this environment is out of date. Update to {minVersion} or
	// newer. Current version: {currentVersion}", also "Codex CLI on this
	// environment …"). No request was made; starting again fails the same
	// way until the install or CODEX_CLI_PATH is fixed.
	{id: "codex.app_cli_unavailable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"unable to locate the codex cli binary", "on this environment is out of date"}},

	// OpenAI's cybersecurity safety check on an account (platform docs
	// guides/safety-checks/cybersecurity): "This user's access to
	// gpt-5.3-codex has been temporarily limited for potentially suspicious
	// activity related to cybersecurity. Learn more about our safety
	// mitigations: …", which Codex prints inside "stream disconnected before
	// completion: …". The account is held, not the stream: replaying the
	// turn meets the same hold (a user_action, before the transport band).
	// The warning "Your account was flagged for potentially high-risk cyber
	// activity. Requests may be slower …" lets requests through and says
	// neither.
	{id: "openai.cyber_access_limited.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"temporarily limited for potentially suspicious", "suspicious activity related to cybersecurity"}},

	// Codex could not start on its own configuration (codex-rs tui/src/lib.rs
	// run_main: "Error loading config.toml: {err}", "Error parsing -c
	// overrides: {e}", "Error finding codex home: {err}", then exit 1), and
	// the toml crate's span diagram that {err} often is ("TOML parse error
	// at line 3, column 9"). Whatever the inner error says (a transport
	// name, a timeout value, "unexpected eof"), starting Codex again fails
	// the same way until the file is fixed.
	{id: "codex.config_load.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"error loading config.toml:", "error parsing -c overrides:", "error finding codex home:",
			"toml parse error at line"}},
	// An MCP server Codex could not start: "MCP client for `<name>` failed
	// to start: {err:#}" (codex-rs core/src/mcp_connection_manager.rs
	// mcp_init_error_display; older builds' codex.rs the same, and "Failed
	// to create MCP connection manager: {e:#}" when the manager itself
	// failed). The inner error is the server's start-up ("request timed
	// out" from the handshake, "connection closed: initialize response"),
	// a server or config.toml to fix: starting the same servers again
	// fails the same way, and the session goes on without them. Not when a
	// turn error follows in the same text (Codex's stream and status
	// wordings): that error decides. The same start-up error without the
	// client line: StartupOutcomeError::Failed's own "MCP startup failed:
	// {error}" (what resources/list and tool calls return for a server that
	// never came up), and the session's refusal to start when a server set
	// `required = true` failed, "required MCP servers failed to initialize:
	// {server}: {error}" (codex-rs core/src/session/startup.rs), which
	// app-server returns for thread/start and thread/resume. Catalogue codex
	// codex-mcp-*, codex-required-mcp-*.
	{id: "codex.mcp_startup_failed.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.75,
		any: []string{"` failed to start: ", "failed to create mcp connection manager",
			"mcp startup failed: ", "required mcp servers failed to initialize"},
		all:  []string{"mcp"},
		none: []string{"stream disconnected", "unexpected status", "reconnecting", "exceeded retry limit", "stream error"}},

	// codex app-server's answer to a JSON-RPC request it cannot deserialize
	// into a ClientRequest: INVALID_REQUEST_ERROR_CODE with "Invalid request:
	// {err}", err being serde's "unknown variant `turn/steer`, expected one
	// of …" for a method this server version does not have, or "missing
	// field `…`" (codex-rs app-server/src/message_processor.rs
	// process_request). The client sent what this server will never accept;
	// sending it again fails the same way. Catalogue codex
	// codex-app-server-invalid-request-*.
	{id: "codex.app_server_invalid_request.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{"invalid request: unknown variant", "invalid request: missing field"}},

	// codex-rs CodexErr::TurnAborted ("turn aborted. Something went wrong?
	// Hit `/feedback` …", from a cancelled task) and Interrupted ("interrupted
	// (Ctrl-C). …"): the turn was stopped under the agent. Without our own
	// cancel flag nobody can tell who stopped it, so it is not replayed.
	{id: "codex.turn_aborted.v1", band: bandCancel, code: "cancelled", class: ClassUnclassified, conf: 0.5,
		any: []string{"turn aborted. something went wrong", "interrupted (ctrl-c)",
			// The TUI's line for the same abort (codex-rs tui chatwidget
			// on_interrupted_turn): "■ Conversation interrupted - tell the
			// model what to do differently. Something went wrong? …".
			"conversation interrupted - tell the model what to do differently"}},

	// xAI's per-team limits: "Too many tokens for team … and model grok-4.
	// Your team's rate limit is — Tokens per Minute (actual/limit): …".
	{id: "xai.team_rate_limit.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.8,
		any: []string{"your team's rate limit is", "too many tokens for team", "too many requests for team"}},

	// Codex's cyber_policy refusal (codex-rs CodexErrorInfo::CyberPolicy):
	// the TUI's "ⓘ This chat was flagged for possible cybersecurity risk",
	// the API's "This content was flagged for possible cybersecurity
	// risk. …" with code cyber_policy. The same prompt is refused again.
	// The warning "multiple flags for possible cybersecurity risk" is not a
	// failure and says "flags".
	{id: "codex.cyber_policy.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"flagged for possible cybersecurity risk", "cyber_policy"}},

	// Refusals by policy, as codex-rs and the Responses API word them: the
	// bio_policy texts ("This request has been flagged for possible
	// biological risk."), the content policy ("The input was rejected by the
	// content policy.", ApiError "content policy violation"), the
	// misalignment policy, the SDKs' ContentFilterFinishReasonError
	// ("… rejected by the content filter"), and invalid_prompt's "Invalid
	// prompt: we've limited access to this content for safety reasons." (an
	// "Invalid prompt:" alone is also the AI SDK's malformed prompt). The
	// same input is refused again.
	{id: "openai.policy_refusal.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"flagged for possible biological risk", "bio_policy", "rejected by the content policy",
			"content policy violation", "content_policy_violation", "misalignment policy violation", "misalignment_policy",
			"rejected by the content filter", "access to this content for safety reasons"}},
	// OpenAI's parameter validation, as a client prints the message alone
	// (no type or code around it): "Unsupported parameter: 'max_tokens' is
	// not supported with this model. Use 'max_completion_tokens' instead.",
	// "Unsupported value: 'temperature' does not support 0.7 with this
	// model.", and the form that names the model: "Unsupported value: 'none'
	// is not supported with the 'gpt-6-astra' model. Supported values are:
	// 'low', 'medium', 'high', 'xhigh', and 'max'." (reasoning.effort,
	// code unsupported_value), "Unsupported parameter: 'reasoning.summary'
	// is not supported with the 'gpt-5.3-codex-spark' model." The same body
	// fails the same way.
	{id: "openai.unsupported_param_message.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{"unsupported parameter: ", "unsupported value: "}, match: unsupportedWithModel,
		check: `"with this model", or "is not supported with the '<model>' model"`},
	// OpenAI's validation of a tool's parameters schema (Structured Outputs
	// and function calling: the schema must be an object schema, with
	// properties, and in strict mode additionalProperties false): a 400
	// invalid_function_parameters, "Invalid schema for function '<name>':
	// In context=(), object schema missing properties." or "…: schema must
	// be a JSON Schema of 'type: "object"', got 'type: null'.", which
	// OpenAI-compatible servers and clients repeat without the body around
	// it. The same tools fail the same way until the tool is fixed.
	{id: "openai.function_schema_invalid.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"invalid schema for function '", "invalid_function_parameters", "object schema missing properties"}},
	// The request's own output limit: the Responses API's response.incomplete
	// with incomplete_details.reason max_output_tokens (codex-rs: "Incomplete
	// response returned, reason: max_output_tokens"), the SDKs'
	// LengthFinishReasonError ("Could not parse response content as the
	// length limit was reached"). The same request stops at the same limit.
	{id: "openai.output_limit.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"reason: max_output_tokens", `"reason":"max_output_tokens"`, `"reason": "max_output_tokens"`,
			"length limit was reached"}},
	// A workspace's own gate in front of the model (codex-rs 0.171.0): its
	// inference hook ("Your workspace inference hook blocked this request.",
	// ApiError "inference hook denied") or an access program not enabled
	// for it; an admin changes that, not a retry. An access program that
	// "cannot be used with this model" is the model choice.
	{id: "codex.workspace_gate.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"inference hook blocked", "inference hook denied", "access program is not enabled", "access program not enabled"}},
	{id: "codex.access_program_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"access program cannot be used with this model"}},
	// The goal or session budget the user gave Codex ("Goal budget reached -
	// the turn was stopped.", ApiError "session budget exceeded"): raise
	// it, then resume.
	// CodexErr::SessionBudgetExceeded itself says only "budget reached", so
	// that is read as the whole message of a line ("■ budget reached"), not
	// inside other prose. Earlier builds (@openai/codex 0.147.0) said "shared
	// rollout token budget exhausted" for the same stop (features.rollout_budget).
	{id: "codex.budget.v1", band: bandUser, code: "turn_limit", class: ClassUserAction, conf: 0.85,
		gate: []string{"goal budget reached", "session budget exceeded", "budget reached", "rollout token budget exhausted"},
		match: func(s *scan) int {
			for _, k := range []string{"goal budget reached", "session budget exceeded", "rollout token budget exhausted"} {
				if i := s.index(k, false); i >= 0 {
					return i
				}
			}
			return bareLine(s.low, "budget reached")
		}},
	// Codex's login and sandbox setup: "Not signed in. Please run 'codex
	// login' …", "codex-linux-sandbox was required but not provided". Its
	// Linux sandbox that this kernel or container cannot set up: the
	// codex-linux-sandbox helper panics with "error running landlock: {e:?}"
	// (codex-rs linux-sandbox/src/linux_run_main.rs: Sandbox(LandlockRestrict),
	// Io(Os { … PermissionDenied … })), and CodexErr::Sandbox shows
	// SandboxErr::LandlockRestrict as "sandbox error: Landlock was not able
	// to fully enforce all sandbox rules" (core/src/error.rs). Every command
	// fails the same way until the kernel, the container or sandbox_mode
	// changes. Catalogue codex codex-rs-landlock-*.
	{id: "codex.not_signed_in.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"run 'codex login'", "run `codex login`"}},
	{id: "codex.sandbox_setup.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"codex-linux-sandbox was required", "error running landlock",
			"landlock was not able to fully enforce all sandbox rules"}},
	// Codex's Windows sandbox that cannot be set up for this user: its
	// helper's codes and the Win32 calls it reports failing with 5 (access
	// denied), 740 (elevation) or 1223 (the UAC prompt declined) —
	// "helper_sandbox_lock_failed … SetNamedSecurityInfoW sandbox dir
	// failed: 5", "windows sandbox: runner error: CreateProcessAsUserW
	// failed: 5", "failed to spawn codex-windows-sandbox-setup.exe",
	// "helper_unknown_error: setup refresh had errors" (openai/codex issues,
	// heldout111). Every command fails the same way until the sandbox's
	// folders, the user's rights or the sandbox setting change: config, as
	// codex.sandbox_setup.v1 (the host, not a permission the provider refused).
	{id: "codex.windows_sandbox.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"windows sandbox", "helper_sandbox_lock_failed", "codex-windows-sandbox-setup", "setup refresh had errors",
			"failed to launch setup helper", "setnamedsecurityinfow", "createprocessasuserw failed"}},
	// bubblewrap, the Linux sandbox Claude Code and Codex run commands in,
	// refused by the host: "bwrap: setting up uid map: Permission denied",
	// "bwrap: Can't create file at …: Read-only file system"; or its shell
	// missing: "bwrap: execvp /bin/bash: No such file or directory".
	{id: "sandbox.bwrap_denied.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		all: []string{"bwrap: ", "permission denied"}},
	{id: "sandbox.bwrap_read_only.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		all: []string{"bwrap: ", "read-only file system"}},
	{id: "sandbox.bwrap_exec_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		all: []string{"bwrap: execvp ", "no such file or directory"}},
	// codex-rs's session storage at start (session_rollout_init_error.rs,
	// as CodexErr::Fatal): "Codex cannot access session files at … (permission
	// denied). … fix ownership: sudo chown …", "Session storage missing at
	// …", "Session storage path … is blocked by an existing file", "Session
	// data under … looks corrupt or unreadable". The files, not the request.
	{id: "codex.session_storage.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"cannot access session files", "session storage missing", "session storage path", "looks corrupt or unreadable"}},
	// A provider the managed policy does not allow ("Model provider blocked
	// by policy").
	{id: "codex.provider_policy.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"provider blocked by policy"}},
	// A ChatGPT workspace that does not give this account Codex (0.171.0
	// login: "You do not have access to Codex", "This account is not
	// currently authorized to use Codex in this workspace.", "Codex is not
	// enabled for your workspace. Contact your workspace administrator …").
	{id: "codex.workspace_access.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"not enabled for your workspace", "not currently authorized to use", "you do not have access to codex"}},
	// Codex's credentials themselves: "Your ChatGPT credential expired.
	// Reopen Codex to reconnect.", "Login is restricted to a specific
	// workspace, but the token did not include an chatgpt_account_id
	// claim.", its Bedrock provider's "No AWS credentials found. …".
	{id: "codex.credentials.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"credential expired", "login is restricted to a specific workspace", "no aws credentials found"}},
	// codex-rs's ChatGPT login without its tokens (login/src/auth/manager.rs
	// get_token_data and persist_tokens: "Token data is not available."):
	// auth.json holds no ChatGPT tokens or was never refreshed, so every
	// request fails the same way until `codex login` runs again. Wrappers
	// relay it as they are ("stream error: Token data is not available",
	// CodexMCP's "error: 'Token data is not available.'"). Catalogue codex
	// codex-rs-token-data-unavailable.
	// The ChatGPT Codex backend's 400 for a model this client version
	// cannot use ({"detail":"The '<model>' model requires a newer version
	// of Codex. Please upgrade to the latest app or CLI and try again."}):
	// the same request fails until the CLI or app is updated. Catalogue
	// codex codex-backend-model-requires-newer-version.
	{id: "codex.requires_newer_version.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"requires a newer version of codex"}},
	{id: "codex.token_data_unavailable.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		any: []string{"token data is not available"}, none: []string{"per-message token data", "usage token data"}},
	// OpenAI's 401 for a key or member without the role or scope
	// ("You have insufficient permissions for this operation. Missing
	// scopes: api.responses.write. Check that you have the correct role …"):
	// the key is valid, its permissions are not; an owner changes them.
	{id: "openai.insufficient_permissions.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"insufficient permissions for this operation", "missing scopes:"}},
	// Codex's --oss providers when the local server is absent ("No running
	// Ollama server detected. Start it with: `ollama serve` …", "LM Studio
	// not found. Please install LM Studio …"), and its CLI set up in a way
	// it refuses ("Not inside a trusted directory and
	// --skip-git-repo-check was not specified.", "The --api-key flag is no
	// longer supported. …", "Daybreak requires the OpenAI provider …").
	// Nothing changes until the machine or the command does.
	{id: "codex.local_setup.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"no running ollama server", "lm studio not found", "not inside a trusted directory",
			"flag is no longer supported", "requires the openai provider",
			// --oss's model pull through a server that never reported
			// success (codex-rs ollama/src/client.rs pull_with_reporter:
			// "Pull stream ended unexpectedly without success."), as when
			// the base URL is LM Studio's, which has no Ollama pull API.
			// Catalogue codex codex-oss-pull-stream-ended.
			"pull stream ended unexpectedly without success"}},
	// A feature this account may not use ("Daybreak is not available for
	// this account. Apply at …"); a model named that way is the model's
	// rule.
	{id: "codex.account_feature.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.8,
		any: []string{"is not available for this account"}, none: []string{"model"}},
	// codex-acp's authenticate without the key it was asked to use:
	// "OPENAI_API_KEY is not set", "CODEX_API_KEY is not set".
	{id: "openai.api_key_env_unset.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"api_key is not set"}},
	// The Stainless-built Go SDKs' request with no base URL to send it to
	// (openai/openai-go internal/requestconfig/requestconfig.go, since
	// "fix(client): no panic on missing BaseURL": "requestconfig: base url
	// is not set"), as the Go opencode printed it through its event loop;
	// an OPENAI_BASE_URL "is not set" is the same missing setting. Every
	// request fails until the configuration names one.
	{id: "sdk.base_url_unset.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		gate:  baseURLUnsetWords,
		check: "\"set\" ends its word (not \"settled\")",
		match: func(s *scan) int {
			for _, w := range baseURLUnsetWords {
				for off := 0; ; {
					i := strings.Index(s.low[off:], w)
					if i < 0 {
						break
					}
					i += off
					if j := i + len(w); j >= len(s.low) || !isAlnum(s.low[j]) {
						return i
					}
					off = i + len(w)
				}
			}
			return -1
		}},
	// The SDKs' OAuth token exchange errors (openai-node OAuthError "OAuth2
	// authentication error", openai-python "OAuth authentication error.").
	{id: "openai.oauth_error.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		any: []string{"oauth2 authentication error", "oauth authentication error"}},
	// openai-node's APIConnectionError when the undici dispatcher passed in
	// does not fit the fetch in use ("Connection error. This may be caused by
	// passing an undici dispatcher, such as ProxyAgent, that is incompatible
	// with the fetch implementation. …"): every request fails the same way
	// until the setup changes, so not the connection error it opens with.
	{id: "openai.undici_dispatcher.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"passing an undici dispatcher", "incompatible with the fetch implementation"}},

	// The TypeScript Codex CLI's system notices when a request fails on the
	// wire (@openai/codex 0.1.2505172129 codex-cli/src/utils/agent/
	// agent-loop.ts): "⚠️  Network error while contacting OpenAI. Please
	// check your connection and try again." after its own retries for a
	// timeout, a connection error or a 5xx (and for errno codes, a status
	// >= 500 or a network/socket/stream message), and "⚠️  Connection closed
	// prematurely while waiting for the model. Please try again." for
	// ERR_STREAM_PREMATURE_CLOSE. The turn ended on a blip; the same words
	// for another provider ("Network error while contacting Anthropic") mean
	// the same. Catalogue codex codex-ts-network-error, codex-ts-premature-close.
	{id: "codex.ts_network_notice.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"network error while contacting "}},
	{id: "codex.ts_premature_close.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"connection closed prematurely while waiting for the model"}},

	// codex-rs UsageLimitReachedError for a workspace spend cap
	// (WorkspaceOwnerUsageLimitReached / WorkspaceMemberUsageLimitReached):
	// "You hit your spend cap set in your workspace. Increase your spend
	// cap to continue." Money, not a window: an owner raises the cap.
	// The TUI's "You've reached your workspace credit limit" is the same,
	// and so is the ChatGPT backend's x-codex-rate-limit-reached-type (or
	// rate_limit_reached_type) for a workspace's credits or spend cap, even
	// on a 429 whose body says usage_limit_reached: its resets_at is a
	// window that does not bring the money back.
	{id: "codex.spend_cap.v1", band: bandReset, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"hit your spend cap", "workspace credit limit", "workspace_owner_credits_depleted",
			"workspace_member_credits_depleted", "workspace_owner_usage_limit_reached", "workspace_member_usage_limit_reached"}},
	// codex-rs CodexErr::InvalidImageRequest ("Image poisoning"), not
	// retryable: an image in the history is refused, and stays there.
	{id: "codex.invalid_image.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{"image poisoning"}},

	// ChatGPT-plan limits: {"type":"usage_limit_reached","resets_at":…}.
	{id: "openai.usage_limit_reached.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.95,
		any: []string{"usage_limit_reached"}},

	// "Request too large for gpt-4o … on tokens per min": one request above
	// the per-minute budget can never pass, whatever the wait.
	{id: "openai.request_too_large_tpm.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		all: []string{"request too large for"}, any: []string{"per min", "(tpm)"}},
	{id: "openai.context_length.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.95,
		any: []string{"context_length_exceeded", "maximum context length"}},
	// vLLM's input check (engine _validate_model_input): "The decoder
	// prompt (length 40001) is longer than the maximum model length of
	// 32768." The prompt alone is over the served context.
	{id: "vllm.prompt_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		any: []string{"is longer than the maximum model length of"}},
	// Ollama's own back-pressure, whatever the client wraps it in: its
	// scheduler's full queue (server/sched.go ErrMaxQueue, "server busy,
	// please try again.  maximum pending requests exceeded", a 503 since
	// ollama#4144) and a runner with every slot taken (llm/server.go:
	// ServerStatusNoSlotsAvailable is "llm busy - no slots available",
	// returned as "unexpected server status: …", and getServerStatusRetry's
	// "no slots available after %d retries"). The server is up and working
	// through other requests; the same request passes once a slot frees.
	// Generic band: a status beside it (Zed's "503 Service Unavailable
	// {…}") is read first, with the same class. Catalogue local-servers
	// ollama-max-queue-busy, ollama-no-slots-unexpected-status,
	// ollama-no-slots-after-retries.
	{id: "ollama.server_busy.v1", band: bandGeneric, code: "overloaded", class: ClassTransient, conf: 0.85,
		any: []string{"maximum pending requests exceeded", "llm busy - no slots available", "no slots available after"}},
	// A local runtime that could not load the model it was asked to serve:
	// llama.cpp's loader ("llama_model_load: error loading model: …",
	// src/llama.cpp llama_model_load) as Ollama, LM Studio and
	// llama-cpp-python relay it, its tools' "error: failed to load model
	// '<path>'", LM Studio's "Failed to load the model" / "Failed to load
	// model \"<name>\". Error: Error loading model." A different model,
	// build or setting is needed; replaying loads the same file again.
	// Catalogue local-servers llamacpp-error-loading-model-architecture,
	// llamacpp-failed-to-load-model-path.
	// llama.cpp's server started without --jinja and sent a request with
	// tools: "tools param requires --jinja flag" (tools/server/utils.hpp,
	// the OpenAI-compatible chat parser's runtime_error, returned as a 500
	// server_error). The server must be restarted with the flag (or the
	// agent told not to send tools); the same request fails again.
	// Catalogue local-servers llamacpp-tools-param-requires-jinja.
	{id: "llamacpp.tools_need_jinja.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"tools param requires --jinja flag"}},
	{id: "local.model_load_failed.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.75,
		any: []string{"error loading model", "failed to load the model", "failed to load model '", "failed to load model \""}},
	{id: "codex.context_window.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		any: []string{"out of room in the model's context window", "exceeds the context window"}},
	// The history holds a tool call without its output: replaying the same
	// history fails the same way. Also a reasoning item sent by id without
	// the item that must follow it ("Item 'rs_...' of type 'reasoning' was
	// provided without its required following item.", the Responses API 400
	// openai-agents-python's docs/running_agents.md names for its
	// reasoning_item_id_policy; catalogue openai-api
	// openai-api-reasoning-without-following-item). Chat Completions says
	// the same of its tool messages: "Invalid parameter: messages with role
	// 'tool' must be a response to a preceeding message with 'tool_calls'."
	// (its spelling; portkey.ai error library invalid-parameter-error-10034
	// quotes it with "preceding") for a tool message without the assistant
	// turn that called it, and "An assistant message with 'tool_calls' must
	// be followed by tool messages responding to each 'tool_call_id'. The
	// following tool_call_ids did not have response messages: …" for a call
	// without its result (LangChain's INVALID_TOOL_RESULTS page shows the
	// 400); OpenAI-compatible servers (Moonshot, DashScope) copy both.
	// Catalogue openai-api openai-api-tool-role-without-tool-calls,
	// openai-api-tool-calls-without-tool-messages.
	// A function_call_output with no call_id, or one whose call_id no
	// function_call has, is the same break: "Function call output requires
	// call_id." (the Responses API, openai/codex#43296; a Markdown paste
	// escapes it "call\_id", which the keywords read through), DeepSeek's
	// "No tool call found for tool output with call_id …" (openai/codex#42088).
	// Catalogue openai-api openai-api-function-call-output-without-call-id,
	// openai-compatible-tool-output-without-tool-call.
	{id: "openai.no_tool_output.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.9,
		any: []string{"no tool output found for function call", "no tool call found for function call output",
			"function call output requires call_id", "no tool call found for tool output with call_id",
			"without its required 'reasoning' item", "without its required reasoning item", "without its required following item",
			"must be a response to a preceeding message with", "must be a response to a preceding message with",
			"must be followed by tool messages responding to each"}},
	// The Responses API's 404 for an item the request refers to but the
	// server never kept: "Item with id 'rs_…' not found. Items are not
	// persisted when `store` is set to false. Try again with `store` set to
	// true, or remove this item from your input." The history replays an
	// id instead of the item, so the same input 404s again; CLIProxyAPI's
	// conductor (isRequestScopedNotFoundMessage, isRequestInvalidError)
	// reads it as a caller-side request-shape failure, not a missing model.
	// Read before the bare 404, which would say the model does not exist.
	// Catalogue relays relays-cliproxy-item-not-persisted-404.
	{id: "openai.item_not_persisted.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.9,
		any: []string{"items are not persisted when"}},

	// The Responses API's 400 for a replayed input that holds one item id
	// twice: "Duplicate item found with id fc_…. Remove duplicate items from
	// your input and try again." (Copilot CLI relays it over its websocket
	// as CAPIError 400). The session's saved history repeats the item, so
	// the same input fails again until the history is repaired.
	// Catalogue openai-api openai-api-responses-duplicate-input-item-400.
	{id: "openai.duplicate_input_item.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.9,
		any: []string{"duplicate item found with id"}},

	// No credits or no plan: insufficient_quota and its codes; the ChatGPT
	// backend's 429 {"error":{"type":"usage_not_included"}} (codex-rs's
	// UsageNotIncluded: "To use Codex with your ChatGPT plan, upgrade to Plus").
	{id: "openai.insufficient_quota.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.95,
		any: []string{"insufficient_quota", "billing_hard_limit_reached", "credit_balance_exhausted", "usage_not_included"}},
	{id: "openai.invalid_api_key.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.95,
		any: []string{"invalid_api_key", "incorrect api key provided"}},
	// one-api and new-api when no enabled channel of the user's group
	// serves the model (middleware/distributor.go, HTTP 503): "当前分组
	// default 下对于模型 gpt-4o 无可用渠道", new-api's English "No available
	// channel for model … under group … (distributor)" with code
	// model_not_found. Nothing changes until the model or the relay's
	// channels do.
	{id: "relay.no_channel.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"无可用渠道", "no available channel for model"}},
	// new-api when its HTTP client could not complete the request to the
	// upstream at all (relay/channel/api_request.go: client.Do fails, the
	// cause is hidden behind types.ErrOptionWithHideErrMsg("upstream error:
	// do request failed"), code do_request_failed, HTTP 500): a dial, TLS or
	// read failure on the relay's side. Clients print the message without the
	// status_code= prefix ("upstream error: do request failed (request id:
	// …)"). The same request is sent again on the next try.
	{id: "relay.do_request_failed.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{"upstream error: do request failed"}},
	// A relay whose pool has no schedulable upstream account right now:
	// sub2api's gateway_service.go selects among the group's schedulable
	// accounts (rate-limited and overloaded ones excluded) and fails with
	// "no available accounts" or "no available accounts supporting model:
	// <m>", which gateway_handler.go sends as 503 (later 424) "No available
	// accounts: " + err; claude-relay-service's unifiedClaudeScheduler.js
	// throws "No available Claude accounts support the requested model: <m>"
	// (or "… (neither official nor console)") after the same filtering, and
	// routes/api.js answers 500 "Relay service error". Accounts come back
	// when their limits lapse, so it is waited out like a 503; the envelope's
	// status (424, 500) says nothing either way. sub2api's "No available
	// accounts: this group only allows Claude Code clients" is a rule of the
	// group, not a state of the pool, and does not match. Catalogue relays
	// sub2api-no-available-accounts*.
	{id: "relay.no_available_accounts.v1", band: bandTransient, code: "unavailable", class: ClassTransient, conf: 0.75,
		any: []string{"no available accounts: no available accounts"}},
	// claude-relay-service's own words say more than the pool's state: its
	// scheduler throws "No available Claude accounts support the requested
	// model: <m>" (or "… (neither official nor console)") both when every
	// account is cooling down and when none of them may serve <m> (a plan
	// without the model; its thread #270). Where the text cannot tell a
	// wait from a setting, take the side that does not replay: the user
	// picks another model or account. Catalogue relays crs-no-claude-accounts-*.
	{id: "relay.crs_no_accounts_for_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.6,
		any: []string{"no available claude accounts support the requested model", "no available claude accounts (neither official nor console)"}},
	// "Project `proj_…` does not have access to model `gpt-4o`" is the
	// same code's message for a project without the model.
	{id: "openai.model_not_found.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.9,
		any: []string{"model_not_found", "does not exist or you do not have access to it", "model is not supported when using codex",
			"does not have access to model"}},
	// Codex's QuotaExceeded and similar; Gemini sends the same sentence with
	// RESOURCE_EXHAUSTED, which rules_google.go reads by its quota id.
	{id: "openai.plan_and_billing.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.8,
		any: []string{"check your plan and billing"}, none: []string{"resource_exhausted"}},

	{id: "openai.engine_overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.9,
		gate: append(openaiOverloadWords, "engine_overloaded_error"),
		// Moonshot / Kimi send the type too (429 engine_overloaded_error,
		// platform.moonshot.cn/docs/api/chat): structure, wherever the
		// words wrapped.
		match: func(s *scan) int {
			if i := s.errorText(openaiOverloadWords...); i >= 0 {
				return i
			}
			return s.index("engine_overloaded_error", false)
		}},
	// The whole boilerplate, so a sentence that merely says "overloaded
	// with other requests" is not an error: "That model is currently
	// overloaded with other requests. You can retry your request, or …".
	{id: "openai.model_overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.9,
		all: []string{"is currently overloaded with other requests", "you can retry your request"}},
	{id: "openai.rate_limit_exceeded.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.95,
		any: []string{"rate_limit_exceeded", "rate limit reached for"}},

	// LiteLLM's router when every deployment of the model group is cooling
	// down (router.py; docs/proxy: "No deployments available for selected
	// model, Try again in 60 seconds. Passed model=…"): the wait is its
	// cooldown, then the group is tried again.
	{id: "litellm.no_deployments.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: []string{"no deployments available for selected model", "no healthy deployment available"}},

	// Azure AI services' 401 for a wrong key or endpoint: "Access denied due
	// to invalid subscription key or wrong API endpoint. Make sure to
	// provide a valid key for an active subscription …" is the key, not a
	// permission.
	{id: "azure.invalid_subscription_key.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"invalid subscription key or wrong api endpoint"}},

	// Azure RBAC with an Entra ID token: "Principal does not have access to
	// API/Operation." (401 PermissionDenied): the identity lacks a data-plane
	// role such as Cognitive Services OpenAI User; a grant is the fix.
	{id: "azure.principal_no_access.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"principal does not have access to api/operation"}},
	// Azure OpenAI's 400 OperationNotSupported: the deployment's model does
	// not serve the API called ("The chatCompletion operation does not work
	// with the specified model, gpt-5.1-codex. Please choose different model
	// …"; codex models serve only the Responses API, chat models no
	// completions). The model or the API the client uses is to change.
	{id: "azure.operation_not_supported.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"does not work with the specified model", "operationnotsupported"}},
	// LiteLLM's proxy for a key that is not one of its virtual keys:
	// "LiteLLM Virtual Key expected. Received=…, expected to start with
	// 'sk-'." (often a placeholder that was never substituted).
	{id: "litellm.virtual_key_expected.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"litellm virtual key expected"}},
	// LiteLLM refuses to build the request for the provider:
	// litellm.UnsupportedParamsError (a BadRequestError) for an OpenAI param
	// the provider has no mapping for (utils.py get_optional_params: "<p>
	// does not support parameters: {…}, for model=…. To drop these, set
	// `litellm.drop_params=True` …"), or for a history with tool calls and
	// no tools= (llms/anthropic/chat/transformation.py transform_request,
	// llms/bedrock/chat/converse_transformation.py: "Anthropic doesn't
	// support tool calling without `tools=` param specified. Pass `tools=`
	// param OR set `litellm.modify_params = True` … to add dummy tool to the
	// request."). The same request fails the same way until the client or
	// the proxy's settings change (catalogue relays
	// litellm-unsupportedparams-anthropic-tools, -bedrock-tools).
	{id: "litellm.unsupported_params.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"unsupportedparamserror", "to add dummy tool to the request"}},
	// Cloudflare's challenge page ("<title>Just a moment...</title>") in
	// front of chatgpt.com: no client without a browser passes it, so
	// replaying the request meets it again; a proxy, VPN or network is the
	// fix. Its /cdn-cgi/challenge-platform/ path alone is no page: a
	// request to it can time out like any other.
	{id: "codex.cloudflare_challenge.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"<title>just a moment...</title>"}},

	// A relay's idle deadline on the upstream body ("upstream response idle
	// timeout", switch-a's ErrReadTimeout and ErrSSEIdleTimeout "upstream
	// SSE idle timeout", codex-switch's response_stream_error): the stream
	// stalled and was cut; a new request may go through.
	{id: "relay.upstream_idle_timeout.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"upstream response idle timeout", "upstream sse idle timeout"}},

	// Capacity codex-rs 0.171.0 names: "Policy-restricted capacity is
	// unavailable. Please try again later.", the flex service tier's "Flex
	// capacity unavailable.". Like "Selected model is at capacity", it
	// passes.
	{id: "codex.capacity_unavailable.v1", band: bandTransient, code: "capacity", class: ClassTransient, conf: 0.8,
		any: []string{"capacity is unavailable", "capacity unavailable"}},
	// A response.failed event without an error object (codex-rs
	// "response.failed event received"): the server failed the response.
	{id: "codex.response_failed.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{"response.failed event received"}},
	// openai-node's stream reader when an event is cut mid-way ("Error
	// reading response: malformed server-sent event JSON.", or
	// newline-delimited JSON). Its "stream ended without producing a
	// ChatCompletion" is anthropic.stream_incomplete.v1's wording.
	{id: "openai.sdk_stream_cut.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.7,
		any: []string{"malformed server-sent event json", "malformed newline-delimited json"}},

	{id: "codex.stream_disconnected.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.9,
		any: []string{"stream disconnected before completion"}},
	// codex-rs's own stream-cut messages without the "stream disconnected
	// before completion: " Display prefix (CodexErr::Stream's payload, as a
	// wrapper or relay that copies only the inner message prints it): the
	// SSE or WebSocket stream ended before its response.completed event.
	{id: "codex.stream_closed_before_completed.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.85,
		any: []string{"stream closed before response.completed", "closed by server before response.completed"}},

	// {"type":"server_error"} bodies and Responses-API "response.failed"
	// events with an error code of server_error.
	{id: "openai.server_error.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{`"type":"server_error"`, `"type": "server_error"`, `"code":"server_error"`, `"code": "server_error"`}},
	// The tail of Codex's usage-limit message when a wrapper, banner or
	// paraphrase keeps only the reset: "… or try again at Jun 3rd, 2026
	// 9:00 AM." (codex-rs core/src/error.rs, a date when the window ends on
	// another day), "try again at Sep 2, 2026, 7:23 AM". A calendar date
	// with its year is a usage window's end, not a per-minute back-off; the
	// clock alone ("try again at 3:32 PM") says too little, and a text some
	// stronger rule reads keeps that reading (fallback band).
	{id: "codex.try_again_at_date.v1", band: bandFallback, code: "quota", class: ClassWaitForReset, conf: 0.6,
		gate: []string{"try again at "}, match: tryAgainAtDate,
		check: `"try again at" is followed by a month, a day and a year`},
}

// bareLine is the offset of msg where it is a line's whole text, apart
// from blanks, a final period and a TUI error glyph ("■ "); -1 otherwise.
func bareLine(low, msg string) int {
	for off := 0; off <= len(low); {
		end := strings.IndexByte(low[off:], '\n')
		if end < 0 {
			end = len(low)
		} else {
			end += off
		}
		line := strings.TrimSpace(low[off:end])
		line = strings.TrimSpace(strings.TrimPrefix(line, "■"))
		if strings.TrimSuffix(line, ".") == msg {
			return off + strings.Index(low[off:end], msg)
		}
		off = end + 1
	}
	return -1
}

// codexRecoveryNotices are codex-rs's notices while it retries a turn in
// another way (codex.recovery_notice.v1).
var codexRecoveryNotices = []string{"retrying the full request", "stream connection failed; waiting to retry",
	"reconnecting... waiting for network", "falling back from websockets to https",
	// codex-api's log line when the Responses websocket handshake is
	// refused with 426 Upgrade Required (endpoint/responses_websocket.rs
	// connect_websocket: error! "failed to connect to websocket: {err}, url:
	// {url}", tungstenite's "HTTP error: 426 Upgrade Required"):
	// core/src/client.rs takes exactly that status as
	// WebsocketStreamOutcome::FallbackToHttp and sends the turn over HTTPS.
	// Catalogue codex codex-ws-426-fallback-log, codex-ws-426-fallback-log-bare.
	"failed to connect to websocket: http error: 426"}

// codexFallbackDenied: the recovery notice k at i is codex-rs's WarningEvent
// "Falling back from WebSockets to HTTPS transport. {err:#}", and err, on
// the same line, is a denial of the account or its region (a 403, "not
// authorized in this region", "territory not supported", a usage limit or
// quota). The fallback only changes the transport; the same account is
// denied over HTTPS, so the notice is no recovery and the error decides.
// A bare 401 is left to the fallback: codex-rs refreshes the token there.
func codexFallbackDenied(low string, i int, k string) bool {
	if k != "falling back from websockets to https" {
		return false
	}
	rest := lineFrom(low, i+len(k))
	for _, w := range codexFallbackDenials {
		if strings.Contains(rest, w) {
			return true
		}
	}
	return false
}

var codexFallbackDenials = []string{"403 forbidden", "not authorized in this region", "territory not supported",
	"unsupported_country_region_territory", "hit your usage limit", "usage limit reached", "quota exceeded",
	"insufficient_quota", "out of credits", "spend cap"}

var openaiOverloadWords = []string{"engine is currently overloaded", "server is overloaded", "servers are currently overloaded", "server_is_overloaded"}

// wrapperRetryAttempt is the offset of a wrapper's "retry attempt N" (or
// "retry attempt: N") on a line that says the call failed or was
// rate-limited, the last one in low; -1 when there is none.
func wrapperRetryAttempt(low string) int {
	i := strings.LastIndex(low, "retry attempt")
	if i < 0 {
		return -1
	}
	rest := strings.TrimLeft(low[i+len("retry attempt"):], ": ")
	if rest == "" || !isDigit(rest[0]) {
		return -1
	}
	line := low[strings.LastIndexByte(low[:i], '\n')+1 : i]
	if !strings.Contains(line, "fail") && !strings.Contains(line, "rate limit") {
		return -1
	}
	return i
}

// retryAttemptWait reads a retry hook's "Retry attempt N" with the wait
// it is about to sleep, the last one in low: Continue's defaultOnRetry,
// "Retry attempt 1 after 1000ms delay. Error: …" (continuedev/continue
// core/llm/utils/retry.ts), and reqwest-retry's "Retry attempt #0.
// Sleeping 1.04s before the next attempt" (TrueLayer/reqwest-middleware
// reqwest-retry/src/middleware.rs). The attempt is still to come: its
// offset and the wait, or -1. "Retry attempt 3 failed after 30s" is not
// one (the wait must follow the number).
func retryAttemptWait(low string) (int, time.Duration) {
	i := strings.LastIndex(low, "retry attempt ")
	if i < 0 {
		return -1, 0
	}
	rest := strings.TrimPrefix(low[i+len("retry attempt "):], "#")
	n, k := leadingInt(rest)
	if k == 0 || n > 100 {
		return -1, 0
	}
	rest = rest[k:]
	var marker, tail string
	switch {
	case strings.HasPrefix(rest, " due to ") && strings.HasSuffix(low[max(0, i-8):i], "content "):
		// Gemini CLI's "Content retry attempt 1 due to NO_RESPONSE_TEXT."
		// (packages/core/src/telemetry/types.ts ContentRetryEvent, logged
		// before the wait of geminiChat.ts's mid-stream retry).
		return i, 0
	case strings.HasPrefix(rest, " after "):
		marker, tail = " after ", " delay"
	case strings.HasPrefix(rest, ". sleeping "):
		marker, tail = ". sleeping ", " before the next attempt"
	default:
		return -1, 0
	}
	d, m, ok := parseHumanDuration(rest[len(marker):])
	if !ok || d <= 0 || d > maxHint || !strings.HasPrefix(rest[len(marker)+m:], tail) {
		return -1, 0
	}
	return i, d
}

// delayingBeforeRetry ends the Strands Agents SDK's throttling log before
// it sleeps (strands-agents/sdk-python src/strands/event_loop/event_loop.py:
// "retry_delay_seconds=<4>, max_attempts=<6>, current_attempt=<1> |
// throttling exception encountered | delaying before next retry", logged
// only when attempts are left; its ModelRetryStrategy writes "| <Exception>
// encountered | delaying before next retry").
const delayingBeforeRetry = "| delaying before next retry"

// strandsRetryDelay: the last such line in low, its offset and the delay in
// its retry_delay_seconds=<n> field (0 when absent), or -1.
func strandsRetryDelay(low string) (int, time.Duration) {
	k := strings.LastIndex(low, delayingBeforeRetry)
	if k < 0 {
		return -1, 0
	}
	ls := strings.LastIndexByte(low[:k], '\n') + 1
	line := low[ls:k]
	j := strings.Index(line, "retry_delay_seconds=<")
	if j < 0 {
		return -1, 0
	}
	d, _ := secondsField(line[j:], "retry_delay_seconds=<")
	return ls, d
}

// tenacityBeforeLog ends tenacity's before_log line, "Starting call to
// '<fn>', this is the 2nd time calling it." (jd/tenacity tenacity/before.py),
// logged as each attempt starts.
const tenacityBeforeLog = " time calling it"

// tenacityNthCall: the last before_log line in low names the second call or
// a later one, an attempt after a failure, under way; its offset, or -1.
// The first call is no retry; after_log's "this was the 2nd time calling
// it" is an attempt that ended.
func tenacityNthCall(low string) int {
	i := strings.LastIndex(low, tenacityBeforeLog)
	if i < 0 {
		return -1
	}
	head := low[strings.LastIndexByte(low[:i], '\n')+1 : i]
	k := strings.LastIndex(head, ", this is the ")
	if k < 0 || !strings.Contains(head[:k], "starting call to ") {
		return -1
	}
	ord := head[k+len(", this is the "):]
	n, j := leadingInt(ord)
	if j == 0 || n < 2 {
		return -1
	}
	switch ord[j:] {
	case "st", "nd", "rd", "th":
		return strings.LastIndexByte(low[:i], '\n') + 1
	}
	return -1
}

// sleepBeforeRetry: a wrapper's own line that it sleeps and tries again,
// with no delay in it: the tenacity before_sleep hooks of
// Azure-Samples/azure-search-openai-demo (prepdocslib/embeddings.py:
// "Rate limited on the OpenAI embeddings API, sleeping before
// retrying...", "Rate limited on the Vision embeddings API, …"). The
// request is being retried (wrapper.retry_wait.v1, no hint); catalogue
// wrappers azure-search-demo-vision-sleeping-before-retrying.
const sleepBeforeRetry = "sleeping before retr"

// wrapperWait reads a wrapper's "Waiting for 20 seconds before retrying",
// "Waiting 20s before retrying" or "Rate limit exceeded. Waiting for 10
// seconds.", the last one in low: its offset and the wait, or -1 when there
// is none. Hermes Agent's own waits count too: "⏱️ Provider overloaded.
// Waiting 60.7s (attempt 6/8) …" (its backoff before the next attempt) and
// "🔁 Transient APIConnectionError on <provider> — rebuilt client, waiting
// 6s before one last primary attempt." (NousResearch/hermes-agent
// try_recover_primary_transport, agent/agent_runtime_helpers.py; earlier
// run_agent.py AIAgent._try_recover_primary_transport: the line, then
// time.sleep(wait_time) and the attempt).
func wrapperWait(low string) (int, time.Duration) {
	i := strings.LastIndex(low, "waiting ")
	if i < 0 {
		return -1, 0
	}
	rest := strings.TrimPrefix(low[i+len("waiting "):], "for ")
	d, n, ok := parseHumanDuration(rest)
	if !ok || d <= 0 || d > maxHint {
		return -1, 0
	}
	line := low[strings.LastIndexByte(low[:i], '\n')+1 : i]
	after := rest[n:]
	if strings.HasSuffix(line, "timed out ") { // "Timed out waiting 60s (attempt 1)": no wait
		return -1, 0
	}
	if !strings.HasPrefix(after, " before retr") && !strings.HasPrefix(after, " (attempt ") &&
		!strings.HasPrefix(after, " before one last primary attempt") && !strings.Contains(line, "rate limit") {
		return -1, 0
	}
	return i, d
}

// codexRetriedStreamError: the status line at i ("Reconnecting... 1/5")
// has attempts left and the line under it is the stream error being
// retried, pasted without the "└ " that marks it as the status's details
// (detailsEnd): codex-rs retries a stream error until the last attempt and
// only then ends the turn with it, so under n/m with n < m a plain "stream
// disconnected before completion: …" or "stream error: …" is still the
// retry's. A line after it that says final, an exit or a later JSON-RPC
// error still end the retries; so does a stream error whose own words are a
// final one (usage limit, credits, a refresh token).
func codexRetriedStreamError(s *scan, i int, n, m string) bool {
	if s.ev.ExitStatus != "" || s.ev.HasRPCError && i >= s.rpcEnd {
		return false
	}
	k := 0
	for k < len(m) && isDigit(m[k]) {
		k++
	}
	nv, err1 := strconv.Atoi(n)
	mv, err2 := strconv.Atoi(m[:k])
	if err1 != nil || err2 != nil || nv >= mv {
		return false
	}
	nl := payloadEnd(s.low, i)
	if nl < 0 {
		return false
	}
	next := s.low[nl+1:]
	t := strings.TrimLeft(next, " \t")
	if !strings.HasPrefix(t, "stream disconnected before completion") && !strings.HasPrefix(t, "stream error") {
		return false
	}
	line, after, _ := strings.Cut(t, "\n")
	for _, w := range finalWords {
		if w != "stream disconnected" && strings.Contains(line, w) {
			return false
		}
	}
	for _, w := range []string{"context window", "unauthorized", "forbidden"} {
		if strings.Contains(line, w) {
			return false
		}
	}
	return !saysFinal(after)
}

// baseURLUnsetWords: a client with no base URL configured.
var baseURLUnsetWords = []string{"base url is not set", "base_url is not set"}

// unsupportedWithModel reads OpenAI's parameter validation message: after
// "unsupported parameter: " or "unsupported value: ", the model it is
// refused with ("with this model", or "is not supported with the '<model>'
// model" on the same line). It returns the offset, or -1.
func unsupportedWithModel(s *scan) int {
	for _, k := range []string{"unsupported parameter: ", "unsupported value: "} {
		i := strings.Index(s.low, k)
		if i < 0 {
			continue
		}
		rest := s.low[i+len(k):]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		if strings.Contains(rest, "with this model") {
			return i
		}
		if j := strings.Index(rest, "is not supported with the '"); j >= 0 {
			m := rest[j+len("is not supported with the '"):]
			if e := strings.Index(m, "' model"); e > 0 && e <= 64 && !strings.ContainsAny(m[:e], " '") {
				return i
			}
		}
	}
	return -1
}

var monthAbbrevs = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// tryAgainAtDate finds "try again at <month> <day>[st|nd|rd|th][,] <year>":
// a month name, a day of one or two digits and a four-digit year from 2000.
// It returns the offset of "try again at", or -1.
func tryAgainAtDate(s *scan) int {
	for i := range occurrences(s.low, "try again at ", 0) {
		rest := s.low[i+len("try again at "):]
		month := -1
		for _, m := range monthAbbrevs {
			if strings.HasPrefix(rest, m) {
				month = len(m)
				break
			}
		}
		if month < 0 {
			continue
		}
		k := month
		for k < len(rest) && rest[k] >= 'a' && rest[k] <= 'z' && k < 9 { // "sep", "sept", "september"
			k++
		}
		if k >= len(rest) || rest[k] != ' ' {
			continue
		}
		k++
		d := k
		for k < len(rest) && k-d < 2 && rest[k] >= '0' && rest[k] <= '9' {
			k++
		}
		if k == d {
			continue
		}
		for _, suf := range []string{"st", "nd", "rd", "th"} {
			if strings.HasPrefix(rest[k:], suf) {
				k += len(suf)
				break
			}
		}
		if strings.HasPrefix(rest[k:], ",") {
			k++
		}
		if !strings.HasPrefix(rest[k:], " 20") || len(rest) < k+5 {
			continue
		}
		if y := rest[k+3 : k+5]; y[0] >= '0' && y[0] <= '9' && y[1] >= '0' && y[1] <= '9' &&
			(len(rest) == k+5 || rest[k+5] < '0' || rest[k+5] > '9') {
			return i
		}
	}
	return -1
}
