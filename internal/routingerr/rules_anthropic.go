package routingerr

import (
	"strings"
	"time"
)

// Anthropic API bodies and headers, and every wording generation of Claude
// Code and its ACP adapter.
const noResponseRetrying = " · retrying, waiting up to "

// streamingFallbackWords: Claude Code's log lines for a streamed request it
// retries without streaming (see claude_code.streaming_fallback.v1).
var streamingFallbackWords = []string{"error streaming, falling back to non-streaming mode",
	"streaming endpoint returned 404, falling back to non-streaming mode"}

var anthropicRules = []rule{
	// The Messages API's 400 for a max_tokens over the model's output limit:
	// "max_tokens: 64000 > 32000, which is the maximum allowed number of
	// output tokens for claude-opus-4-20250514", which clients print without
	// the body around it. The same request fails until max_tokens is lowered.
	{id: "anthropic.max_tokens_over_model.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"which is the maximum allowed number of output tokens"}},
	// "API Error: Operation aborted": Claude Code aborted the request. Without
	// our cancel flag we cannot tell who did, so it is not trusted to retry.
	{id: "claude_code.aborted.v1", band: bandCancel, code: "cancelled", class: ClassUnclassified, conf: 0.5,
		any: []string{"operation aborted", "request was aborted", "operation was aborted", "operation was cancelled",
			"messageabortederror", "aborterror",
			// The Agent SDK's own abort (sdk.mjs: "Claude Code process aborted
			// by user", "Connection aborted by user"); catalogue
			// claude-agent-sdk-aborted-0.3.334.
			"aborted by user",
			// Claude Code's own interrupt markers (cli.js 2.1.0: the
			// transcript's "[Request interrupted by user]" and "[Request
			// interrupted by user for tool use]", the TUI's "Interrupted ·
			// What should Claude do instead?"): a cancel in its words,
			// though users report them with no key pressed; catalogue
			// claude-code-request-interrupted-*, claude-code-interrupted-*.
			"[request interrupted by user", "what should claude do instead?"},
		// undici's proxy refusal is a RequestAbortedError too
		// ("Proxy response (407) !== 200 when HTTP Tunneling"): the
		// proxy answered, nobody cancelled (proxy.tunnel_refused.v1).
		none: []string{"due to timeout", "proxy response ("}},

	// "API Error (529 …) · Retrying in 4 seconds… (attempt 4/10)": Claude
	// Code is still retrying on its own. Once the process has exited, or a
	// later error line follows, the retries are over and the error inside
	// is what counts.
	{id: "claude_code.retrying.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.9,
		gate:  []string{"retrying in "},
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := strings.LastIndex(s.low, "retrying in ")
			if i < 0 || s.retriesOver(i) {
				return -1
			}
			if _, _, ok := parseHumanDuration(s.low[i+len("retrying in "):]); !ok && !attemptOnLine(s.low, i) {
				return -1
			}
			return i
		},
		hint: func(s *scan, c Classification) Classification {
			i := strings.LastIndex(s.low, "retrying in ")
			if d, _, ok := parseHumanDuration(s.low[i+len("retrying in "):]); ok && d <= maxHint {
				c.RetryAfter = new(d)
			}
			return c
		}},

	// Claude Code 2.1.332's retry status line when the API sent nothing at
	// all: "No response from the API after 5m · retrying, waiting up to
	// 10m" (the api_error status, no_response branch). The turn goes on
	// unless a later error says the retries are over. (Catalogue
	// claude-code-no-response-retrying-2.1.332.)
	{id: "claude_code.no_response_retrying.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  []string{noResponseRetrying},
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := strings.LastIndex(s.low, noResponseRetrying)
			if i < 0 || s.retriesOver(i) {
				return -1
			}
			return i
		}},

	// Claude Code's debug log when a streamed request fails and it sends the
	// same request again without streaming (2.1.100 cli.js: N(`Error
	// streaming, falling back to non-streaming mode: ${msg}`, {level:
	// "error"}), and "Streaming endpoint returned 404, falling back to
	// non-streaming mode" at warn): the turn goes on. Not when the error it
	// names is a 4xx status ("…: 403 The security token included in the
	// request is invalid"): the same request without streaming meets the
	// same refusal, so that error decides. Once the process has exited or a
	// later error line follows, that error decides too. (Catalogue
	// claude-code-streaming-fallback-2.1.100,
	// claude-code-streaming-404-fallback-2.1.100.)
	{id: "claude_code.streaming_fallback.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.8,
		gate:  streamingFallbackWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := lastOf(s.low, streamingFallbackWords)
			if i < 0 || s.retriesOver(i) {
				return -1
			}
			if rest := strings.TrimPrefix(s.low[i:], streamingFallbackWords[0]+": "); len(rest) < len(s.low[i:]) &&
				len(rest) >= 4 && rest[0] == '4' && isDigit(rest[1]) && isDigit(rest[2]) && rest[3] == ' ' {
				return -1
			}
			return i
		}},

	// claude --print --output-format stream-json reports each retry of its
	// own as {"type":"system","subtype":"api_retry","attempt":3,
	// "max_retries":10,"retry_delay_ms":4123,"error_status":529,…}
	// (2.1.112 cli.js): the same retry as the TUI's "Retrying in …" line,
	// with the delay in milliseconds. The error_status in it is the retried
	// one, not the turn's end; a later error line (the result) is.
	{id: "claude_code.api_retry_event.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.9,
		gate:  apiRetryWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := lastOf(s.low, apiRetryWords)
			if i < 0 {
				return -1
			}
			// From the object's opening brace, so a pretty-printed event's
			// own fields ("error": "unknown") are not a later error.
			if o := strings.LastIndexByte(s.low[:i], '{'); o >= 0 {
				i = o
			}
			if s.retriesOver(i) {
				return -1
			}
			return i
		},
		hint: func(s *scan, c Classification) Classification {
			i := lastOf(s.low, apiRetryWords)
			if d, ok := jsonMillis(s.low[max(i, 0):], `"retry_delay_ms":`); ok && d <= maxHint {
				c.RetryAfter = new(d)
			}
			return c
		}},

	// Claude Code's session transcript (~/.claude/projects/<dir>/<session>.jsonl)
	// records each failed request it is about to retry as a system entry,
	// {"type":"system","subtype":"api_error","level":"error","cause":{…},
	// "error":{…},"retryInMs":503.1,"retryAttempt":1,"maxRetries":10,…}:
	// the same retry as the TUI's "Retrying in …" line and the stream's
	// api_retry event, with the wait in milliseconds. An api_error entry
	// without retryInMs says nothing of a retry.
	{id: "claude_code.transcript_api_error_retry.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  apiErrorEntryWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := lastOf(s.low, apiErrorEntryWords)
			if i < 0 {
				return -1
			}
			if o := strings.LastIndexByte(s.low[:i], '{'); o >= 0 {
				i = o
			}
			if !strings.Contains(s.low[i:min(len(s.low), i+2048)], `"retryinms":`) || s.retriesOver(i) {
				return -1
			}
			return i
		},
		hint: func(s *scan, c Classification) Classification {
			i := lastOf(s.low, apiErrorEntryWords)
			w := s.low[max(i, 0):min(len(s.low), max(i, 0)+2048)]
			if j := strings.Index(w, `"retryinms":`); j >= 0 {
				if d, ok := jsonMillis(w[j:], `"retryinms":`); ok && d <= maxHint {
					c.RetryAfter = new(d)
				}
			}
			return c
		}},

	// Claude Code 2.1.112's fast-mode cooldown notices ("Fast mode
	// overloaded and is temporarily unavailable · resets in 4m", "Fast limit
	// reached and temporarily disabled · resets in 12m", then "Fast limit
	// reset · now using fast mode"): fast mode is switched off and the
	// session goes on at normal speed, so the "resets in" is no wait for
	// the turn. A later error line is the turn's end and decides.
	{id: "claude_code.fast_mode_cooldown.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  fastModeWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := lastOf(s.low, fastModeWords)
			if i < 0 || s.retriesOver(i) {
				return -1
			}
			return i
		},
		hint: func(_ *scan, c Classification) Classification { return c }},

	// The CLI's usage notices that are no failure, as the Agent SDK 0.3.334
	// lists them: USAGE_TRANSITION_PREFIXES ("You're now using usage
	// credits", "Now using your usage allocation", "Now using credits", …)
	// and USAGE_WARNING_PREFIXES (2.1.112's "You've used 90% of your weekly
	// limit · resets …", "You're close to your extra usage spending
	// limit"): the session goes on. A later error line decides.
	{id: "claude_code.usage_notice.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.8,
		gate:  usageNoticeWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := lastOf(s.low, usageNoticeWords)
			if i < 0 || s.retriesOver(i) {
				return -1
			}
			if strings.HasPrefix(s.low[i:], "you've used ") && !strings.Contains(s.low[i:min(len(s.low), i+40)], "% of your ") {
				return -1
			}
			return i
		},
		hint: func(_ *scan, c Classification) Classification { return c }},

	// Unified (subscription) limits: the 429 carries the window's reset.
	// Besides the overall anthropic-ratelimit-unified-status, each window
	// has its own anthropic-ratelimit-unified-{5h,7d}-status, "rejected" on
	// the window that ran out; a capture may carry only that one (gajae-code
	// PR #2464's finding 1), and clients log the headers as "name=value"
	// (gajae-code's 429 evidence, sub2api's collectRateLimitHeaders).
	// Catalogue anthropic-api anthropic-api-unified-rejected,
	// anthropic-api-unified-5h-window-rejected, anthropic-api-unified-7d-window-rejected-kv.
	{id: "anthropic.unified_rejected.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.95,
		any: []string{"unified-status: rejected", `unified-status":"rejected"`, `unified-status": "rejected"`, "unified-status=rejected",
			"unified-5h-status: rejected", "unified-7d-status: rejected", "unified-5h-status=rejected", "unified-7d-status=rejected",
			`unified-5h-status":"rejected"`, `unified-7d-status":"rejected"`}},
	// Legacy Claude Code: "Claude AI usage limit reached|1751385600".
	{id: "claude_code.usage_limit_epoch.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.95,
		gate: []string{"limit reached|"},
		match: func(s *scan) int {
			i := strings.Index(s.low, "limit reached|")
			if i >= 0 && i+len("limit reached|") < len(s.low) && isDigit(s.low[i+len("limit reached|")]) {
				return i
			}
			return -1
		}},
	// Spend caps: "You will regain access on 2026-09-01 at 00:00 UTC."
	{id: "anthropic.spend_limit.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.9,
		any: []string{"regain access on", "enforced_spend_limit_reached", "api usage limits", "spending cap reached",
			// Claude Code 2.0.50's team/enterprise overage rejected: "Limit
			// reached – contact an admin to keep working".
			"limit reached – contact an admin"}},
	// "5-hour limit reached", "Opus limit reached ∙ contact an admin to
	// keep working": Claude Code names the window alone when it has no reset
	// to show (`5-hour limit ${reset ? `resets ${reset}` : "reached"}`;
	// weekly ones are quota.daily.v1's). "5-hour limit reached, now using
	// extra usage" and "Claude Opus limit reached, now using Sonnet" are
	// notices: the turn goes on.
	// 2.0.50 names the window the same way ("Session limit reached",
	// "Session limit reached ∙ contact an admin to keep working"), and
	// 2.1.112's retry status line heads its unified-limit wait with the
	// window's name ("Sonnet limit reached", "Extra usage limit reached").
	{id: "claude_code.window_limit.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate: windowLimitWords,
		match: func(s *scan) int {
			for _, k := range windowLimitWords {
				if i := limitReachedNotice(s.low, k); i >= 0 {
					return i
				}
			}
			return -1
		}},
	// claude --print on a trial past its day's allowance:
	// {"data":{…},"error_type":"grace_daily_limit_reached"}.
	{id: "claude_code.daily_limit_reached.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		any: []string{"daily_limit_reached"}},

	// Claude Code's stop when a paid feature's free allowance is spent and
	// only Extra Usage pays for more: "Free ultrareviews used. Enable Extra
	// Usage to continue." (2.1.126 /ultrareview). The turn ends until the
	// account turns Extra Usage on.
	{id: "claude_code.enable_extra_usage.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"enable extra usage to continue", "turn on extra usage to continue"}},

	{id: "claude_code.tool_concurrency.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.9,
		any: []string{"tool use concurrency", "run /rewind"}},
	{id: "anthropic.tool_result_mismatch.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.9,
		any: []string{"ids were found without `tool_result`", "ids were found without tool_result",
			// The same check with the names in single quotes, as Bedrock's
			// Anthropic models and clients that reword the backticks print it
			// ("'tool_use' ids were found without 'tool_result' blocks",
			// Claude Code's CHANGELOG 2.0.0; catalogue anthropic-api
			// anthropic-tool-use-without-result-single-quoted).
			"ids were found without 'tool_result'",
			"unexpected `tool_use_id`", "unexpected tool_use_id",
			// "`tool_use` ids must be unique", which Claude Code 2.1.112 shows
			// as "API Error: 400 duplicate tool_use ID in conversation
			// history." (catalogue claude-code-dup-tool-use-np-2.1.112).
			"tool_use` ids must be unique", "duplicate tool_use id",
			// "unexpected `tool_use_id` found in `tool_result`", as Claude Code
			// 2.1.332 words it without the /rewind hint (print mode): "API
			// Error: 400 orphaned tool_result in conversation history."
			// (catalogue claude-code-orphaned-tool-result-print-2.1.332).
			"orphaned tool_result in conversation history",
			// The other side of the same check, as Bedrock relays it:
			// "messages.2: Did not find 1 `tool_result` block(s) at the
			// beginning of this message. Messages following `tool_use`
			// blocks must begin with a matching number of `tool_result`
			// blocks." (catalogue bedrock-tool-result-not-found).
			"`tool_result` block(s) at the beginning of this message", "messages following `tool_use` blocks must begin",
			// Bedrock Converse's own pairing check, in its toolUse/toolResult
			// words (docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html:
			// the toolResult for each toolUse goes in the next user message):
			// "Expected toolResult blocks at messages.2.content for the
			// following Ids: tooluse_…" and its mirror "The number of
			// toolResult blocks at messages.2.content exceeds the number of
			// toolUse blocks of previous turn." (sergeevgit1/suna
			// BEDROCK_TOOL_CALLING_ISSUE.md; catalogue bedrock
			// bedrock-converse-expected-toolresult, -toolresult-exceeds-tooluse).
			"expected toolresult blocks at messages", "exceeds the number of tooluse blocks"}},
	// A thinking block in the history that the Messages API will not take
	// back: "messages.1.content.0.thinking.signature: Field required" and
	// "messages.1.content.0: Invalid `signature` in `thinking` block", seen
	// when a relay or a model switch rewrote the turns (catalogue
	// anthropic-thinking-signature-required, -invalid). The history itself is
	// broken, so a replay fails the same way whatever status or error type
	// a relay wraps it in (Antigravity's 429 "overloaded_error" around it).
	{id: "anthropic.thinking_signature.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.85,
		any: []string{".thinking.signature:", "invalid `signature` in `thinking` block", "invalid signature in thinking block"}},
	// The other check of a replayed thinking turn: "messages.25.content.3:
	// `thinking` or `redacted_thinking` blocks in the latest assistant
	// message cannot be modified." — an interrupted turn or a compaction
	// gave the latest assistant turn back changed (catalogue anthropic-api
	// anthropic-thinking-blocks-cannot-be-modified). Replaying the same
	// history fails the same way; it is read however a log wrapped its lines
	// or dropped the backticks ("thinking or redacted_thinking blocks").
	{id: "anthropic.thinking_blocks_modified.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.85,
		any: []string{"blocks in the latest assistant message cannot be modified"}},
	{id: "anthropic.prompt_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.95,
		any: []string{"prompt is too long", "input is too long for requested model",
			// Claude Code 2.1.112 on stop_reason model_context_window_exceeded:
			// "API Error: The model has reached its context window limit."
			"reached its context window limit",
			// Claude.ai's length limit ("Your message will exceed the length
			// limit for this chat. Try attaching fewer or smaller files or
			// starting a new conversation."): the chat reached the context
			// window, so the same message is refused again
			// (support.claude.com/en/articles/12466728).
			"exceed the length limit for this chat", "exceeds the length limit for this chat"}},
	// The API's "image dimensions exceed max allowed size for many-image
	// requests", as Claude Code 2.1.112 words it: "An image in the
	// conversation exceeds the dimension limit for many-image requests
	// (2000px). …": the history carries the image, so the same request
	// fails again until it is compacted away.
	{id: "anthropic.image_dimensions.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"exceeds the dimension limit", "image dimensions exceed", "for many-image requests"}},
	// Claude Code's own check before it sends (2.1.112 cli.js ImageSizeError):
	// "Image base64 size (6.2MB) exceeds API limit (5MB). Please resize the
	// image before sending.", "2 images exceed the API limit (5MB): … Please
	// resize these images before sending.": the image is in the history, so
	// the same request fails again.
	{id: "claude_code.image_size.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"please resize the image before sending", "please resize these images before sending", "images exceed the api limit"}},
	// "Request too large (max 30 MB)"; OpenAI's per-minute wording is a
	// different failure (rules_openai.go).
	{id: "anthropic.request_too_large.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.9,
		any:  []string{`"request_too_large"`, "request too large", "request exceeds the maximum allowed number of bytes"},
		none: []string{"per min", "(tpm)", "(rpm)"}},
	// A request parameter the model does not take, in the Messages API's
	// words: "thinking.type.enabled is not supported for this model" (Claude
	// Code's error reference, code.claude.com/docs/en/errors, lists it under
	// request errors: the setting, not the service, is wrong). The subject is
	// a parameter path (a dot or an underscore in it, no hyphen), not a model
	// name: "model X is not supported" is the model family's. The same body
	// fails the same way. (Catalogue anthropic-api
	// anthropic-thinking-type-enabled-not-supported.)
	{id: "anthropic.param_not_supported_for_model.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		gate: []string{" is not supported for this model"}, match: paramNotSupportedForModel,
		check: "the word before it is a parameter path (a.b or a_b), not a model name"},
	// @anthropic-ai/sdk refuses a non-streaming request whose max_tokens
	// could run past its 10-minute limit, before sending it (1.16.0
	// client.js: "Streaming is required for operations that may take longer
	// than 10 minutes. See … for more details"): the request as built.
	// anthropic-sdk-python 0.46.0–0.59.0 raised the same refusal as a
	// ValueError worded "Streaming is strongly recommended for operations
	// that may take longer than 10 minutes" (_base_client.py
	// _calculate_nonstreaming_timeout, b363339f to 37147da4; "required"
	// from 04a0508d). (Catalogue anthropic-sdk-py-streaming-recommended-0.59.0.)
	{id: "anthropic.streaming_required.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"streaming is required for operations that may take longer than",
			"streaming is strongly recommended for operations that may take longer than"}},
	// Claude Code 2.1.332 took media the API would not read out of the
	// conversation and ended the turn (media_removed: "API Error: an image
	// in the conversation could not be processed and was removed. …", "API
	// Error: this model does not accept PDF documents, so a PDF in the
	// conversation was removed. …"): the request as sent was refused; what
	// comes next is for the user to ask again, not a replay of it.
	// (Catalogue claude-code-media-removed-2.1.332, -pdf-unsupported-model-2.1.332.)
	{id: "claude_code.media_removed.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"in the conversation could not be processed and was removed", "model does not accept pdf documents"}},
	// A message longer than the context window, which Claude Code 2.1.332
	// does not send (message_over_context_limit: "This message is too long
	// to send, so Claude didn't get it. Send a shorter one."). (Catalogue
	// claude-code-message-over-context-2.1.332.)
	{id: "claude_code.message_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		any: []string{"this message is too long to send"}},
	{id: "claude_code.pdf_invalid.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"pdf file was not valid", "pdf specified was not valid", "could not process pdf"}},
	// Claude Code's refusal in the native builds, which no longer say "Usage
	// Policy" in the sentence (2.1.332, the refusal branch of the API-error
	// message): "API Error: <model> can't help with this. Start a new
	// session to continue.\n\nLearn more: https://www.anthropic.com/legal/aup"
	// and, for the cyber category, "API Error: <model>'s safeguards flagged
	// this message. Our intentionally broad safeguards … Learn more: …".
	// The conversation is refused again however often it is replayed; the
	// text itself says a new session is the way on.
	{id: "claude_code.refusal.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"can't help with this. start a new session", "can’t help with this. start a new session",
			"safeguards flagged this message"}},

	// The current CLI's usage messages that no wait fixes, as the Agent SDK
	// lists them (claude-agent-sdk 0.3.334 USAGE_LIMIT_ERROR_PREFIXES: "Your
	// org is out of usage · contact your admin", "Your seat type doesn't
	// include usage credits", "Your usage allocation has been disabled by
	// your admin", "Your group's usage limit is set to $0", "Fable 5
	// requires usage credits", "Your seat type doesn't include extra
	// usage"): an admin or the billing has to change. The windows among
	// those prefixes ("You've hit your …") are the reset rules'.
	{id: "claude_code.usage_access.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"org is out of usage", "seat type doesn't include", "seat type doesn’t include",
			"usage allocation has been disabled", "usage limit is set to $0", "requires usage credits",
			// 2.1.332's API-error message for a 1M-context request without
			// credits ("API Error: Usage credits required for 1M context · run
			// /usage-credits to turn them on …"), for credits spent mid-reply
			// ("API Error: Usage credits ran out before the response was
			// finished.") and for an organization paused at its daily cap
			// ("Usage is paused for your organization. For help, please
			// contact support."; catalogue claude-code-long-context-credits-2.1.332,
			// -credits-ran-out-midstream-2.1.332, -usage-paused-2.1.332).
			"usage credits required for", "usage credits ran out before", "usage is paused for your organization",
			// The usage-credits consent for a model the plan does not cover
			// (2.1.335, usage_credits_model_consent and the /model dialog:
			// "<model> runs on usage credits, purchased separately from your
			// plan.", "<model> now runs on usage credits. Switch models?",
			// "… runs on usage credits. You have $0.00 in credits.", "Usage
			// credits are turned off. Re-enable to use <model>.", "You don't
			// have usage credits yet."; the 2.1.21x dialog put "— you have
			// $0.00." after the dash). The request waits on a purchase or a
			// switch; no replay or wait sends it. (Catalogue
			// claude-code-model-runs-on-credits-2.1.335, -credits-turned-off-2.1.335,
			// -no-credits-yet-2.1.335.)
			"runs on usage credits", "usage credits are turned off", "don't have usage credits yet", "don’t have usage credits yet"}},
	// The API's refusal of a Claude Code build below a minimum version: the
	// selected model's ("Claude Code 2.1.220 does not support this model;
	// version 2.1.251 or newer is required. Run 'claude update', …") or the
	// organization's ("… is older than the minimum version required by your
	// organization's policy", "… or later is required for your
	// organization"), a 400 invalid_request_error whose details carry
	// error_code claude_code_version_too_old. Claude Code 2.1.335 reads it
	// as the api_error kind claude_code_version_too_old, recovery
	// "fix_setup": the agent has to be updated, the same request fails the
	// same way until then. Relays that test accounts with an old client
	// version print the same body. (Catalogue
	// claude-code-version-too-old-model-2.1.335, -org-policy-2.1.335,
	// -org-later-2.1.335, -error-code-2.1.335.)
	{id: "claude_code.version_too_old.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.9,
		any: []string{"does not support this model; version", "claude_code_version_too_old",
			"older than the minimum version required by your organization", "or later is required for your organization"}},
	// Claude Code 2.1.332 when the model it must run on is one the session's
	// settings rule out: the server's fallback routed the reply to a model
	// outside auto mode or the organization's availableModels ("The server
	// routed this response to a model that … the response was discarded."),
	// the env forbids the swap a usage-credits model needs
	// ("CLAUDE_CODE_NO_MODEL_FALLBACK is set: model substitution is disabled ·
	// unset it to allow the swap"), auto mode does not run on the only model
	// left ("Auto mode doesn't run on Sonnet 4.6, and the model policy no
	// longer allows Opus 4.8 · /model to pick another model"), the advisor
	// model does not fit the request model, or an effort level needs
	// thinking back on ("Effort 'max' isn't available with thinking turned
	// off on this model · run /effort high …"). A setting has to change;
	// the same request fails the same way. (Catalogue
	// claude-code-routed-*-2.1.332, -no-model-fallback-2.1.332,
	// -auto-mode-policy-2.1.332, -advisor-incompatible-2.1.332,
	// -effort-thinking-off-2.1.332.)
	{id: "claude_code.model_setting.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"server routed this response to a model that", "claude_code_no_model_fallback is set",
			"auto mode doesn't run on", "auto mode doesn’t run on",
			"configured advisor model is not compatible", "isn't available with thinking turned off", "isn’t available with thinking turned off"}},
	// Claude Code 2.1.332 stopped before sending, by something local that a
	// replay meets again: a mod's fetch hook ("A mod's http.fetch hook
	// stopped this request: …"), a header from the environment it cannot
	// send ("Invalid ANTHROPIC_CUSTOM_HEADERS · Fix the environment
	// variable · …", "Invalid request header from the environment · …"), a
	// full disk under the config directory ("Could not refresh your login:
	// the disk that holds the Claude Code config directory … is full ·
	// …"). (Catalogue claude-code-mod-fetch-hook-2.1.332,
	// -invalid-custom-headers-2.1.332, -refresh-disk-full-2.1.332.)
	{id: "claude_code.local_refusal.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"http.fetch hook stopped this request", "invalid anthropic_custom_headers · ",
			"invalid request header from the environment", "disk that holds the claude code config directory"}},
	// A restarted session that Claude Code 2.1.332 will not go on with by
	// itself (unattended_start_limit: "This session restarted with no new
	// message, and Claude has stopped continuing it automatically. Send a
	// message to continue."; unattended_start_unconfirmed: "Claude couldn't
	// confirm that it could continue this session on its own, so it didn't.
	// …"): not transient by its own flag (apiErrorIsTransient false); a new
	// message, not a replay of the stopped one, is what it waits for.
	// (Catalogue claude-code-unattended-limit-2.1.332, -unconfirmed-2.1.332.)
	{id: "claude_code.unattended_stop.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"stopped continuing it automatically", "couldn't confirm that it could continue this session",
			"couldn’t confirm that it could continue this session"}},
	// Claude Code 2.1.332's stored-login failures that a sign-in or the
	// credential's owner has to fix: "Your apiKeyHelper script is failing ·
	// …", "Invalid auth token · Fix external auth token · …", "Could not
	// refresh your login: can't save to the Keychain · …" (and print mode's
	// "Failed to refresh OAuth token: can't save to the Keychain. …"),
	// "Anthropic profile login expired · Re-authenticate your Anthropic
	// profile". (Catalogue claude-code-apikeyhelper-failing-2.1.332,
	// -invalid-auth-token-2.1.332, -refresh-keychain-2.1.332,
	// -profile-expired-2.1.332.)
	{id: "claude_code.credential_unusable.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"apikeyhelper script is failing", "invalid auth token · ", "can't save to the keychain", "can’t save to the keychain",
			"profile login expired"}},
	// ORG_POLICY_LIMIT_PREFIXES (claude-agent-sdk 0.3.334): "This service is
	// disabled for your org": an admin's policy.
	{id: "claude_code.org_policy.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"this service is disabled for your org"}},
	// The API's 403 for a revoked OAuth token, as any client prints it
	// ("Access forbidden (403): OAuth token has been revoked. …"): Claude
	// Code 2.1.112 maps a 403 whose body says so to authentication_failed.
	{id: "anthropic.oauth_revoked.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"oauth token has been revoked"}},
	{id: "anthropic.credit_balance.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.95,
		any: []string{"credit balance is too low", "credit balance too low"}},
	{id: "claude_code.not_logged_in.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"not logged in", "run /login", "oauth token revoked", "oauth token has expired", "invalid api key · ",
			// Native builds in print mode when the refresh token is spent too:
			// "Error: Failed to authenticate: OAuth session expired and could
			// not be refreshed" (issue 281 of opencode-claude-auth, 2.1.263).
			"oauth session expired and could not be refreshed"}},
	// The /login pane after the token endpoint refused the code exchange:
	// Claude Code 2.1.112 posts the code to TOKEN_URL with axios (timeout
	// 15000) and prints "OAuth error: " + the error's message, axios's
	// "Request failed with status code 400". A 4xx there (an expired or
	// mistyped code, a verifier that no longer matches) fails the same way
	// on a replay: the login has to start over. A 5xx, a 408, a 429 or
	// axios's timeout are left to the status and transport rules.
	// The /login pane when the pasted authorization code is not
	// "<code>#<state>": 2.0.29 cli.js sets the error state "Invalid code.
	// Please make sure the full code was copied" (rendered "OAuth error: "
	// + message) before anything is sent; the login has to be redone with
	// the whole code (catalogue claude-code-login-oauth-invalid-code).
	{id: "claude_code.oauth_code_invalid.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"invalid code. please make sure the full code was copied"}},
	{id: "claude_code.oauth_exchange_refused.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		gate:  []string{oauthExchangeFailed},
		check: "the status after it is a 4xx other than 408 and 429",
		match: func(s *scan) int {
			i := strings.Index(s.low, oauthExchangeFailed)
			if i < 0 {
				return -1
			}
			if st, ok := statusAt(s.low, i+len(oauthExchangeFailed)); ok && st < 500 && st != 408 && st != 429 {
				return i
			}
			return -1
		}},
	// A Claude subscription's OAuth token sent by a client the API does not
	// take for Claude Code ("This credential is only authorized for use with
	// Claude Code and cannot be used for other API requests."): a 400 by
	// type, but the credential, not the request, is what must change.
	{id: "anthropic.claude_code_only_credential.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"only authorized for use with claude code"}},
	// Claude Code 2.1.112 after a revoked token or an organization without
	// OAuth access: "Your account does not have access to Claude. Please
	// login again or contact your administrator." (and "… to Claude Code.
	// Please run /login.").
	{id: "claude_code.no_claude_access.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"does not have access to claude", "please login again or contact your administrator"}},
	// Claude Code's 401/403 in a remote session: "Authentication error ·
	// This may be a temporary network issue, please try again" (and the
	// status line's "Authentication error · Try again"). The status is an
	// auth failure; replaying it only repeats the banner, so the
	// credential is what is asked to change.
	{id: "claude_code.auth_error_notice.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.75,
		any: []string{"authentication error · "}},
	// A feature the plan does not include (Claude Code 2.1.112: "Auto mode
	// is unavailable for your plan", a 400 naming the beta header): the
	// setting has to change, not the request's timing.
	{id: "claude_code.plan_feature.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"unavailable for your plan", "not available for your plan", "not available on your plan"}},
	// A model the cloud deployment does not serve (Claude Code 2.1.112, a
	// 404 on Bedrock/Vertex: "The model X is not available on your Bedrock
	// deployment. Try /model to switch to Y, or ask your admin to enable
	// this model.").
	{id: "claude_code.model_deployment.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"ask your admin to enable this model"}},
	// The CLI's result errors for the limits the caller set (2.1.112's
	// result.errors, which claude-agent-acp 0.101.0 forwards:
	// "Reached maximum number of turns (25)", "Reached maximum budget ($5)").
	{id: "claude_code.result_limit.v1", band: bandUser, code: "turn_limit", class: ClassUserAction, conf: 0.85,
		any: []string{"reached maximum number of turns", "reached maximum budget"}},
	{id: "anthropic.disabled_org.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"belongs to a disabled organization", "organization has been disabled"}},
	{id: "anthropic.authentication_error.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.95,
		any: []string{`"authentication_error"`, "invalid x-api-key", "invalid bearer token"}},
	{id: "claude_code.org_disabled_access.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"organization has disabled"}},
	{id: "anthropic.permission_error.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.95,
		// "[permission_error] API access paused for this organization.": the
		// type in brackets, as the OpenCode Zen console relays an upstream
		// error ("Upstream request failed: [<type>] <message>").
		any: []string{`"permission_error"`, "[permission_error]"}},
	// The API's 403 for an OAuth token without the scope the call needs
	// ("OAuth token does not meet scope requirement any_of(user:inference,
	// …)"), which Claude Code's error reference lists by itself ("does not
	// meet scope requirement user:profile", under Authentication: log in
	// again). After permission_error, so the full 403 body keeps that type's
	// reading; the bare message is a login to redo.
	{id: "anthropic.oauth_scope.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"does not meet scope requirement"}},
	{id: "claude_code.model_issue.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.9,
		any: []string{"issue with the selected model"}},
	{id: "anthropic.model_not_found.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.9,
		all: []string{`"not_found_error"`, "model"}},
	// A beta field the endpoint does not know (e.g. a gateway or an old
	// Bedrock/Vertex region): the setup needs changing, not the prompt.
	{id: "anthropic.extra_inputs.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"extra inputs are not permitted"}},
	// The Messages API's body validation for a field of the wrong type,
	// field path first and pydantic's wording after it ("system: Input
	// should be a valid list", "max_tokens: Input should be a valid
	// integer"), under an invalid_request_error or, through Bedrock, a
	// ValidationException; clients that print only the message lose both.
	// The same body is refused again. The path and its colon are required:
	// pydantic's own report of a local settings file ("1 validation error
	// for Settings\n  Input should be a valid string [type=string_type")
	// has none. Catalogue anthropic-api anthropic-body-field-type-*.
	{id: "anthropic.body_field_type.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{": input should be a valid "}},
	// The same body validation for a string field's constraints, field path
	// first and pydantic's wording after it (pydantic-core's
	// string_pattern_mismatch "String should match pattern '<re>'",
	// string_too_long "String should have at most N characters",
	// string_too_short "… at least N characters"; docs.pydantic.dev
	// errors/validation_errors), as the Messages API reports a tool name it
	// will not take: "tools.0.name: String should have at most 64
	// characters". A client that sends the same tools is refused again. The
	// path's colon is required, as above. Catalogue anthropic-api
	// anthropic-body-field-string-*.
	{id: "anthropic.body_field_string.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{": string should match pattern '", ": string should have at most ", ": string should have at least "}},
	// Extended thinking refuses a sampling temperature other than the
	// default: "`temperature` may only be set to 1 when thinking is
	// enabled. Please consult our documentation at …extended-thinking
	// #important-considerations-when-using-extended-thinking" (an
	// invalid_request_error 400, as the Anthropic cookbook's extended
	// thinking notebook prints it under "Handling error cases"; later
	// "… when thinking is enabled or in adaptive mode"). The body has to
	// change. Catalogue anthropic-api anthropic-thinking-temperature-*.
	{id: "anthropic.thinking_temperature.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"may only be set to 1 when thinking is enabled"}},

	// The type as JSON, and as a Lua table where a Neovim client decodes the
	// error event and prints it with vim.inspect (avante.nvim: the Claude
	// provider's on_stop error = vim.json.decode(data_stream), the sidebar's
	// "Error: " .. vim.inspect(error), giving `type = "overloaded_error"`;
	// catalogue anthropic-api anthropic-overloaded-lua-inspect).
	{id: "anthropic.overloaded_error.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.95,
		any: []string{`"type":"overloaded_error"`, `"type": "overloaded_error"`, `type = "overloaded_error"`}},
	{id: "anthropic.overloaded.529.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.9,
		match: func(s *scan) int {
			if st, pos := s.httpStatus(); st == 529 {
				return pos
			}
			if !s.hasKW(kw529Overloaded) {
				return -1
			}
			return indexBounded(s.low, "529 overloaded")
		}},
	{id: "claude_code.server_limiting.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.9,
		any: []string{"temporarily limiting requests"}},
	// "Request rejected (429) · this may be a temporary capacity issue."
	{id: "claude_code.request_rejected.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.9,
		any: []string{"request rejected (429)"}},
	{id: "anthropic.rate_limit_error.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.9,
		any: []string{`"rate_limit_error"`}},

	// The Anthropic API's timeout_error type (a 408 or 504 body; the SDK's
	// RequestTimeoutError / GatewayTimeoutError carry it).
	// After the status band, so a 504 still reads as the gateway's.
	{id: "anthropic.timeout_error.v1", band: bandGeneric, code: "network", class: ClassTransient, conf: 0.85,
		any: []string{`"type":"timeout_error"`, `"type": "timeout_error"`, `type = "timeout_error"`}},
	// @anthropic-ai/sdk's MessageStream when the stream ends early ("stream
	// ended without producing a Message with role=assistant", "request
	// ended without sending any chunks"): the connection, not the request.
	{id: "anthropic.stream_incomplete.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"stream ended without producing", "request ended without sending any chunks",
			// Claude Code 2.1.112 when a stream closes before its first event:
			// "Stream ended without receiving any events".
			"stream ended without receiving any events"}},
	{id: "network.connection_closed.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.9,
		any: []string{"connection closed mid-response", "closed mid-response"}},
	// Claude Code's notice when a streamed response is cut: with output,
	// "API Error: <cause>. The response above may be incomplete." (the
	// response stopped arriving, part of it never arrived, the stream was
	// malformed, the computer went to sleep mid-response, the connection was
	// lost mid-response); without, "API Error: <cause> before a response was
	// produced. Try again." (native binary 2.1.332/2.1.335; its error
	// reference also lists "Response stalled mid-stream"). The stream, not the
	// request: a new turn picks it up. A server error mid-response is the
	// provider's 5xx inside the stream.
	{id: "claude_code.server_error_mid_response.v1", band: bandTransport, code: "server_error", class: ClassTransient, conf: 0.85,
		any: []string{"server error mid-response"}},
	{id: "claude_code.response_cut.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		any: []string{"the response above may be incomplete", "before a response was produced. try again", "no response was produced. try again",
			"response stalled mid-stream", "the response stopped arriving"}},
	{id: "claude_code.request_timed_out.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.85,
		any: []string{"request timed out", "api error: timeout"}},
	{id: "claude_code.connection_error.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.85,
		any: []string{"api error: connection error", "unable to connect to api", "apiconnectionerror", "connection error."}},

	// A sandbox the settings require and the machine cannot provide (2.1.112
	// result errors: "Sandbox required but unavailable: … Set
	// sandbox.failIfUnavailable=false to allow unsandboxed execution.").
	{id: "claude_code.sandbox_unavailable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"sandbox required but unavailable", "sandbox.failifunavailable"}},
	// Claude Code's npm wrapper (2.1.332 cli-wrapper.cjs) and the stub that
	// postinstall replaces (bin/claude.exe) when the native binary cannot be
	// run: "Could not find native binary package …", "Unsupported platform:
	// …", "Native binaries for … are not available on this release
	// channel.", "Failed to execute native binary at …", "Two copies of the
	// native binary package …", "Error: claude native binary not
	// installed.": the install, before any request.
	{id: "claude_code.install_broken.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"could not find native binary package", "native binary not installed", "not available on this release channel",
			"failed to execute native binary", "copies of the native binary package", "unsupported platform: "}},
	// Claude Code on Windows without a shell it can run: 2.0.50 cli.js,
	// "Claude Code on Windows requires git-bash (https://git-scm.com/
	// downloads/win). If installed but not in PATH, set environment
	// variable pointing to your bash.exe, similar to:
	// CLAUDE_CODE_GIT_BASH_PATH=…", then exit 1; 2.1.229 (native binary),
	// "Claude Code on Windows requires either Git for Windows (for bash) or
	// PowerShell." and "… requires a shell tool. Git Bash was not found and
	// the PowerShell tool is disabled …": the machine's setup, before any
	// request.
	{id: "claude_code.windows_shell_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"claude code on windows requires",
			// 2.0.29 cli.js when CLAUDE_CODE_GIT_BASH_PATH names no file:
			// console.error("Claude Code was unable to find
			// CLAUDE_CODE_GIT_BASH_PATH path \"…\""), then exit 1.
			"was unable to find claude_code_git_bash_path"}},

	// cc-switch, the local proxy Claude Code is pointed at
	// (src-tauri/src/proxy/error.rs): NoProvidersConfigured, "未配置供应商",
	// goes out as a 503 though nothing upstream was tried — the app has no
	// provider to route to.
	{id: "ccswitch.no_providers.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"未配置供应商", "no providers configured"}},
	// cc-switch's TransformError, "格式转换错误: <reason>", always goes out as
	// 422 {"type":"proxy_error"}: the status is the proxy's, not a verdict on
	// the request, so only the reason decides (in the bands above this one);
	// a reason nothing reads stays unclassified instead of a terminal 422.
	{id: "ccswitch.transform_error.v1", band: bandStatus, code: "unknown", class: ClassUnclassified, conf: 0.5,
		any: []string{"格式转换错误"}},

	// Claude Code's TUI for an error that carried no message at all (the
	// bare "API Error" content): "API Error: Please wait a moment and try
	// again." (2.1.112 cli.js). Nothing else is known, and the emitter
	// itself says to retry.
	{id: "claude_code.bare_api_error.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.6,
		any: []string{"api error: please wait a moment and try again"}},
	// The API's billing_error type ("Billing error" is its default message
	// in the API reference's shared types), by the type alone where no
	// status came with it (with one, http.billing.402.v1 decides first).
	{id: "anthropic.billing_error.v1", band: bandGeneric, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{`"billing_error"`, `'billing_error'`}},
	{id: "anthropic.api_error.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{`"type":"api_error"`, `"type": "api_error"`, `type = "api_error"`},
		// Relays put any upstream failure under this type, Google's
		// INVALID_ARGUMENT too ({"error":{"message":"Request contains an
		// invalid argument.","type":"api_error"}}, claude-relay-service's
		// Gemini passthrough when it has no upstream status; catalogue
		// relays-crs-gemini-passthrough-invalid-argument): the message says
		// the request is wrong, so gemini.invalid_argument.v1 decides.
		none: []string{"request contains an invalid argument"}},
	// The type also in brackets, as the OpenCode Zen / Go console relays an
	// upstream error (zen/util/handler.ts: "Error from provider (<name>): "
	// before the upstream's "Upstream request failed: [<type>] <message>"),
	// like "[permission_error]" above; only after "request failed:", so a
	// sentence that lists the type is not an error. Catalogue opencode
	// opencode-zen-upstream-invalid-request-bracket.
	{id: "anthropic.invalid_request_error.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.7,
		any: []string{`"invalid_request_error"`, "request failed: [invalid_request_error]"}},
}

var kw529Overloaded = newKW("529 overloaded")

var windowLimitWords = []string{"hour limit reached", "opus limit reached", "session limit reached", "sonnet limit reached",
	"extra usage limit reached"}

var usageNoticeWords = []string{"now using usage credits", "now using your usage allocation", "now using credits",
	"you've used ", "you're close to your"}

var fastModeWords = []string{"fast mode overloaded and is temporarily unavailable", "fast limit reached and temporarily disabled",
	"fast limit reset · now using fast mode"}

// apiRetryWords: the api_retry event as JSON.stringify writes it and as a
// pretty-printer does.
var apiRetryWords = []string{`"subtype":"api_retry"`, `"subtype": "api_retry"`}

// apiErrorEntryWords: the transcript's api_error entry, written by
// JSON.stringify or a pretty-printer.
var apiErrorEntryWords = []string{`"subtype":"api_error"`, `"subtype": "api_error"`}

// lastOf is the offset of the last occurrence of any of ks in s, or -1.
func lastOf(s string, ks []string) int {
	last := -1
	for _, k := range ks {
		last = max(last, strings.LastIndex(s, k))
	}
	return last
}

// jsonMillis reads the integer after key (`"retry_delay_ms":4123`) in the
// object that opens s (its first 512 bytes, a pretty-printed one
// included), as milliseconds.
func jsonMillis(s, key string) (time.Duration, bool) {
	s = s[:min(len(s), 512)]
	if end := strings.IndexByte(s, '}'); end >= 0 {
		s = s[:end]
	}
	i := strings.Index(s, key)
	if i < 0 {
		return 0, false
	}
	j := i + len(key)
	for j < len(s) && s[j] == ' ' {
		j++
	}
	n, digits := 0, 0
	for ; j < len(s) && isDigit(s[j]) && digits < 10; j++ {
		n = n*10 + int(s[j]-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

// attemptOnLine: the line from i carries Claude Code's "(attempt N/M)"
// counter, so "Retrying in X seconds… (attempt N/10)" is the retry line even
// where the delay is not a number (a paste with the delay retyped).
func attemptOnLine(low string, i int) bool {
	line := low[i:]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	return strings.Contains(line, "(attempt ")
}

// limitReachedNotice finds k ("hour limit reached") unless the rest of its
// line says the session carries on ("…, now using extra usage") or gives the
// reset (cli.limit_resets.v1 reads those), or -1.
func limitReachedNotice(low, k string) int {
	for off := 0; ; {
		i := strings.Index(low[off:], k)
		if i < 0 {
			return -1
		}
		i += off
		off = i + len(k)
		rest := low[off:min(len(low), off+48)]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		if !strings.Contains(rest, "now using") && !strings.Contains(rest, "continuing with") && !strings.Contains(rest, "resets") {
			return i
		}
	}
}

// oauthExchangeFailed opens Claude Code's /login error for a token exchange
// the server answered with an error status (see
// claude_code.oauth_exchange_refused.v1).
const oauthExchangeFailed = "oauth error: request failed with status code "

// paramNotSupportedForModel finds "<param> is not supported for this model"
// where <param> (backticks or quotes around it dropped) is a parameter path:
// letters, digits, dots and underscores with at least one dot or underscore,
// and not "model…" itself.
func paramNotSupportedForModel(s *scan) int {
	const k = " is not supported for this model"
	for i := range occurrences(s.low, k, 0) {
		j := i
		for j > 0 && !strings.ContainsRune(" \n\t\"'(:,", rune(s.low[j-1])) {
			j--
		}
		w := strings.Trim(s.low[j:i], "`'\"")
		if w == "" || strings.HasPrefix(w, "model") || !strings.ContainsAny(w, "._") {
			continue
		}
		ok := true
		for _, c := range w {
			if !(c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}
