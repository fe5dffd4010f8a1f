package routingerr

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Rules read from the agents' own sources (testdata/catalogue): their
// progress lines, the quota family shared by Gemini, Qwen, OpenAI and
// Vertex, and wordings that several agents and SDKs share.

// agentRetryWords are the agents' own retry lines: Gemini CLI and Qwen Code
// ("Attempt 2 failed with status 429. Retrying with backoff...", "Retrying
// after 2341ms...", "Trying to reach gemini-2.5-pro (Attempt 2/10)"), Codex
// ("stream disconnected - retrying sampling request (1/5 in 210ms)..."),
// opencode's TUI ("<message> [retrying attempt #2]"),
// Qwen's context compression, Copilot's fall back to its base model ("We
// have switched you to the free base model"), the Kiro plugin's shrinking
// retry ("Context too long. Retrying with 80%..."), AionUi's "Invalid response
// stream detected. Retrying...".
var agentRetryWords = []string{"retrying with backoff", ". retrying after ", "trying to reach ",
	"retrying sampling request", "attempting reactive compression", "automatically switching from", "switched to fallback model",
	"; retrying after ", "; retrying ", "priority: waiting for the model", "for capacity (attempt ", "retrying streaming (", "limit reached, now using", "continuing with extra usage",
	"[retrying attempt #", "switched you to ",
	// opencode's TUI bracket when the wait is a day or more: its
	// formatDuration (util/format.ts) writes "~2 days", "~3 weeks", so the
	// line reads "… [retrying in ~3 weeks attempt #45]"
	// (cli/cmd/tui/component/prompt/index.tsx retryText).
	"[retrying in ~", "context too long. retrying with ", "stream detected. retrying...",
	// The same retry with neither count nor delay: "<error>; retrying..."
	// (codex-cli 0.7's "stream error: … stream closed before
	// response.complete; retrying...", and the idiom of many clients).
	"; retrying...", "; retrying…",
	// Claude Code 2.1.112's notice when a window runs out and extra usage
	// takes over ("You're now using extra usage · Your session limit resets
	// 3pm (…)", "Now using extra usage"): the session carries on.
	"now using extra usage",
	// Cline's SDK status notice when a turn overflowed the context window:
	// "context window exceeded — compacting and retrying" (cline/cline
	// sdk/packages/agents/src/agent-runtime.ts, kind
	// context_overflow_recovery, phase started): it compacts and sends the
	// turn again.
	"compacting and retrying",
	// stamina's retry hook, the event it logs before the wait
	// ("stamina.retry_scheduled", with wait_for=<seconds>; hynek/stamina
	// src/stamina/instrumentation/_structlog.py, _logging.py).
	"stamina.retry_scheduled",
	// OpenHands' tenacity before_sleep log (openhands/llm/retry_mixin.py):
	// "<error>. Attempt #2 | You can customize retry values in the
	// configuration." — logged before the next attempt.
	"you can customize retry values in the configuration",
	// crush's provider clients before they wait and send again
	// (charmbracelet/crush internal/llm/provider/openai.go at 72539e5b:
	// slog.Warn("Retrying due to rate limit", "attempt", attempts,
	// "max_retries", maxRetries, "error", err), logged only when
	// shouldRetry said to retry; its end is "maximum retry attempts reached
	// for rate limit: N retries", which has none of these words).
	"retrying due to rate limit",
	// Gemini CLI's loading line while it retries, in its low error
	// verbosity: useLoadingIndicator's retryPhrase shows "This is taking a
	// bit longer, we're still on it." where full verbosity shows "Trying to
	// reach <model> (Attempt N/M)". The apostrophe is left out so a curly
	// one in a paste still matches.
	"this is taking a bit longer, we",
	// opencode's TUI retry banner for a Gemini quota message
	// (cli/cmd/tui/routes/session: a retry status whose message has
	// "exceeded your current quota" and "gemini" is shown as "gemini is
	// way too hot right now", then "(click to expand)" and "[retrying in Ns
	// attempt #N]"): the words only appear while opencode retries.
	"gemini is way too hot right now",
	// LiteLLM's Router as it sends the request to the next model group
	// after a failure (litellm/router_utils/fallback_event_handlers.py
	// run_async_fallback: verbose_router_logger.info(f"Falling back to
	// model_group = {mg}"), then the call): the request goes on elsewhere.
	"falling back to model_group = ",
	// opencode-antigravity-auth's toasts before it sleeps and tries again
	// (src/plugin.ts: "Rate limited. Quick retry in 1s...", "Rate limited
	// again. Switching account in 5s...", "Server at capacity. Waiting
	// 10s... (attempt 2)", "⏳ Waiting 12s for same account (prompt cache
	// preserved)...", "Empty response received. Retrying (1/4)..."): the
	// plugin's own retry, with its delay.
	"quick retry in ", "switching account in ", "server at capacity. waiting ",
	"for same account (prompt cache preserved)", "empty response received. retrying",
	// pi's JSON and RPC event when it schedules its own retry after a
	// transient error ({"type":"auto_retry_start","attempt":1,
	// "maxAttempts":3,"delayMs":2000,"errorMessage":"…"}), and the same for a
	// summarization (packages/coding-agent/docs/rpc.md, earendil-works/pi):
	// the event value, quoted, with the wait in "delayMs". auto_retry_end is
	// the loop's end and is not here.
	`"auto_retry_start"`, `"summarization_retry_scheduled"`,
	// Kimi CLI's wire event when a step failed and will be retried after
	// its wait ({"jsonrpc":"2.0","method":"event","params":{"type":
	// "StepRetry","payload":{"n":1,"next_attempt":2,"max_attempts":3,
	// "wait_s":2.5,"error_type":"RateLimitError","status_code":429}}},
	// MoonshotAI/kimi-cli src/kimi_cli/wire/types.py, Wire 1.10): the
	// status is the failed attempt's, the event is the retry.
	`"type":"stepretry"`, `"type": "stepretry"`,
	// ZCode's stream-json (and its JSONL activity log) event when a model
	// call failed and the CLI will call again ({"type":
	// "model.retry.scheduled","payload":{"attempt":2,…}}; the event
	// catalogue a ZCode client checked against zcode 0.16.5, which shows it
	// as "retrying the model call (attempt N)…"): the failed call's status
	// rides along, the event is the retry. model.retry.exhausted is the end
	// and is not here.
	`"model.retry.scheduled"`,
	// openclaw's OpenAI Responses WebSocket transport when the socket cannot
	// carry the turn (src/agents/openai-ws-stream.ts: log.warn("[ws-stream]
	// WebSocket connect failed for session=<id>; falling back to HTTP.
	// error=<err>"), "… send failed for session=<id>; falling back to HTTP.
	// error=<err>", "[ws-stream] session=<id> broken/disconnected; falling
	// back to HTTP"), then fallbackToHttp streams the same turn over HTTP:
	// the request goes on. Other Responses clients log the same switch the
	// same way ("responsesClient: WebSocket failed, falling back to HTTP.
	// error=…"), so the words are taken without openclaw's "; ".
	"falling back to http. error=", "broken/disconnected; falling back to http",
	// Gemini CLI 0.1's start-up probe of its default model (packages/core/
	// src/core/modelCheck.ts getEffectiveModel, logged again by
	// packages/cli/src/gemini.tsx): on a 429 it prints "[INFO] Your
	// configured model (gemini-2.5-pro) was temporarily unavailable.
	// Switched to gemini-2.5-flash for this session." and carries on with
	// the other model; "… currently unavailable. Switched to …" is the same
	// notice.
	"unavailable. switched to "}

// toastDelayWords precede the delay in those toasts.
var toastDelayWords = []string{"quick retry in ", "switching account in ", "server at capacity. waiting ", "⏳ waiting "}

var kwDailyQuota = newKW("reached your daily")

// shortReset is the longest reset that is still a rate window, not a quota.
const shortReset = 5 * time.Minute

var agentRules = []rule{
	{id: "agent.own_retry.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  agentRetryWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			for _, k := range agentRetryWords {
				i := s.index(k, true)
				if i < 0 || s.retriesOver(i) {
					continue
				}
				if k == "trying to reach " && !strings.Contains(s.low[i:min(len(s.low), i+120)], "(attempt ") {
					continue
				}
				// "<error>; retrying 2/5 in 1.6s…", "; retrying in 251 ms",
				// "; retrying after 2s", a logger's "…; retrying {fields}":
				// the retry's own details follow. Not "; retrying is
				// pointless" (the verb as a subject).
				if k == "; retrying " && !retryingDetails(s.low[i+len(k):]) {
					continue
				}
				// crush's line is its log record: the message closes its
				// quoted msg= value or its fields follow ("Retrying due to
				// rate limit" attempt=2 …, its older "Retrying due to rate
				// limit... attempt 1 of 8"); not the words in prose.
				if r := s.low[i+len(k):]; k == "retrying due to rate limit" &&
					!strings.HasPrefix(r, `"`) && !strings.HasPrefix(r, " attempt") && !strings.HasPrefix(r, "... attempt") {
					continue
				}
				// The toasts' delay words need their number ("switching
				// account in settings" is no countdown), and so does
				// opencode's "[retrying in ~" ("~2 days").
				if j := i + len(k); (k == "quick retry in " || k == "switching account in " || k == "server at capacity. waiting " || k == "[retrying in ~") &&
					(j >= len(s.low) || !isDigit(s.low[j])) {
					continue
				}
				// Gemini CLI's fallback after a daily quota ("You have reached
				// your daily quota limit. Automatically switching from …"): the
				// quota is the news, and replaying it only finds it again.
				if k == "automatically switching from" && s.hasKW(kwDailyQuota) {
					continue
				}
				// The model-switch notice names what it switched for ("… for
				// this session."); not "Service Unavailable. Switched to the
				// status page".
				if j := i + len(k); k == "unavailable. switched to " && !strings.Contains(s.low[j:lineEnd(s.low, j)], "session") {
					continue
				}
				// opencode's banner with its "[retrying in 12s attempt #3]"
				// bracket: the retry rule that reads the delay decides.
				if k == "gemini is way too hot right now" && strings.Contains(s.low, "[retrying") {
					continue
				}
				return i
			}
			return -1
		},
		hint: func(s *scan, c Classification) Classification {
			for _, read := range ownRetryDelays {
				if d, ok := read(s.low); ok {
					c.RetryAfter = new(d)
					return c
				}
			}
			if _, d := s.lastRetryNotice(); d > 0 && d <= maxHint {
				// The delay the retry line states where no emitter's own
				// reader has it: Codex's "retrying sampling request (1/5 in
				// 210ms)...", Qwen Code's "Retrying with backoff in 5s...".
				c.RetryAfter = new(d)
			}
			return c
		}},
	// crush's API key dialog when the provider refused the key it just
	// verified: "Invalid <Provider> API Key. Try again?" (charmbracelet/crush
	// internal/tui/components/dialogs/models/apikey.go at 1a656de03), now
	// "Invalid <Provider> Key. Try again?" (internal/ui/dialog/
	// api_key_input.go at 37f36e93, APIKeyInputStateError). A key to
	// re-enter, not a request to replay (catalogue crush
	// crush-api-key-invalid-*).
	{id: "crush.api_key_invalid.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		gate:  []string{" key. try again?"},
		check: "\"invalid \" earlier on its line",
		match: func(s *scan) int {
			for off := 0; ; {
				i := strings.Index(s.low[off:], " key. try again?")
				if i < 0 {
					return -1
				}
				i += off
				ls := lineStart(s.low, i)
				if j := strings.Index(s.low[ls:i], "invalid "); j >= 0 {
					return ls + j
				}
				off = i + len(" key. try again?")
			}
		}},
}

// ownRetryDelays read the delay an agent's own retry line or event states,
// in the order they are tried: each knows one emitter's notation.
var ownRetryDelays = []func(low string) (time.Duration, bool){
	piRetryDelay, kimiStepRetryWait, staminaWait, codexRetryDelay, retryingAfterDelay, toastDelay, capacityWait,
}

// retryingDetails: s, what follows "; retrying ", opens with the retry's
// details: a counter or a delay, a bracketed or braced detail, or "in ",
// "after ", "with ", "now", "request".
func retryingDetails(s string) bool {
	if s == "" {
		return false
	}
	if isDigit(s[0]) || strings.IndexByte("({[", s[0]) >= 0 {
		return true
	}
	for _, w := range []string{"in ", "after ", "with ", "now", "request"} {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	// The request sent again without what was refused: @anthropic-ai/sdk's
	// betaRefusalFallbackMiddleware, "… fallback request with the partial
	// output appended was rejected (HTTP 400: …); retrying without it",
	// "fast fallback request to <model> was rejected (HTTP 429); retrying
	// without `speed`" (lib/middleware.mjs, then next() with the smaller
	// body). Not "retrying without success" (the outcome).
	if r, ok := strings.CutPrefix(s, "without "); ok {
		for _, w := range []string{"success", "luck", "result", "any "} {
			if strings.HasPrefix(r, w) {
				return false
			}
		}
		return true
	}
	return false
}

// retryingAfterDelay reads the delay of Gemini CLI's and Qwen Code's own
// retry line, "Attempt 1 failed: <error>. Retrying after 5710ms..." (their
// retryWithBackoff), the last one in low.
//
// Qwen Code names the Retry-After wait: "Attempt 2 failed with status 429.
// Retrying after explicit delay of 30000ms..." (packages/core
// utils/retry.ts).
func retryingAfterDelay(low string) (time.Duration, bool) {
	i := strings.LastIndex(low, "retrying after ")
	if i < 0 {
		return 0, false
	}
	rest := strings.TrimPrefix(low[i+len("retrying after "):], "explicit delay of ")
	d, _, ok := parseHumanDuration(rest)
	if !ok || d <= 0 || d > maxHint {
		return 0, false
	}
	return d, true
}

// toastDelay reads the delay of opencode-antigravity-auth's retry toasts
// ("Quick retry in 1s...", "Switching account in 5s...", "Waiting 12s for
// same account"), the last one in low.
func toastDelay(low string) (time.Duration, bool) {
	i := lastOf(low, toastDelayWords)
	if i < 0 {
		return 0, false
	}
	for _, w := range toastDelayWords {
		if strings.HasPrefix(low[i:], w) {
			d, _, ok := parseHumanDuration(low[i+len(w):])
			if ok && d > 0 && d <= maxHint {
				return d, true
			}
			break
		}
	}
	return 0, false
}

// codexRetryDelay reads the delay of Codex's own retry line, "<error>;
// retrying 2/5 in 1.6s…" (codex-rs: "{err}; retrying {attempt}/{max} in
// {delay:?}…"), the last one in low.
// piRetryDelay reads the "delayMs" of pi's auto_retry_start or
// summarization_retry_scheduled event (milliseconds, the wait before the
// attempt).
func piRetryDelay(low string) (time.Duration, bool) {
	if !strings.Contains(low, `"auto_retry_start"`) && !strings.Contains(low, `"summarization_retry_scheduled"`) {
		return 0, false
	}
	i := strings.Index(low, `"delayms":`)
	if i < 0 {
		return 0, false
	}
	rest := strings.TrimLeft(low[i+len(`"delayms":`):], " ")
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	if j == 0 || j > 10 {
		return 0, false
	}
	ms, err := strconv.ParseInt(rest[:j], 10, 64)
	if err != nil || ms <= 0 {
		return 0, false
	}
	d := time.Duration(ms) * time.Millisecond
	if d > maxHint {
		return 0, false
	}
	return d, true
}

// kimiStepRetryWait reads the "wait_s" of Kimi CLI's StepRetry event
// (seconds, a float: the wait before the next attempt).
func kimiStepRetryWait(low string) (time.Duration, bool) {
	if !strings.Contains(low, `"type":"stepretry"`) && !strings.Contains(low, `"type": "stepretry"`) {
		return 0, false
	}
	return secondsField(low, `"wait_s":`)
}

// staminaWait reads the wait_for (seconds) of stamina's
// retry_scheduled event, as structlog's key=value or JSON renderer writes it.
func staminaWait(low string) (time.Duration, bool) {
	i := strings.LastIndex(low, "stamina.retry_scheduled")
	if i < 0 {
		return 0, false
	}
	l := lineWindow(low, i, 2000, 2000)
	if d, ok := secondsField(l, "wait_for="); ok {
		return d, true
	}
	return secondsField(l, `"wait_for":`)
}

// capacityWait reads the wait of Claude Code's mid-stream 529 notice,
// "… waiting 4000ms for capacity (attempt 2)", the last one in low.
func capacityWait(low string) (time.Duration, bool) {
	i := strings.LastIndex(low, " for capacity (attempt ")
	if i < 0 {
		return 0, false
	}
	j := strings.LastIndex(low[:i], "waiting ")
	if j < 0 {
		return 0, false
	}
	d, n, ok := parseHumanDuration(low[j+len("waiting ") : i])
	if !ok || d <= 0 || d > maxHint || j+len("waiting ")+n != i {
		return 0, false
	}
	return d, true
}

func codexRetryDelay(low string) (time.Duration, bool) {
	i := strings.LastIndex(low, "; retrying ")
	if i < 0 {
		return 0, false
	}
	rest := low[i+len("; retrying "):]
	j := 0
	for j < len(rest) && (isDigit(rest[j]) || rest[j] == '/') {
		j++
	}
	// "; retrying in 251 ms" (a wrapper's retry without a counter).
	k := j + len(" in ")
	if j == 0 && strings.HasPrefix(rest, "in ") {
		k = len("in ")
	} else if j == 0 || !strings.HasPrefix(rest[j:], " in ") {
		return 0, false
	}
	d, _, ok := parseHumanDuration(rest[k:])
	if !ok || d <= 0 || d > maxHint {
		return 0, false
	}
	return d, true
}

// quotaWords introduce the quota family: a per-minute rate, a daily or plan
// quota, or no credits at all. The structured detail (quota ids, ErrorInfo
// reasons, RetryInfo) decides which; see the rules below, tried in order.
// google.rpc.QuotaFailure names the violated quota by its id even where the
// status around it is cut off or printed as a Python dict.
var quotaWords = []string{"exceeded your current quota", "resource_exhausted", "resource has been exhausted",
	"quota exceeded", "quota_exhausted", "exhausted your capacity", "quota metric", "google.rpc.quotafailure",
	// A violation's id, in a fragment that lost the message and the
	// detail's type above it ('quotaId': '…PerMinute-FreeTier').
	"quotaid"}

var (
	// Moonshot's "request reached organization TPD rate limit" and Groq's
	// "on tokens per day (TPD)", "(RPD)": a day's tokens or requests.
	perDayWords    = []string{"perday", "per_day", "per day", "daily", "dailyrequests"}
	perMinuteWords = []string{"perminute", "per_minute", "per minute", "please retry in", "retrydelay",
		"suggested retry after", "rate_limit_exceeded", "requests_per_minute"}
)

var quotaRules = []rule{
	// Alibaba Model Studio (DashScope, Bailian) sends its per-minute token
	// throttle as OpenAI's insufficient_quota and links the TPM section of
	// its error-code page: "You exceeded your current quota … see:
	// https://help.aliyun.com/zh/model-studio/error-code#token-limit". It
	// clears within the minute; it is not billing.
	{id: "alibaba.token_limit.v1", band: bandReset, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: []string{"error-code#token-limit"}},
	// "limit: 0": the plan has no quota for this model at all (Gemini's free
	// tier on a Pro model); no wait helps.
	// The Gemini API words the same zero for a per-model quota id as
	// "<QuotaId> limit exceeded for model <m>: limit=0, requested=<n>"
	// (TotalCachedContentStorageTokensPerModelFreeTier: the free tier has no
	// context-cache storage at all; meinside/gemini-things-go
	// generation_free_test.go quotes the 429; catalogue google-api
	// google-api-cached-content-free-tier-limit0): "limit exceeded" is
	// required beside "limit=0" so okio's "\n not found: limit=0" (an
	// EOFException) is not read.
	{id: "google.quota_limit_zero.v1", band: bandReset, code: "billing", class: ClassUserAction, conf: 0.85,
		gate: []string{"limit: 0", "limit:0", "limit=0"},
		match: func(s *scan) int {
			if i := zeroLimitAt(s.low, "limit: 0"); i >= 0 {
				return i
			}
			if strings.Contains(s.low, "limit exceeded") {
				return zeroLimitAt(s.low, "limit=0")
			}
			return -1
		}},
	// Gemini Code Assist's "You have exhausted your capacity on this model.
	// Your quota will reset after 53s.": a reset within a few minutes is a
	// rate window; wait the stated time and retry. Longer is a plan quota
	// (quota.daily below). "after 0s" is a window that has already reopened
	// (the message rounds down: its quotaResetDelay says "579.276118ms",
	// catalogue gemini-cli-capacity-reset-0s-sub-second): retry now, or after
	// the precise RetryInfo/quotaResetDelay when the body states one within
	// the second the message rounded away.
	{id: "google.capacity_short_reset.v1", band: bandReset, code: "rate_limited", class: ClassTransient, conf: 0.85,
		gate: []string{"quota will reset after "},
		match: func(s *scan) int {
			i := strings.LastIndex(s.low, "quota will reset after ")
			if i < 0 {
				return -1
			}
			if d, _, ok := parseHumanDuration(s.low[i+len("quota will reset after "):]); ok && d >= 0 && d <= shortReset {
				return i
			}
			return -1
		},
		hint: func(s *scan, c Classification) Classification {
			i := strings.LastIndex(s.low, "quota will reset after ")
			if d, _, ok := parseHumanDuration(s.low[i+len("quota will reset after "):]); ok {
				if _, p, ok := googleStatedDelay(s.low); ok && p >= d && p < d+time.Second {
					d = p
				}
				c.RetryAfter = new(d)
			}
			return c
		}},
	// Plan and free-tier quotas that say they are daily or exhausted until a
	// reset: Gemini's PerDay quota ids and "daily quota", Code Assist's
	// QUOTA_EXHAUSTED and its plan's "Individual quota reached. Contact your
	// administrator to enable overages", Qwen OAuth's free daily quota,
	// OpenAI's RPD/TPD.
	{id: "quota.daily.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.9,
		any: []string{"daily quota", "reached your daily", "free allocated quota exceeded", `"reason":"quota_exhausted"`, "exhausted your capacity on this model",
			"daily limit", "daily request limit", "daily usage limit", "daily rate limit", "per-day rate limit", "(rpd)", "(tpd)", "weekly limit", "monthly limit", "monthly quota",
			"monthly usage limit", "hour usage quota", "individual quota reached", "to enable overages",
			// Qwen Code's own words for a spent Qwen OAuth quota before 0.11
			// (packages/core/src/utils/retry.ts: "Qwen API quota exceeded:
			// Your Qwen API quota has been exhausted. Please wait for your
			// quota to reset."; catalogue qwen-code-qwen-api-quota-exhausted*).
			"qwen api quota has been exhausted", "wait for your quota to reset",
			// Moonshot's rate_limit_reached_error for the day's tokens or
			// requests: "request reached organization TPD rate limit,
			// current:…, limit:…" (catalogue moonshot-429-tpd).
			"tpd rate limit", "rpd rate limit",
			// OpenRouter names the free-model limit it hit: "Rate limit
			// exceeded: free-models-per-day" (and the -high-balance tier of
			// accounts that bought credits) is the UTC day's :free requests,
			// counted until midnight UTC (openrouter.ai/docs/api-reference/limits,
			// FreeModelDailyRequests): whatever type a relay gives the 429, no
			// minute's wait restores it. Its per-minute sibling
			// "free-models-per-min" stays a rate limit. Catalogue
			// hint-notations openrouter-free-per-day-ratelimit-reset-ms,
			// openrouter openrouter-429-free-models-per-day-body.
			"free-models-per-day",
			// Kilo Code's Gemini CLI provider turns every 429 from Code
			// Assist into "Rate limit exceeded. Free tier limits have been
			// reached." (common.json errors.geminiCli.rateLimitExceeded,
			// src/api/providers/gemini-cli.ts createMessage): the free
			// tier's allowance, which the text gives no minute for; the
			// side that does not replay. zh-CN: "…免费层级限制已达到。"
			"free tier limits have been reached", "免费层级限制已达到"},
		none: []string{"model_capacity_exhausted", "approaching"}},
	{id: "quota.per_day_id.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate: quotaWords, any: perDayWords, none: []string{"model_capacity_exhausted", "perminute", "per minute"}},
	// A QuotaFailure whose violations name a per-day quota id beside
	// per-minute ones ('GenerateRequestsPerMinutePerProjectPerModel-FreeTier'
	// and 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' in one list):
	// Gemini CLI's classifyGoogleError walks every violation and makes any
	// id with PerDay a TerminalQuotaError before it reads per-minute ids or
	// RetryInfo. The day's allowance is spent; a minute's wait does not
	// restore it. The id form only (compact "perday" after the quotaId
	// field), so prose that says "per minute" and "per day" stays with the
	// rules around this one. A stated retryDelay is kept as the hint.
	{id: "google.per_day_violation.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate: []string{"quotaid"}, any: []string{"perdayper", "permodelperday", "requestsperday", "tokensperday"},
		none: []string{"model_capacity_exhausted"},
		hint: func(s *scan, c Classification) Classification {
			if _, d, ok := googleStatedDelay(s.low); ok {
				c.RetryAfter = new(d)
			}
			return c
		}},
	// A Google quota whose own retry hint ("Please retry in 3600s.",
	// RetryInfo's retryDelay, Gemini CLI's "Suggested retry after …") is
	// longer than a rate window and names no per-minute quota: Gemini CLI
	// itself treats a delay over five minutes as a terminal quota
	// (googleQuotaErrors.ts MAX_RETRYABLE_DELAY_SECONDS); wait for it.
	{id: "google.long_retry_delay.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.8,
		gate: quotaWords, none: []string{"perminute", "per minute", "per_minute"},
		match: func(s *scan) int {
			if i, d, ok := googleStatedDelay(s.low); ok && d > shortReset {
				return i
			}
			return -1
		},
		hint: func(s *scan, c Classification) Classification {
			if _, d, ok := googleStatedDelay(s.low); ok {
				c.RetryAfter = new(d)
			}
			return c
		}},
	// A quota with a per-minute id or a short retry hint is a rate limit:
	// wait the hint and retry.
	{id: "quota.per_minute.v1", band: bandReset, code: "rate_limited", class: ClassTransient, conf: 0.85,
		gate: quotaWords, any: perMinuteWords},
	// The Gemini API's quota sentence with RESOURCE_EXHAUSTED and nothing
	// that names the window: no QuotaFailure id, no RetryInfo, no "Please
	// retry in", no per-minute word ('{"error":{"code":429,"message":"You
	// exceeded your current quota, please check your plan and billing
	// details. For more information on this error, head to:
	// https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your
	// current usage, head to: https://ai.dev/rate-limit. ","status":
	// "RESOURCE_EXHAUSTED"}}'). Gemini CLI's classifyGoogleError retries a
	// 429 without details itself (googleQuotaErrors.ts, the 5 s fallback),
	// so once it is shown its own replays did not clear it; read raw, the
	// text cannot tell a minute from a day: the side that does not replay
	// (catalogue google-api-429-quota-no-details*). Per-minute ones are read
	// above (quota.per_minute.v1), per-day ids by quota.per_day_id.v1, a
	// "limit: 0" by google.quota_limit_zero.v1.
	{id: "google.quota_no_window.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.7,
		all:  []string{"exceeded your current quota", "resource_exhausted"},
		none: slices.Concat(perMinuteWords, []string{"quotaid", "quota_id", "retry_delay", "limit: 0", "model_capacity_exhausted", "error-code#token-limit"})},
	// A wrapper's own words for a quota, naming it: "You have exceeded your
	// Gemini API quota." (termai, for any 429), "You have exceeded your
	// OpenAI API quota."; "exceeded your current quota" is the providers'
	// text, read by the rules around this one. The quota is named in the
	// same clause ("exceeded your <few words> quota"). Nothing says it is a
	// per-minute rate, so the side that does not replay.
	{id: "quota.exceeded_named.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.7,
		gate: []string{"exceeded your "},
		none: []string{"insufficient_quota", "exceeded your current quota"},
		match: func(s *scan) int {
			for off := 0; ; {
				i := strings.Index(s.low[off:], "exceeded your ")
				if i < 0 {
					return -1
				}
				i += off
				off = i + len("exceeded your ")
				rest := s.low[off:min(len(s.low), off+40)] // bounded: a run of the phrase stays linear
				if j := strings.Index(rest, "quota"); j >= 0 && j <= 32 && !strings.ContainsAny(rest[:j], ".,;:!?()\n") {
					return i
				}
			}
		}},
	// A quota with no id but the provider's own "try again later" (Vertex's
	// "Online prediction request quota exceeded … try again later with
	// backoff"); never when the text points at billing.
	{id: "quota.try_again.v1", band: bandReset, code: "rate_limited", class: ClassTransient, conf: 0.7,
		gate: []string{"quota exceeded", "exceeded your current quota", "quota metric"}, any: []string{"try again later", "with backoff", "please retry"},
		// goose's boilerplate under every failed request ("Please retry if
		// you think this is a transient or recoverable error.") is no
		// provider's hint: the quota's own words decide.
		none: []string{"check your plan and billing", "insufficient_quota", "billing", "credit", "please retry if you think this is a transient"}},
	// Model capacity (Code Assist MODEL_CAPACITY_EXHAUSTED, "No capacity
	// available"): the model is busy, not the account.
	{id: "google.model_capacity.v1", band: bandTransient, code: "capacity", class: ClassTransient, conf: 0.85,
		any: []string{"model_capacity_exhausted", "model_capacity_exceeded", "no capacity available"}},
	// No credits: Gemini Code Assist AI credits, Alibaba Cloud arrears.
	{id: "quota.no_credits.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.9,
		any: []string{"insufficient_g1_credits_balance", "credits balance is insufficient", "insufficient credit",
			"arrearage", "make sure your account is in good standing", "extra usage is required", "usage not included",
			"insufficient balance", "exceeded_current_quota", "requires more credits", "out of credits", "run out of credit",
			"billing is not enabled", "billing_not_active", "out of usage credits", "needs usage credits", "余额不足",
			// anton's MindsHub wallet denials, which open with the status
			// ("Server returned 429 — your included token allowance is
			// exhausted. Add credits at …", "… your MindsHub credits are used
			// up.", "Server returned 429 — <detail> Visit … to upgrade or to
			// top up your tokens."; mindsdb/anton anton/core/llm/anthropic.py
			// _raise_for_status_error): the 429 is no rate limit.
			"token allowance is exhausted", "credits are used up", "top up your tokens",
			// Hugging Face Inference Providers once an account's monthly
			// included credits are spent ("You have depleted your monthly
			// included credits. Purchase pre-paid credits to continue using
			// Inference Providers. …", earlier "You have exceeded your
			// monthly included credits for Inference Providers. Subscribe to
			// PRO …", under a 402): providers not on HF billing are blocked
			// at the limit and the rest need pre-paid credits or PRO
			// (huggingface.co/docs/inference-providers/en/pricing).
			"depleted your monthly included credits", "exceeded your monthly included credits"}},
	// A bare RESOURCE_EXHAUSTED ("Resource has been exhausted (e.g. check
	// quota).") is Gemini's per-minute limit or Vertex's shared capacity;
	// so is google-api-core's ResourceExhausted, which prints as "429
	// <message>" after its class name (exceptions.py: code 429, __str__
	// "{code} {message}") when no quota id says more.
	{id: "google.resource_exhausted_bare.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.7,
		any: []string{"resource has been exhausted", "resourceexhausted: 429"}},
}

var sharedRules = []rule{
	// Content policy refusals: the same prompt is refused again.
	{id: "generic.content_policy.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"violate our usage policy", "invalid_prompt", "flagged as potentially violating", "content_filter",
			"content management policy", "data_inspection_failed", "inappropriate content",
			// Said without a code: "Your request was rejected as a result of
			// our safety system." (OpenAI), "System detected potentially
			// unsafe or sensitive content in input or generation." (Zhipu
			// 1301's message).
			"as a result of our safety system", "unsafe or sensitive content",
			// Anthropic's 400 when its filter stops the output: "Output
			// blocked by content filtering policy" (Claude Code relays it as
			// "API Error: 400 Output blocked …" or with no status at all).
			"blocked by content filtering policy"}},
	{id: "generic.context_overflow.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		any: []string{"context limit reached", "exceed context limit", "exceeds the maximum number of tokens allowed",
			"input is too long", "maximum output length", "reduce the length of the messages", "greater than the context length", "messageoutputlengtherror", "context window of this model",
			"maximum prompt length", "context_window_exceeded", "context window exceeded", "prompt too long",
			"context length exceeded", "input too long",
			// Together / vLLM, Z.ai 1261, SGLang, Mistral, Z.ai's stop reason.
			"is longer than the model's context length", "prompt exceeds max length",
			"exceeds the model's maximum context length", "too large for model with", "model_context_window_exceeded",
			// GitHub Copilot's API, DashScope's InvalidParameter, Moonshot.
			"model_max_prompt_tokens_exceeded", "range of input length should be", "exceeded model token limit",
			// Moonshot's other 400 for it, "Input token length too long"
			// (platform.kimi.com/docs/api/errors.md).
			"token length too long",
			// Z.ai's GLM overflow as opencode's overflow patterns list it
			// (packages/llm/src/provider-error.ts at 3d19c909).
			"tokens in request more than max tokens allowed",
			// DeepSeek web's stop reason input_exceeds_limit (输入超长), which
			// ds-free-api's Anthropic endpoint returns as a 500 "internal
			// error: 输入内容超长，请缩短后重试" (NIyueeE/ds-free-api@a12f402
			// src/ds_core/completions.rs check_hint, src/anthropic_compat.rs).
			"input_exceeds_limit", "输入超长", "输入内容超长"}},

	// Hugging Face Text Generation Inference's 422 validation errors
	// (router/src/validation.rs): "`inputs` tokens + `max_new_tokens` must
	// be <= 65537. Given: …" and "`inputs` must have less than 4096 tokens.
	// Given: 5000": the prompt and the output it asks for do not fit.
	{id: "tgi.validation_length.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		gate: []string{"must be <=", "must have less than"},
		match: func(s *scan) int {
			if i := s.index("must be <=", false); i >= 0 && (strings.Contains(s.low, "tokens + `max_new_tokens`") || strings.Contains(s.low, "input tokens + max_new_tokens")) {
				return i
			}
			if i := s.index("must have less than", false); i >= 0 && strings.Contains(s.low, "tokens. given:") {
				return i
			}
			return -1
		}},

	// DeepSeek's 400 "Input length 72054 exceeds the maximum length 65536".
	{id: "generic.input_length_exceeds.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		all: []string{"input length ", "exceeds the maximum length"}},
	// Reasoning items replayed under another caller (OpenAI Responses via a
	// gateway: "reasoning `encrypted_content` was not issued to this
	// caller"): the history carries items this credential cannot use.
	{id: "openai.encrypted_content_foreign.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.85,
		all: []string{"encrypted_content", "not issued to this caller"}},
	// OpenAI's 400 for replayed reasoning (or compaction) state it cannot
	// decrypt: code invalid_encrypted_content, "The encrypted content … could
	// not be verified. Reason: Encrypted content could not be decrypted or
	// parsed." The same history fails every turn until the items are
	// dropped (Wei-Shaw/sub2api#3138, CLIProxyAPI's Codex executor).
	{id: "openai.encrypted_content_invalid.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.85,
		any: []string{"invalid_encrypted_content", "encrypted content could not be decrypted or parsed"}},
	{id: "generic.attachment.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"pdf too large", "pdf is password protected", "pdf pages may be provided", "image was too large", "image exceeds"}},
	// Claude Code: "Claude's response exceeded the 32000 output token
	// maximum", "Request rejected as unprocessable by the model (too many or
	// oversized images, or unsupported parameters)".
	{id: "claude_code.output_or_unprocessable.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"output token maximum", "rejected as unprocessable"}},
	{id: "generic.structured_output.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.7,
		any: []string{"error_max_structured_output_retries", "failed to provide valid structured output"}},
	// The turn or budget limit the user set (claude -p --max-turns,
	// --max-budget-usd): raise it, then resume.
	{id: "claude_code.turn_limit.v1", band: bandUser, code: "turn_limit", class: ClassUserAction, conf: 0.9,
		any: []string{"reached max turns", "error_max_turns", "exceeded usd budget", "error_max_budget_usd"}},
	// The OpenAI Agents SDK's turn limit, the run's max_turns the caller
	// set: MaxTurnsExceeded("Max turns (N) exceeded") in Python
	// (openai/openai-agents-python src/agents/run.py, result.py) and
	// MaxTurnsExceededError(`Max turns (${maxTurns}) exceeded`) in JS
	// (@openai/agents-core dist/run.js), as runners, streams and agents-as-
	// tools pass it on ("Streaming error: Max turns (10) exceeded", {"error":
	// "Error: Max turns (10) exceeded"}). The number and "exceeded" must
	// follow: not "max turns (default 10)". Catalogue agent-sdks
	// openai-agents-{py,js}-max-turns-exceeded.
	{id: "agents_sdk.max_turns.v1", band: bandUser, code: "turn_limit", class: ClassUserAction, conf: 0.85,
		gate: []string{"max turns ("},
		match: func(s *scan) int {
			for i := range occurrences(s.low, "max turns (", 0) {
				off := i + len("max turns (")
				j := off
				for j < len(s.low) && s.low[j] >= '0' && s.low[j] <= '9' {
					j++
				}
				if j > off && strings.HasPrefix(s.low[j:], ") exceeded") {
					return i
				}
			}
			return -1
		}},
	{id: "generic.auth_words.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"refresh token", "sign in again", "verify your account", "device code expired",
			"authorization timeout, please restart", "free tier has been discontinued", "missing api key",
			"providerautherror", "didn't provide an api key",
			// OpenAI's words for a request with no credential, which it
			// types invalid_request_error: "Missing bearer or basic
			// authentication in header".
			"missing bearer", "missing authentication", "must be a member of an organization", "unauthenticated",
			"invalid api key", "api key is invalid", "no api key",
			// The same with the key named as a setting, API_KEY: wcode.net's
			// "No API_KEY provided, please check the Authorization header of
			// your http request" and "Incorrect API_KEY provided"
			// (wcode.net/api-error-reference; catalogue relays
			// wcode-no-api-key-provided, wcode-incorrect-api-key-provided).
			"no api_key", "incorrect api_key",
			// A request that carried no credential at all: OpenRouter's
			// 401 "No auth credentials found" (catalogue openrouter
			// openrouter-401-no-auth-credentials), and the same said
			// plainly: "Authentication is required …", "Not
			// authenticated", "You must be logged in …"; Zed's agent panel
			// before Claude Code is logged in: "You are not currently
			// authenticated with Claude Code" (zed-industries/zed#44717).
			"no auth credentials found", "authentication is required", "not authenticated", "must be logged in",
			"not currently authenticated",
			// A client that has no key to send: jetbrains-cc-gui's ai-bridge
			// ("[ERROR] API Key not configured.", then throw new
			// Error('API Key not configured')); catalogue
			// wrappers jetbrains-cc-gui-api-key-not-configured{,-thrown}.
			"api key not configured",
			// A key refused in other words: "The API key you provided is
			// invalid.", "Your API key has been revoked."
			"key you provided is invalid", "api key has been revoked", "api key was revoked",
			// Asked to sign in again, in other words: "Authentication error"
			// (Anthropic's authentication_error message), "Login required",
			// "Session expired. Please log in again.", "Auth token is invalid".
			"authentication error", "log in again", "login again", "login required", "token is invalid", "api_key environment variable", "invalid authentication",
			"authentication failed", "authentication_failed", "token has expired", "token expired", "expired token",
			"token refresh failed", "could not resolve authentication method", "sign-in failed",
			// one-api / new-api relays' token checks: "该令牌已过期" (expired),
			// "无效的令牌" (invalid), "未提供令牌" (none given).
			"该令牌已过期", "无效的令牌", "未提供令牌", "tokenstatusexpired",
			// new-api's English for the same checks (i18n/locales/en.yaml
			// token.invalid "Invalid token", token.not_provided "Token not
			// provided"), with the " (request id: …)" its
			// common.MessageWithRequestId appends; the suffix keeps a
			// parser's "invalid token" out.
			"invalid token (request id:", "token not provided (request id:",
			// Google's auth libraries without usable credentials (Vertex,
			// Code Assist): google-auth's DefaultCredentialsError, the Node
			// library's "Could not load the default credentials.", and
			// OAuth 2.0's invalid_grant (RFC 6749 §5.2: a refresh token
			// expired or revoked). oauth2client's and the Java/.NET
			// libraries' older wording: "The Application Default Credentials
			// are not available. …" (oauth2client client.py ADC_HELP_MSG).
			"default credentials were not found", "could not load the default credentials", "invalid_grant",
			"application default credentials are not available",
			// Kilo Code's (and Roo's) Gemini CLI and Qwen Code OAuth
			// providers when the stored login cannot be read
			// (common.json errors.geminiCli/qwenCode.oauthLoadFailed,
			// "Failed to load OAuth credentials. Please authenticate first:
			// {{error}}", zh-CN "加载 OAuth 凭据失败。…"): sign in again.
			"failed to load oauth credentials", "加载 oauth 凭据失败"},
		// .NET's TLS handshake dropped by the peer: "Authentication failed
		// because the remote party has closed the transport stream."
		// (SslStream), a connection lost, not a credential.
		none: []string{"remote party has closed the transport stream"}},
	// An OAuth token refresh the token endpoint refused with an RFC 6749
	// §5.2 error ("Gemini CLI OAuth refresh failed (HTTP 400 Bad Request):
	// {"error": "invalid_request", "error_description": "client_secret is
	// missing."}", zeroclaw's Gemini provider): the stored login or the
	// client's credentials are the problem; sign in again or fix the
	// client setup (catalogue agents-more zeroclaw-gemini-oauth-refresh-*).
	{id: "oauth.refresh_refused.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		all:  []string{"refresh failed"},
		any:  []string{"invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"},
		none: []string{"invalid_request_error"}},
	// Qwen OAuth's free tier ending, in each version's wording ("has been
	// discontinued", "was discontinued on 2026-04-15. Run /auth …").
	{id: "qwen.free_tier_ended.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		all: []string{"oauth free tier", "discontinued"}},
	{id: "generic.billing_words.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"account is not active", "account_deactivated", "upgrade to plus", "with your chatgpt plan",
			// A subscription or plan that ran out, in any wording of it
			// ("Your subscription has expired", "GLM Coding Plan expired"):
			// renewing it is the fix.
			"subscription has expired", "subscription is expired", "subscription expired", "plan has expired",
			"plan is expired", "plan expired",
			// A trial over. ("Add a payment method" is no verdict: OpenAI's
			// rate-limit message says it to raise a per-minute limit.)
			"trial has ended", "trial has expired", "trial expired",
			// An overdue account ("Account overdue", "account is overdue",
			// "403 Access denied due to overdue account").
			"account overdue", "account is overdue", "due to overdue account",
			// one-api / new-api relays: the relay token's own quota is spent
			// ("该令牌额度已用尽", TokenStatusExhausted; catalogue relays.jsonl).
			"该令牌额度已用尽", "tokenstatusexhausted",
			// LiteLLM's proxy budget (litellm/exceptions.py
			// BudgetExceededError: "Budget has been exceeded! Current cost:
			// …, Max budget: …"), its user / end-user budget ("ExceededBudget:
			// User=… over budget. Spend=…, Budget=…", type budget_exceeded)
			// and its provider / deployment budget routing, a 429 "No
			// deployments available - crossed budget …" (docs.litellm.ai
			// docs/proxy/budgets, docs/proxy/provider_budget_routing): the
			// spend cap is reached, raising it (or its period ending) is the fix.
			"budgetexceedederror", "budget has been exceeded", "exceededbudget:", "over budget. spend=",
			"crossed budget",
			// A gateway's spend cap for a scope it manages: Merge Gateway's
			// "Project budget exceeded for '<project>'." (code
			// project_budget_exceeded, docs.merge.dev/merge-gateway/errors),
			// and the budget_exceeded type LiteLLM's proxy and other gateways
			// put on it (docs.litellm.ai/docs/proxy/error_reference). Not the
			// session or goal budget an agent run was given (turn_limit).
			"project budget exceeded", "team budget exceeded", "key budget exceeded", "organization budget exceeded",
			`"budget_exceeded"`, `_budget_exceeded"`}},
	{id: "generic.model_words.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"not available with the claude pro plan", "model identifier is invalid", "model not found",
			"don't have access to the model with the specified model id", "providermodelnotfounderror",
			"is not available in region", "no allowed providers are available for the selected model", "模型不存在",
			// The model named wrongly, as gateways and local servers say it
			// ("Unknown model: x", "Invalid model name").
			"unknown model", "invalid model:", "invalid model name", "invalid model id", "invalid model specified",
			// OpenRouter's 400 for a slug it does not list ("<slug> is not a
			// valid model ID", code 400; catalogue openrouter
			// openrouter-400-not-valid-model-id), relayed as is by LiteLLM's
			// OpenrouterException and by chat front ends, even with the slug
			// left blank: the model named wrongly, not a malformed body.
			"is not a valid model id",
			// CLIProxyAPI when no provider serves the requested model
			// (sdk/api/handlers: "unknown provider for model <m>"). Until
			// 2026-07 it came as a 502 {"type":"server_error","code":
			// "internal_server_error"}; the 400 model_not_found that
			// replaced it says why: "a gateway failure they would keep
			// retrying". The words, not the 502.
			"unknown provider for model",
			// Its 503 for an image-only model asked on a chat route
			// (handlers_routing.go validateImageOnlyModel: "model gpt-image-2
			// is only supported on /v1/images/generations and
			// /v1/images/edits"): another model or route, not a replay.
			"is only supported on /v1/images/"},
		none: []string{"accessdeniedexception"}},
	{id: "generic.config_words.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"blocked by cloudflare", "country, region, or territory not supported", "unsupported_country_region_territory",
			"native binary not found", "cwd` must be an absolute path", "does not exist on the machine running the agent",
			"cwd` is not a directory", "missing environment variable", "sign in to network or proxy",
			"executable not found", "err_module_not_found", "the system cannot find the file specified", "is not registered",
			// crush (internal/config/load.go): its provider configuration.
			"failed to configure providers", "failed to load providers",
			// opencode's provider that did not load (provider.ts InitError,
			// "ProviderInitError"; cli/error.ts: 'Failed to initialize
			// provider "x". Check credentials and configuration.').
			"provideriniterror", "failed to initialize provider",
			// goose's ConfigError::NotFound (crates/goose/src/config/base.rs:
			// "Configuration value not found: GOOSE_PROVIDER"; catalogue
			// agents-more goose-config-value-not-found): a key or setting
			// that was never set.
			"configuration value not found",
			// goose's provider registry (crates/goose/src/providers/init.rs
			// get_from_registry: "Unknown provider: {}", which goose-cli's
			// session builder panics on as "Failed to create provider:
			// Unknown provider: bedrock"; catalogue agents-more
			// goose-unknown-provider): a
			// GOOSE_PROVIDER this build does not know, every time.
			"unknown provider: ",
			// Claude Code started from inside another Claude Code session
			// (CLAUDECODE=1 inherited, cli.js of @anthropic-ai/claude-code
			// 2.1.42: "Error: Claude Code cannot be launched inside another
			// Claude Code session. … unset the CLAUDECODE environment
			// variable."; catalogue claude-code-nested-session-claudecode):
			// it exits 1 before any request, every time, until the launcher's
			// environment is fixed.
			"cannot be launched inside another claude code session",
			// vLLM's OpenAI server asked for tool_choice "auto" when it was
			// started without a tool parser (vllm/entrypoints/openai/
			// serving_chat.py at 003fe593: create_error_response('"auto"
			// tool choice requires --enable-auto-tool-choice and
			// --tool-call-parser to be set'), a 400 every time until the
			// server's flags or the client's tool setting change.
			"tool choice requires --enable-auto-tool-choice",
			// Older vLLM servers (before auto tool choice, 0.5.x
			// vllm/entrypoints/openai/protocol.py ChatCompletionRequest
			// check_tool_choice: ValueError("Currently only named tools are
			// supported.")), TensorRT-LLM's OpenAI server likewise: a request
			// with tool_choice "auto" fails every time on this server.
			// Catalogue local-servers vllm-only-named-tools.
			"currently only named tools are supported",
			// LiteLLM when the model string names no provider it knows
			// (litellm/litellm_core_utils/get_llm_provider_logic.py at
			// 001a933c: "LLM Provider NOT provided. Pass in the LLM provider
			// you are trying to call. You passed model=…", a BadRequestError
			// raised before any request): the model needs its provider prefix.
			"llm provider not provided. pass in the llm provider",
			// Jupyter AI's ACP personas when the agent's CLI is missing or
			// too old (jupyter-ai-contrib/jupyter-ai-acp-client
			// jupyter_ai_acp_client/acp_personas/*.py at de14d854, gemini.py
			// before 44a10aa: PersonaRequirementsUnmet("This persona requires
			// `gemini` CLI to be installed. …"), ("gemini CLI version 0.33.0
			// is installed, but version >=0.34.0 is required. Please upgrade
			// gemini CLI. …"); catalogue agents-more
			// jupyter-ai-acp-persona-*): the agent never starts until it is
			// installed or upgraded.
			"this persona requires `", "is installed, but version >="}},
	{id: "generic.permission_words.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"organization must be verified", "permission_denied", "caller does not have permission", "has been blocked due to",
			// The same refusal said of a key or an account, with no
			// status beside it: "Your API key does not have permission to
			// use the specified resource." (Anthropic's permission_error).
			"does not have permission to use", "do not have permission to use", "not have permission to access",
			// Code Assist's seat check without its 403: "You must be a named
			// user on your organization's … subscription to use this
			// service. Please contact your administrator to request an
			// entitlement".
			"must be a named user on your organization", "to request an entitlement",
			// The same check for a project (cloudcode-pa's 403 "You are
			// currently configured to use a Google Cloud Project but lack a
			// Gemini Code Assist license. …") and the IDE extension's "You
			// are missing a valid license for Gemini Code Assist.", when a
			// relay keeps only the first sentence (catalogue
			// gemini-cli-code-assist-license-first-sentence).
			"lack a gemini code assist license", "missing a valid license for gemini code assist"}},

	// A gateway that has no slot for the request right now ("The AI gateway
	// is busy. Retry the request.", ngrok's
	// ERR_NGROK_AI_GATEWAY_REQUEST_CAPACITY_UNAVAILABLE): the gateway's own
	// load, not the account.
	{id: "gateway.busy.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.8,
		any: []string{"gateway is busy", "gateway is currently busy"}},

	{id: "generic.high_demand.v1", band: bandTransient, code: "capacity", class: ClassTransient, conf: 0.85,
		any: []string{"experiencing high demand", "model is at capacity", "experiencing high load", "server is busy", "servers are busy", `"codex_error_info":"server_overloaded"`,
			// 503's standard body without its status ("The server is
			// temporarily unable to service your request due to maintenance
			// downtime or capacity problems. Please try again later.").
			"temporarily unable to service your request",
			// Mistral's shared capacity for a model is full ("Service tier
			// capacity exceeded for this model.", code 3505, with type
			// invalid_request_error): LiteLLM reads it as a retryable limit
			// (litellm/litellm_core_utils/exception_mapping_utils.py at
			// 002b24d3, ExceptionCheckers.is_error_str_rate_limit: "Mistral
			// API returns this error string"), not a bad request.
			"service tier capacity exceeded",
			// Claude.ai's capacity message ("Due to unexpected capacity
			// constraints, Claude is unable to respond to your message.
			// Please try again soon."): system-wide demand, not the
			// account's limit (support.claude.com/en/articles/12466728).
			"unexpected capacity constraints"}},
	// OpenRouter relays an upstream failure after the stream began as a
	// mid-stream error event (openrouter.ai/docs/api-reference/errors,
	// "Errors during streaming"); its status is OpenRouter's (502), the
	// upstream's own code in metadata.raw is not this request's.
	// OpenRouter's 404 when no provider can serve the request: none
	// supports what it asks for (tool use, cache control, the requested
	// output modalities) or the account's data policy allows none; the model
	// has no provider at all ("No endpoints found for <model>."). Replaying
	// finds the same providers; the user picks another model or setting.
	{id: "openrouter.no_endpoints_capability.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"no endpoints found that support", "no endpoints found matching your data policy"}},
	{id: "openrouter.no_endpoints_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.8,
		any: []string{"no endpoints found for "}},
	{id: "openrouter.mid_stream.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{"mid-stream error:"}},
	{id: "claude_code.repeated_overload.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.85,
		any: []string{"repeated server overload", "repeated 529 overloaded"}},
	{id: "generic.server_error_words.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{"server had an error while processing your request", "server had an error processing your request",
			"error occurred while processing your request", "vector_store_timeout"}},
	{id: "generic.rate_limit_words.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.8,
		any:   rateLimitWords,
		check: checkLongLimit,
		match: func(s *scan) int {
			if s.longLimit() {
				return -1
			}
			for _, w := range rateLimitWords {
				if i := s.index(w, false); i >= 0 {
					return i
				}
			}
			return -1
		}},

	// "Internal server error" as a final error's words (opencode's "Last
	// error: Internal server error"), never JSON-RPC's own "Internal error".
	{id: "generic.internal_server_error_text.v1", band: bandFallback, code: "server_error", class: ClassTransient, conf: 0.6,
		gate: []string{"internal server error", "internal error encountered", "an internal error has occurred"},
		match: func(s *scan) int {
			return s.errorText("internal server error", "internal error encountered", "an internal error has occurred")
		}},
	// The agent's session or loop ended under it; a new process resumes.
	{id: "agent.session_ended.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"session has ended", "agent loop died unexpectedly"}},

	// Codex's codex_error_info, read when the words said nothing more. Its
	// variants with an http_status_code serialize as objects
	// ({"response_stream_disconnected":{"http_status_code":null}}).
	{id: "codex.error_info.v1", band: bandGeneric, code: "network", class: ClassTransient, conf: 0.6,
		any: []string{`"codex_error_info":"http_connection_failed"`, `"codex_error_info":"response_stream_connection_failed"`,
			`"codex_error_info":"response_stream_disconnected"`, `"codex_error_info":{"http_connection_failed"`,
			`"codex_error_info":{"response_stream_connection_failed"`, `"codex_error_info":{"response_stream_disconnected"`}},
	// JSON-RPC 2.0 standard codes (the structure says what the text may not).
	{id: "jsonrpc.invalid_request.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.6,
		evidence: func(ev *Evidence) bool { return ev.HasRPCError && (ev.RPCCode == -32600 || ev.RPCCode == -32602) }},
	{id: "jsonrpc.method_not_found.v1", band: bandGeneric, code: "config", class: ClassUserAction, conf: 0.6,
		evidence: func(ev *Evidence) bool { return ev.HasRPCError && (ev.RPCCode == -32601 || ev.RPCCode == -32002) }},
	// The same code written into text by a client or wrapper that logged
	// the JSON-RPC error ("{\"code\":-32601,\"message\":\"Method not
	// found\"}", "(ACP -32601)"; catalogue jsonrpc-acp-method-text): the
	// agent does not offer the method it was asked for, whatever the words
	// around it. Bounded, so -326010 or a port is no code.
	{id: "jsonrpc.method_not_found_text.v1", band: bandGeneric, code: "config", class: ClassUserAction, conf: 0.6,
		gate: []string{"-32601"},
		match: func(s *scan) int {
			for off := 0; ; {
				i := strings.Index(s.low[off:], "-32601")
				if i < 0 {
					return -1
				}
				i += off
				end := i + len("-32601")
				if (i == 0 || !isDigit(s.low[i-1])) && (end == len(s.low) || !isDigit(s.low[end])) {
					return i
				}
				off = end
			}
		}},
	// A zod invalid_type issue on its own, as an ACP agent that validates
	// the client's request with zod returns it: Gemini CLI in ACP mode
	// answering a string protocolVersion with
	// {"expected":"number","code":"invalid_type","path":["protocolVersion"]}.
	// zod 4's $ZodIssueInvalidType is {code: "invalid_type", expected, path,
	// message} (colinhacks/zod@912f0f51 packages/zod/src/v4/core/errors.ts;
	// catalogue jsonrpc-acp zod-invalid-type-request): the request does not
	// fit the schema and a replay sends the same request. The AI SDK's
	// response validation ("Type validation failed: Value: … Error message:
	// [{"code":"invalid_type",…}]") checks what the provider sent back and
	// is not read here.
	{id: "zod.invalid_type_issue.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.55,
		gate: []string{`"code":"invalid_type"`},
		none: []string{"type validation failed", "typevalidationerror"},
		match: func(s *scan) int {
			i := strings.Index(s.low, `"code":"invalid_type"`)
			if i < 0 || !strings.Contains(s.low, `"expected":"`) || !strings.Contains(s.low, `"path":[`) {
				return -1
			}
			return i
		}},
	// Invalid params (-32602) and Invalid Request (-32600) written into
	// text by a client that logged the JSON-RPC error object as it got it:
	// codecompanion.nvim (acp/init.lua handle_rpc_message logs every error
	// but -32603 through vim.inspect: "[acp::handle_rpc_message] Error: {\n
	// code = -32602, …"), a JS console ("code: -32602"), raw JSON
	// ("\"code\":-32602"). The request itself is malformed (the ACP SDKs
	// send zod's validation as data), so the same request fails again.
	// Late, so words that say more (a session that is gone, a model) decide
	// first.
	{id: "jsonrpc.invalid_params_text.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.6,
		gate:  []string{"-32602", "-32600"},
		match: func(s *scan) int { return rpcCodeField(s.low, "-32602", "-32600") }},
	// ACP auth_required (-32000) when the message is about signing in.
	{id: "acp.auth_required_code.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		gate: []string{"auth", "subscription", "login", "sign in", "credential", "api key"},
		match: func(s *scan) int {
			if s.ev.HasRPCError && s.ev.RPCCode == -32000 {
				return 0
			}
			return -1
		}},
}

const checkRetriesOver = "the retries were over (the agent exited, a later error followed, or the turn ended in another error)"

// retriesOver: the agent's retry line at offset i is not the last word —
// the process exited, a later error line follows, or the turn ended in a
// JSON-RPC error whose own message is not the retry line.
func (s *scan) retriesOver(i int) bool {
	if s.ev.ExitStatus != "" || laterErrorAfterLine(s.low, i) {
		return true
	}
	return s.ev.HasRPCError && i >= s.rpcEnd
}

const checkErrorText = "not on an error line (prose, not an error)"

// errorText: the text at i is an error's own message (it came as a JSON-RPC
// error or with an error status), or stands on an error-shaped line.
func (s *scan) errorText(ks ...string) int {
	if s.ev.HasRPCError || s.ev.HTTPStatus >= 400 {
		for _, k := range ks {
			if i := strings.Index(s.low, k); i >= 0 {
				return i
			}
		}
		return -1
	}
	return errorLine(s.low, ks...)
}

// googleStatedDelay reads the wait a Google 429 states: the message's
// "Please retry in 58.93s." (Gemini API), Gemini CLI's "Suggested retry
// after 60s.", or RetryInfo's retryDelay ("58s"), the offset where it was
// found and the delay.
func googleStatedDelay(low string) (int, time.Duration, bool) {
	for _, k := range []string{"please retry in ", "suggested retry after "} {
		if i := strings.LastIndex(low, k); i >= 0 {
			if d, _, ok := parseHumanDuration(low[i+len(k):]); ok && d > 0 && d <= maxHint {
				return i, d, true
			}
		}
	}
	if i := strings.Index(low, "retrydelay"); i >= 0 {
		if v, ok := valueAfter(low[i:], "retrydelay"); ok {
			if d, _, ok := parseHumanDuration(v); ok && d > 0 && d <= maxHint {
				return i, d, true
			}
		}
	}
	return -1, 0, false
}

// rpcCodeField is the offset of one of the codes written as a JSON-RPC
// error's code field ("code = -32602" in a Lua inspect, "code: -32602",
// "\"code\":-32602", "\"code\": -32602"), bounded so that -326020 is no
// code, or -1.
func rpcCodeField(low string, codes ...string) int {
	for _, c := range codes {
		for off := 0; ; {
			i := strings.Index(low[off:], c)
			if i < 0 {
				break
			}
			i += off
			end := i + len(c)
			off = end
			if end < len(low) && isDigit(low[end]) {
				continue
			}
			pre := strings.TrimRight(low[max(0, i-10):i], " ")
			pre = strings.TrimRight(pre, ":=")
			pre = strings.TrimRight(pre, " ")
			if strings.HasSuffix(pre, "code") || strings.HasSuffix(pre, `"code"`) {
				return i
			}
		}
	}
	return -1
}

// zeroLimitAt is the offset of the first "limit: 0" (or "limit=0") in low
// that is a zero, not the start of 0.5 or 10, or -1.
func zeroLimitAt(low, word string) int {
	for off := 0; ; {
		i := strings.Index(low[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		if end == len(low) || !isDigit(low[end]) && low[end] != '.' {
			return i
		}
		off = end
	}
}

// rateLimitWords are generic.rate_limit_words.v1's: a rate limit said in
// words, by providers, gateways and retry loops.
var rateLimitWords = []string{"rate limit exceeded", "rate limit reached", "rate limiting our requests", "slow down", "slow_down",
	"have exceeded token rate limit", "exceeded call rate limit", "getting throttled",
	"would exceed the rate limit", "exceeded the request rate limit", "too many concurrent requests",
	"速率限制", "请求过于频繁",
	// new-api's rewrite of any upstream 429: "当前分组上游负载已饱和，请稍后再试"
	// (the group's upstreams are saturated; catalogue relays.jsonl
	// new-api-429-group-saturated).
	"上游负载已饱和",
	// OpenRouter's 429 for a model whose upstream is throttling
	// ("<model> is temporarily rate-limited upstream. Please retry
	// shortly, or add your own key to accumulate your rate limits:
	// …", metadata.raw of "Provider returned error"), which
	// clients pass on without its status or envelope (catalogue
	// openrouter openrouter-429-rate-limited-upstream-raw).
	"temporarily rate-limited upstream",
	// CLIProxyAPI's 429 when every credential for the model is in
	// its cooldown (sdk/cliproxy/auth/selector.go: {"error":{"code":
	// "model_cooldown","message":"All credentials for model … are
	// cooling down …","reset_seconds":N}}; the wait is the hint).
	"model_cooldown",
	// A retry loop's last words after every attempt met a 429:
	// Hermes Agent's "❌ Rate limit persisted after 3 retries. Please
	// try again later." (NousResearch/hermes-agent PR #3809, commit
	// ed6427e0a7), and the idiom of many clients' give-up errors
	// ("<service> rate limit persisted after N retries"). The window
	// the loop waited out is short; a later turn may pass (catalogue
	// agents-more hermes-rate-limit-persisted-after-retries).
	"rate limit persisted after ",
	// Strands Agents' warning when the OpenAI SDK raises
	// RateLimitError, just before it raises ModelThrottledException,
	// which its event loop retries ("OpenAI threw rate limit error",
	// "OpenAI Responses API threw rate limit error";
	// strands-agents/sdk-python src/strands/models/openai.py,
	// openai_responses.py), and hosts that print it as the agent's
	// error. Catalogue agent-sdks strands-openai-threw-rate-limit*.
	"threw rate limit error"}
