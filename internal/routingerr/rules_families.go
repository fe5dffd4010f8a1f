package routingerr

import (
	"strconv"
	"strings"
	"time"
)

// Word-family rules (issue 12, heldout4): where the earlier rules list an
// emitter's sentences, these read what the sentences share — a noun of one
// family next to a verb of another on the same line, an identifier shape,
// a retry counter — so a wrapper's or a relay's wording of the same failure
// needs no rule of its own. Each is tried after the emitter-specific rules
// of its band; every one decides catalogue rows of its own.

// nearWords finds, on one line, a noun of nouns with a verb of verbs at most
// before bytes before it or after bytes after it, and no stop word in that
// window. It returns the noun's offset, or -1. Each noun is looked for at
// most maxNear times, so a long tail costs a bounded number of windows.
func nearWords(low string, nouns, verbs, stops []string, before, after int) int {
	const maxNear = 32
	for _, n := range nouns {
		for off, tries := 0, 0; tries < maxNear; tries++ {
			j := strings.Index(low[off:], n)
			if j < 0 {
				break
			}
			i := off + j
			off = i + len(n)
			ls := strings.LastIndexByte(low[max(0, i-before):i], '\n')
			ws := max(0, i-before)
			if ls >= 0 {
				ws += ls + 1
			}
			we := min(len(low), off+after)
			if nl := strings.IndexByte(low[off:we], '\n'); nl >= 0 {
				we = off + nl
			}
			w := low[ws:we]
			if containsAny(w, verbs) && !containsAny(w, stops) {
				return i
			}
		}
	}
	return -1
}

func containsAny(s string, ks []string) bool {
	for _, k := range ks {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

var (
	// Context overflow: a context noun and an overflow verb on one line, in
	// any order — "Input length 6491 exceeds context length 1500", "n_keep
	// (15028) >= n_ctx (7424)", "loaded with context length of only 4096
	// tokens, which is not enough", "the request exceeds the available
	// context size". A rate or quota word on the line makes it a rate limit.
	contextNouns = []string{"context length", "context window", "context size", "context limit", "n_ctx",
		"maximum context", "max context", "configured limit of",
		// "Prompt tokens too long" (Baidu ModelBuilder's 336007 message).
		"prompt tokens",
		// "The request exceeds the model's maximum input length."
		"maximum input length", "max input length",
		// Copilot's "prompt token count of 74490 exceeds the limit of
		// 72000", whatever wraps the line before "token".
		"token count of"}
	contextVerbs = []string{"exceed", "overflow", "longer than", "greater than", "larger than", "more than",
		"too long", "too large", ">=", "not enough", "larger context", "shorter input"}
	contextStops = []string{"rate limit", "rate_limit", "per minute", "per_minute", "per day", "per_day", "quota",
		"tokens per min", "approaching"}

	// A rate limit said in any order and spelling: "Rate limit is exceeded",
	// "exceeded the call rate limit", "Ratelimit exceeded",
	// "[rate_limit_exceeded]", "hit the rate limit".
	// A per-minute limit by its unit too: "Tokens per minute limit exceeded"
	// (Cerebras), "request reached organization max RPM: 3" (Moonshot).
	// A throughput or concurrency cap by name: "Total API QPS limit
	// exceeded" (Baidu AppBuilder), "concurrency limit exceeded".
	rateNouns = []string{"rate limit", "ratelimit", "rate_limit", "per minute limit", "minute limit", "max rpm", "max tpm",
		"qps limit", "concurrency limit"}
	rateVerbs = []string{"exceed", "reached", " hit", "hit "}
	rateStops = []string{"approaching", "x-ratelimit", "per day", "daily", "tpd", "rpd"}
	// "Too many current requests", "too many pending requests".
	tooManyNouns = []string{"too many "}
	tooManyVerbs = []string{"current request", "pending request", "concurrent request", "simultaneous request",
		"parallel request", "active request", "in-flight request"}

	// Money the account lacks: "user quota is not enough"
	// (insufficient_user_quota), "token quota is not enough", "credit
	// balance is too low", 用户额度不足 ("user quota insufficient").
	fundNouns = []string{"quota", "balance", "credit", "funds", "额度", "余额"}
	fundVerbs = []string{"insufficient", "not enough", "too low", "不足"}
	fundStops = []string{"rate limit", "per minute", "per_minute"}
	// Billing said in words, with no status or type beside it: "There is an
	// issue with your account's billing." (Anthropic's 402 default), "Billing
	// hard limit has been reached" (OpenAI's billing_hard_limit_reached),
	// "Billing error" (Anthropic's billing_error as a wrapper prints it).
	billingNouns = []string{"billing"}
	// A billing account that cannot pay: "Billing account not active",
	// "billing is disabled" (Google's own words are google.billing_disabled.v1's).
	billingVerbs = []string{"issue with", "problem with", "hard limit", "billing error", "not active", "disabled"}
	// A spending cap the account set, reached: "You have reached your
	// spend limit", "Monthly spending limit exceeded", "Credit limit
	// exceeded". One that says when access returns is a window (reset).
	spendNouns = []string{"spending limit", "spend limit", "credit limit"}
	spendVerbs = []string{"reached", "exceeded", " hit"}
	spendStops = []string{"reset", "regain", "try again", "approaching"}
	// Credits the account has none of, or has used up: "Your newly created
	// team doesn't have any credits yet", "has either used all available
	// credits" (xAI). Not for a quota: "used all of your quota" is a window.
	creditNouns = []string{"credit", "funds", "balance"}
	creditVerbs = []string{"doesn't have any", "don't have any", "does not have any", "used all", "run out", "ran out",
		"out of", "no more", "no remaining"}
	// Credits said to be spent after the noun: "Extra Usage credits
	// exhausted. Top up to continue." (claude.ai's answer to a Claude Code
	// /ultrareview run), "AI credits exhausted. Top up …", "credits have been
	// depleted". A window that names its reset is a wait, not a payment.
	spentVerbs = []string{"exhausted", "depleted"}
	spentStops = []string{"rate limit", "per minute", "per_minute", "reset", "retry", "retrying"}

	// Access refused outright: "Access to the chat endpoint is denied"
	// (xAI), "Access terminated." (Kimi). A temporary block is a rate limit.
	// Google's canonical words for a suspended key or project: "Permission
	// denied: Consumer 'api_key:…' has been suspended."
	// An account shut off: "Your account has been suspended", "… has been
	// disabled", "This account has been deactivated"; a key likewise ("This
	// key has been disabled", "API key is revoked"), even behind a 429.
	denyNouns = []string{"access", "consumer '", "account has been", "account is", "key has been", "key is"}
	denyVerbs = []string{"denied", "terminated", "forbidden", "revoked", "suspended", "disabled", "deactivated", "banned"}
	denyStops = []string{"temporarily", "rate", "too many", "retry", "try again", "token"}

	// Where the request comes from, refused: "This model provider doesn't
	// serve your region" (Cursor), "This action isn't available in the
	// current Amazon Web Services Region" (AWS), "Model is not available in
	// region \"europe-west4\"". A hedge ("might not be available in your
	// country", beside a connection failure) or a wait is not that refusal.
	regionNouns = []string{"region", "country", "countries", "territory", "territories"}
	regionVerbs = []string{"not available", "isn't available", "isn’t available", "is not supported", "isn't supported",
		"not supported in", "doesn't serve", "doesn’t serve", "does not serve", "not served", "not offered"}
	regionStops = []string{"might not", "may not", "temporarily", "capacity", "try again", "retry", "overloaded", "busy",
		"at this time", "high demand"}

	// A request parameter out of the model's range: "max_tokens must be
	// less than or equal to 16384" (Groq), "max_tokens is too large"
	// (OpenAI).
	paramNouns = []string{"max_tokens", "max_output_tokens", "max_completion_tokens", "maxoutputtokens"}
	paramVerbs = []string{"must be", "less than or equal", "greater than", "exceed", "too large", "is too", "out of range"}
	paramStops = []string{"context", "input length"}

	// Load on the provider's side: "We're experiencing high traffic right
	// now!" (Cerebras), "due to heavy load".
	loadNouns = []string{"traffic", "demand", " load"}
	loadVerbs = []string{"high ", "heavy ", "increased "}

	// A model or deployment the provider does not have or will not serve:
	// "model 'llama2' not found", "The API deployment for this resource does
	// not exist", "DeploymentNotFound", "model_not_found", "You don't have
	// access to this model", "the model name is invalid".
	// The verb follows the noun ("model 'x' not found"), except for access,
	// which comes first ("don't have access to this model"): "'temperature'
	// is not supported with this model" is about a parameter.
	modelNouns = []string{"model", "deployment"}
	modelVerbs = []string{"not found", "not_found", "notfound", "does not exist", "is invalid", "not supported",
		"does not support",
		// Withheld from this account or plan: "the requested planning
		// model (claude-3-5-sonnet) is not allowed for your account"
		// (Warp), "is not available for your account", "… with your
		// current plan". Not "the model is not allowed to …" (a policy).
		"not allowed for your", "not allowed for this", "not allowed with your", "not available for your",
		"not enabled for your",
		// Retired: "The model `text-davinci-003` has been deprecated"
		// (OpenAI's model_not_found for a removed model).
		"has been deprecated", "has been retired", "has been decommissioned", "name is not valid"}
	accessVerbs = []string{"don't have access", "do not have access", "no access", "not allowed to use",
		// "Your organization does not have access to this model".
		"doesn't have access", "does not have access", "not authorized to use",
		// A pool with no account on a plan that serves the model (codex-lb's
		// NO_PLAN_SUPPORT_FOR_MODEL: "No accounts with a plan supporting
		// model '<model>'"): another model or plan, not a replay.
		"with a plan supporting"}
	modelStops = []string{"try again", "later", "temporarily", "currently", "overloaded", "capacity", "busy",
		"output", "response", "json", "content", "retry", "quota", "rate limit", "context", "parameter"}
	// A local model without tool calling (Ollama: "<name> does not support
	// tools"); the agent needs tools, so another model is the fix.
	noToolWords = []string{"does not support tools", "doesn't support tools", "does not support tool use",
		"does not support function calling", "tools is not supported", "tool use is not supported"}

	// Snake-case error codes that name a server-side failure, in any
	// wrapping: Zed's "code: internal_server_error", a relay's
	// "service_unavailable".
	serverErrorCodes = []string{"internal_server_error", "service_unavailable", "bad_gateway", "gateway_timeout"}

	// The local host cannot hold the model (Ollama's "model requires more
	// system memory (5.3 GiB) than is available (4.4 GiB)", a CUDA
	// allocation): a smaller model or freed memory, not a replay.
	memoryWords = []string{"requires more system memory", "not enough memory", "insufficient memory",
		"cudamalloc failed: out of memory", "cuda out of memory", "failed to allocate memory",
		// Ollama's runner that died mid-stream ("llama runner exited, you
		// may not have enough available memory to run this model", llm/
		// llama.go Predict on an unexpected EOF, as quoted "… enough memory
		// to run the model").
		"llama runner exited, you may not have enough"}
)

// The verbs are keywords too, so a text without any of a family's verbs
// (a debug log full of "model=") costs the family a few bit tests.
var (
	contextVerbKWs = newKWs(contextVerbs)
	rateVerbKWs    = newKWs(rateVerbs, tooManyVerbs...)
	fundVerbKWs    = newKWs(fundVerbs)
	modelVerbKWs   = newKWs(slicesClone(modelVerbs), accessVerbs...)
	creditVerbKWs  = newKWs(creditVerbs)
	spentVerbKWs   = newKWs(spentVerbs)
	billingVerbKWs = newKWs(billingVerbs, spendVerbs...)
	denyVerbKWs    = newKWs(denyVerbs)
	regionVerbKWs  = newKWs(regionVerbs)
	paramVerbKWs   = newKWs(paramVerbs)
	loadVerbKWs    = newKWs(loadVerbs)
)

func newKWs(ws []string, more ...string) []*kw {
	var out []*kw
	for _, w := range append(ws, more...) {
		out = append(out, newKW(w))
	}
	return out
}

func (s *scan) hasAnyKW(ks []*kw) bool {
	for _, k := range ks {
		if s.hasKW(k) {
			return true
		}
	}
	return false
}

var familyRules = []rule{
	// A wrapper's own retry notice: "Retrying <fn> in 4.0 seconds as it
	// raised …" (tenacity's before_sleep_log), "API call failed (attempt
	// 1/3): …" (hermes), "Retrying in 0.5 seconds..." (aider): the caller is
	// still retrying. The last notice counts; lines indented under it are
	// its detail, a later error at its own depth ends it.
	{id: "generic.retry_notice.v2", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.75,
		gate:  []string{"retrying", "attempt ", "backing off ", "retry "},
		check: checkRetriesOver,
		match: func(s *scan) int {
			i, _ := s.lastRetryNotice()
			if i < 0 || s.noticeOver(i) {
				return -1
			}
			return i
		},
		hint: func(s *scan, c Classification) Classification {
			if _, d := s.lastRetryNotice(); d > 0 && d <= maxHint {
				c.RetryAfter = new(d)
			}
			return c
		}},

	{id: "generic.context_family.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.8,
		gate: contextNouns,
		match: func(s *scan) int {
			if !s.hasAnyKW(contextVerbKWs) {
				return -1
			}
			return nearWords(s.low, contextNouns, contextVerbs, contextStops, 64, 96)
		}},
	// "The conversation is too long for this model. Try /undo to remove
	// recent turns or /new to start fresh." (autohand's context_overflow
	// message, autohandai/code-cli src/providers/errors.ts
	// FRIENDLY_MESSAGES) and the same sentence in other hosts' words ("Your
	// conversation is too long. Please try creating a new conversation …",
	// "This conversation is too long. Please start a new chat."): the
	// history no longer fits, so the same request is refused again until it
	// is shortened or a new conversation starts.
	{id: "generic.conversation_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.8,
		any: []string{"conversation is too long"}},

	{id: "local.insufficient_memory.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: memoryWords},
	{id: "generic.funds_family.v2", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.8,
		gate: append([]string{"欠费", "请充值", "billing", "spending limit", "spend limit", "credit limit"}, fundNouns...),
		match: func(s *scan) int {
			if s.hasAnyKW(fundVerbKWs) {
				if i := nearWords(s.low, fundNouns, fundVerbs, fundStops, 24, 32); i >= 0 {
					return i
				}
			}
			if s.hasAnyKW(creditVerbKWs) {
				if i := nearWords(s.low, creditNouns, creditVerbs, fundStops, 40, 0); i >= 0 {
					return i
				}
			}
			if s.hasAnyKW(spentVerbKWs) {
				if i := nearWords(s.low, creditNouns, spentVerbs, spentStops, 0, 24); i >= 0 {
					return i
				}
			}
			// Only where no status or error type says it first (those
			// are http.billing.402.v1's and anthropic.billing_error.v1's).
			if st, _ := s.httpStatus(); st == 0 && s.hasAnyKW(billingVerbKWs) && !strings.Contains(s.low, "billing_error") {
				if i := nearWords(s.low, billingNouns, billingVerbs, fundStops, 32, 24); i >= 0 {
					return i
				}
				if i := nearWords(s.low, spendNouns, spendVerbs, spendStops, 24, 24); i >= 0 {
					return i
				}
			}
			if i := s.index("欠费", false); i >= 0 {
				return i
			}
			return s.index("请充值", false)
		}},
	{id: "generic.access_denied_family.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.75,
		gate: denyNouns,
		match: func(s *scan) int {
			if !s.hasAnyKW(denyVerbKWs) {
				return -1
			}
			return nearWords(s.low, denyNouns, denyVerbs, denyStops, 0, 40)
		}},
	{id: "generic.region_family.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.75,
		gate: regionNouns,
		match: func(s *scan) int {
			if !s.hasAnyKW(regionVerbKWs) {
				return -1
			}
			return nearWords(s.low, regionNouns, regionVerbs, regionStops, 64, 24)
		}},
	{id: "generic.max_tokens_param.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.75,
		gate: paramNouns,
		match: func(s *scan) int {
			if !s.hasAnyKW(paramVerbKWs) {
				return -1
			}
			return nearWords(s.low, paramNouns, paramVerbs, paramStops, 0, 48)
		}},
	{id: "generic.model_family.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.8,
		gate: append(slicesClone(noToolWords), modelNouns...),
		match: func(s *scan) int {
			for _, k := range noToolWords {
				if i := s.index(k, false); i >= 0 {
					return i
				}
			}
			if !s.hasAnyKW(modelVerbKWs) {
				return -1
			}
			if i := nearWords(s.low, modelNouns, modelVerbs, modelStops, 0, 64); i >= 0 {
				return i
			}
			return nearWords(s.low, modelNouns, accessVerbs, modelStops, 32, 0)
		}},
	// After the model family, which reads the lines that say "model".
	{id: "generic.retired_family.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.7,
		gate:  retiredWords,
		match: func(s *scan) int { return retiredAt(s.low) }},

	{id: "generic.rate_limit_family.v2", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.75,
		gate: append(slicesClone(rateNouns), tooManyNouns...),
		match: func(s *scan) int {
			if !s.hasAnyKW(rateVerbKWs) || s.longLimit() {
				return -1
			}
			if i := nearWords(s.low, rateNouns, rateVerbs, rateStops, 40, 40); i >= 0 {
				return i
			}
			return nearWords(s.low, tooManyNouns, tooManyVerbs, rateStops, 0, 24)
		}},
	// Load on the provider's side, on an error line.
	{id: "generic.load_family.v1", band: bandTransient, code: "capacity", class: ClassTransient, conf: 0.7,
		gate:  append(slicesClone(loadNouns), "queue position"),
		check: checkErrorText,
		match: func(s *scan) int {
			if i := s.index("queue position", false); i >= 0 {
				return i
			}
			if !s.hasAnyKW(loadVerbKWs) {
				return -1
			}
			i := nearWords(s.low, loadNouns, loadVerbs, nil, 16, 0)
			if i < 0 {
				return -1
			}
			if l := lineOf(s.low, i); !s.ev.HasRPCError && s.ev.HTTPStatus < 400 && !isErrorShaped(l) && !strings.Contains(l, "try again") {
				return -1
			}
			return i
		}},

	{id: "generic.server_error_code.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.7,
		gate:  serverErrorCodes,
		match: func(s *scan) int { return anyBounded(s.low, serverErrorCodes...) }},
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// lastRetryNotice finds the last retry notice in low: "retrying" with a
// delay after " in " later on its line, or an attempt counter "attempt N/M"
// (or "N of M") with N < M on a line that says it failed or retries. It
// returns the notice's offset and the stated delay (0 when none), or -1.
// A line that says the retries are over is no notice. Occurrences are read
// from the end, at most maxNotices of each word, in windows of their line,
// so a tail full of them costs a bounded amount.
// kwRetryNoun and kwBackingOff gate the scans for the noun's and the
// backoff library's notices, so text without them costs no extra pass.
var (
	kwRetryNoun  = newKW("retry ")
	kwBackingOff = newKW("backing off ")
)

func (s *scan) lastRetryNotice() (int, time.Duration) {
	low := s.low
	const maxNotices = 16
	best, delay := -1, time.Duration(0)
	// A failure summary ("All providers/models failed. Attempts:\nprovider=…
	// attempt 1/3: …") is the final error: every attempt in it, and any
	// notice before it, is history.
	for _, w := range aggregateWords {
		if strings.Contains(low, w) {
			return -1, 0
		}
	}
	for end, n := len(low), 0; n < maxNotices; n++ {
		i := strings.LastIndex(low[:end], "retrying")
		if i < 0 {
			break
		}
		end = i
		after := lineWindow(low, i, 0, 200)
		if retriesEndWords(lineWindow(low, i, 80, 200)) {
			continue
		}
		// httpx-retries' debug log when it retries ("_retry_operation
		// retrying request=<Request('POST', …)> response=<Response [429 Too
		// Many Requests]> retry=<Retry(total=3, attempts_made=0)>",
		// httpx_retries/transport.py, logged only with a retry to come),
		// then Retry.sleep's "sleep seconds=1.5" (retry.py): the wait.
		if strings.HasPrefix(after, "retrying request=") {
			d, _ := secondsField(low[i:min(len(low), i+1200)], "sleep seconds=")
			best, delay = i, d
			break
		}
		// go-retryablehttp's leveled log before it sleeps ("retrying
		// request", "request", desc, "timeout", wait, "remaining", remain;
		// client.go Do), as hclog or slog print it: `[DEBUG] retrying
		// request: request="POST <url> (status: 503)" timeout=4s
		// remaining=2`. It is only logged with retries left.
		if strings.HasPrefix(after, "retrying request") {
			if l := lineWindow(low, i, 0, 600); retryablehttpRemaining(l) {
				d, _ := delayAfter(l, " timeout=")
				best, delay = i, d
				break
			}
		}
		// google-api-core's Retry before it sleeps (googleapis/python-api-core
		// google/api_core/retry/retry_base.py _retry_error_helper, earlier
		// retry.py retry_target): "Retrying due to <exc>, sleeping 1.3s
		// ...". The exception may run past the window, so the wait is the
		// last ", sleeping <d> ..." on the line.
		// aiohttp_retry's debug line before its sleep, logged only with
		// attempts left (aiohttp_retry/client.py _RequestContext._do_request:
		// f"Retrying after response code: {response.status}", f"Retrying
		// after exception: {e!r}", then asyncio.sleep(retry_wait)).
		// SWE-agent's tenacity hook (SWE-agent/SWE-agent
		// sweagent/agent/models.py LiteLLMModel.query retry_warning,
		// before_sleep): "Retrying LM query: attempt 1 (slept for 10.53s)
		// due to RateLimitError: …". The time it names is all the sleep so
		// far, not the next wait, so no hint.
		if sleptForAttempt(after) {
			best = i
			break
		}
		if strings.HasPrefix(after, "retrying after response code: ") || strings.HasPrefix(after, "retrying after exception: ") {
			best = i
			break
		}
		if strings.HasPrefix(after, "retrying due to ") {
			if d, ok := sleepingTail(lineWindow(low, i, 0, 2000)); ok {
				best, delay = i, d
				break
			}
		}
		// IronClaw's retry decorator before it sleeps (nearai/ironclaw
		// crates/domains/ironclaw_llm/src/retry.rs RetryProvider retry_loop
		// and streaming_retry_loop: tracing::warn! "Retrying after transient
		// error{label}" or "Retrying interrupted stream with partial-text
		// replacement{label}" with provider=, attempt=, max_retries=,
		// delay_ms=, error= fields, logged only when another attempt
		// follows): the wait is the delay_ms field, in milliseconds. The
		// record needs that field: the words alone are prose.
		if strings.HasPrefix(after, "retrying after transient error") ||
			strings.HasPrefix(after, "retrying interrupted stream with partial-text replacement") {
			if d, ok := millisField(lineWindow(low, i, 0, 400), " delay_ms="); ok {
				best, delay = i, d
				break
			}
		}
		if d, ok := delayAfter(after, " in ", " after ", "backoff=", "backoff: ", "delay=", ", waiting "); ok {
			best, delay = i, d
			break
		}
		// The wait as the line's last field after its attempt counter:
		// Kimi CLI's step retry status, "Retrying after rate limit ·
		// attempt 2/3 · 4s" (src/kimi_cli/ui/shell/visualize/_live_view.py
		// _format_step_retry; web/src/hooks/useSessionStream.ts).
		if d, ok := lastFieldDelay(after); ok && strings.Contains(after, "attempt ") {
			best, delay = i, d
			break
		}
		// The bare notice that ends its line: the countdown's last step,
		// "Retrying now..." (Roo Code's attemptApiRequest: "Retry attempt
		// 2\nRetrying now..." after "Retrying in 4 seconds..."), and "…
		// Retrying..." after the agent's own mistake ("Roo tried to use an
		// unknown tool: \"x\". Retrying..."): the next attempt is starting.
		// Not "retrying now is pointless", not a sentence ending "retrying.",
		// and only as the text's last line: a line after it ("Failed to get
		// response from the AI model; retried 5 times") is the outcome.
		//
		// The same after the cause it names, "<what happened>; retrying" as
		// the last line: Cline's SDK, "Model returned an empty response;
		// retrying", "Transient network interruption before any model
		// output; retrying" (cline/cline sdk/packages/llms/src/providers/
		// middleware/retry-empty-response.ts, logged before the next attempt),
		// and with the other separators a status line sets the cause off by
		// (the Stainless SDKs' "… in 412ms - retrying, 2 attempts remaining";
		// "Connection dropped (ECONNRESET) - Retrying" as users quote Claude
		// Code's "· Retrying in 0s · attempt 1/10").
		if (bareRetryNotice(after[len("retrying"):]) || causeBefore(low[:i]) && strings.Trim(after[len("retrying"):], ".…! \r") == "") &&
			strings.TrimSpace(low[i+len(after):]) == "" {
			best = i
			break
		}
		// The Stainless Python SDKs' (openai, anthropic) retry log,
		// _base_client.py: "Retrying request to %s in %f seconds" — its
		// delay may be out of reach behind a long or mangled URL.
		if strings.HasPrefix(after, "retrying after backoff") || strings.HasPrefix(after, "retrying with backoff") ||
			strings.HasPrefix(after, "retrying request to ") {
			best = i
			break
		}
		if attemptCounter(after) {
			best = i
			break
		}
		// LiteLLM's Router once a call failed and retries are left
		// (BerriAI/litellm litellm/router.py async_function_with_retries:
		// verbose_router_logger.info(f"Retrying request with num_retries:
		// {num_retries}"), logged only when num_retries > 0, then the sleep
		// and the attempts): "Retrying request with num_retries: 3".
		if retriesLeftField(after, "retrying request with num_retries: ") {
			best = i
			break
		}
		// Instructor's debug line as each tenacity attempt starts
		// (jxnl/instructor instructor/retry.py retry_async, later
		// instructor/core/retry.py retry_sync too: logger.debug(f"Retrying, attempt:
		// {attempt.retry_state.attempt_number}")): the first attempt says 1
		// too, so only from 2 on is it a retry under way.
		if r, ok := strings.CutPrefix(after, "retrying, attempt: "); ok {
			if n, j := leadingInt(r); j > 0 && n >= 2 && strings.TrimRight(r[j:], " \r") == "" {
				best = i
				break
			}
		}
		// A counter after the verb: "Retrying... (1/3)", "Retrying request...
		// (2/3)", "…, retrying (1/3)": the n-th of m retries is under way.
		// A structured log's message that ends in "retrying", then its
		// fields: buzz-agent's tracing::warn!(attempt, max_attempts, %status,
		// "llm: retryable status, retrying"), which tracing's fmt layer
		// prints as "WARN buzz_agent::llm: llm: retryable status, retrying
		// attempt=1 max_attempts=3 status=429 Too Many Requests" (block/buzz
		// crates/buzz-agent/src/llm.rs post, logged only while attempt+1 <
		// MAX_RETRIES, before backoff_with_jitter).
		if d, ok := retryFields(after[len("retrying"):]); ok {
			best, delay = i, d
			break
		}
		if retryCounter(after[len("retrying"):]) {
			best = i
			break
		}
		// urllib3's Retry: "Retrying (Retry(total=2, connect=None, …)) after
		// connection broken by 'NewConnectionError(…)': /v1/chat/completions"
		// (urllib3 connectionpool.urlopen): retries are left.
		if strings.HasPrefix(after, "retrying (retry(total=") {
			best = i
			break
		}
		// The Stainless SDKs' debug log (anthropic-sdk-typescript,
		// openai-node client.ts): "… failed with status 529 in 412ms -
		// retrying, 2 attempts remaining"; "error; no more retries left" when
		// none are.
		if rest, ok := strings.CutPrefix(after, "retrying, "); ok && attemptsRemaining(rest) {
			best = i
			break
		}
	}
	// "retry 2/5 after error: …", "[retry 1/3] 503 …": the noun with its
	// counter; "will retry in 10 seconds": the future, with its delay. Not
	// "Please retry in 39.8s" (a provider's hint) or "you can retry your
	// request".
	for end, n := len(low), 0; n < maxNotices && s.hasKW(kwRetryNoun); n++ {
		j := strings.LastIndex(low[:end], "retry ")
		if j <= best {
			break
		}
		end = j
		if j > 0 && isLetter(low[j-1]) {
			continue
		}
		rest := lineWindow(low, j+len("retry "), 0, 60)
		if retriesEndWords(lineWindow(low, j, 80, 200)) {
			continue
		}
		// aider's backoff notice, a line of its own under the error it
		// retries (aider 0.5–0.8 on_backoff: "Retry in {wait} seconds.";
		// 0.10–0.50 sendchat.py: "{exception}\nRetry in {wait:.1f}
		// seconds."): the line is the verb and its delay and nothing else.
		// Not "Please retry in 39.8s." or "… Retry in 20 seconds or contact
		// support": a provider's hint inside its message.
		if d, ok := retryInLine(low, j, rest); ok {
			best, delay = j, d
			break
		}
		if leadingCounter(rest, true) {
			// The wait it states after the cause: "⟳ Retry 1/10 after
			// UND_ERR_SOCKET: fetch failed, waiting 930ms" (a VS Code chat
			// provider's log; heldout22), or right after the counter: gh-aw's
			// Copilot CLI driver, "[copilot-driver] <ts> retry 1/3: sleeping
			// 5000ms before next attempt with --resume" (githubnext/gh-aw
			// actions/setup/js/copilot_driver.cjs main, logged before its
			// sleep).
			d, _ := delayAfter(lineWindow(low, j, 0, 200), ", waiting ", ": sleeping ")
			best, delay = j, d
			break
		}
		// The last retry of its count still under way when the line states
		// the wait before it ("⟳ Retry 3/3 after HTTP 502, waiting 1s"): a
		// wait is only announced for an attempt that follows.
		if leadingCounter(rest, false) {
			if d, ok := delayAfter(lineWindow(low, j, 0, 200), ", waiting "); ok {
				best, delay = j, d
				break
			}
		}
		// bespokelabs curator's online request processor, logged only when
		// a failed request goes back on its queue with attempts left
		// (bespokelabsai/curator@26e49ac50850
		// src/bespokelabs/curator/request_processor/base_online_request_processor.py
		// handle_single_request_with_retries: "Adding request {id} to retry
		// queue. Will retry in next available slot. Attempts remaining:
		// {n}"; the last attempt's failure is "failed permanently after
		// exhausting all 5 retry attempts" instead). No wait is named.
		if strings.HasSuffix(low[:j], "to retry queue. will ") && strings.HasPrefix(rest, "in next available slot") {
			best = j
			break
		}
		if strings.HasSuffix(low[:j], "will ") && strings.HasPrefix(rest, "in ") {
			if d, ok := delayAfter(rest, "in "); ok {
				best, delay = j, d
				break
			}
		}
	}
	// Python's backoff library: "Backing off chat(...) for 0.8s
	// (openai.RateLimitError: …)" (backoff _common._log_backoff): it sleeps,
	// then calls again.
	// goose's own retry: "Request failed, retrying (1/3): RateLimitExceeded
	// {…}", then "Backing off for 1.634s before retry" (block/goose
	// crates/goose/src/providers/retry.rs with_retry, tracing's Debug of
	// the Duration): the wait it sleeps before the attempt.
	if s.hasKW(kwBackingOff) {
		if j := strings.LastIndex(low, "backing off "); j > best {
			l := lineWindow(low, j, 0, 200)
			if d, ok := delayAfter(l, ") for "); ok {
				best, delay = j, d
			} else if r, ok := strings.CutPrefix(l, "backing off for "); ok {
				if d, n, ok := parseHumanDuration(r); ok && d > 0 && d <= maxHint && strings.HasPrefix(r[n:], " before retr") {
					best, delay = j, d
				}
			}
		}
	}
	for end, n := len(low), 0; n < maxNotices; n++ {
		i := strings.LastIndex(low[:end], "attempt ")
		if i <= best {
			break
		}
		end = i
		// The counter on the notice's own line after its delay: "Retrying
		// LLM API call (attempt 1/3) after 1000ms delay" is the notice read
		// above, with its delay.
		if best >= 0 && delay > 0 && strings.IndexByte(low[best:i], '\n') < 0 {
			break
		}
		// The .NET client pipeline's retry event (System.ClientModel
		// ClientRetryPolicy, used by the OpenAI .NET SDK, and Azure.Core's
		// RetryPolicy): "Request [<id>] attempt number 2 took 01.3s", logged
		// after the wait, as the next attempt goes out (RetryCount++, then
		// LogRequestRetrying and continue). What it took is the attempt's
		// time, no wait.
		if pipelineRetrying(low, i) || laterAttemptStarts(lineFrom(low, i)) || retriesLeftAfterFailure(lineFrom(low, i)) {
			return i, 0
		}
		if !attemptCounter(lineWindow(low, i, 0, 24)) {
			continue
		}
		l := lineWindow(low, i, 120, 200)
		if retriesEndWords(l) || !containsAny(l, []string{"fail", "error", "retry"}) {
			continue
		}
		// Claude Code logs every failed attempt, "API error (attempt 1/11):
		// 403 <message>", before it decides (withRetry, 2.1.229 binary); a
		// 4xx other than 408, 409 and 429 it then throws, so the counter is
		// the record of the attempt that ended the turn, not a retry.
		if strings.HasSuffix(low[:i], "api error (") {
			if j, ok := attemptLogStatusAt(low, i); ok {
				if st, ok := statusAt(low, j); ok && st >= 400 && st < 500 && st != 408 && st != 409 && st != 429 {
					continue
				}
			}
		}
		// The wait named after the counter: Gemini CLI's "Network retry
		// attempt 2/3 for gemini-2.5-pro. Delay: 2000ms. Error type: …"
		// (packages/core/src/telemetry/types.ts NetworkRetryAttemptEvent),
		// and the wait closing the counter's line as the retry-noun notices
		// state it: SeekerClaw's "[Retry] Claude API 429, attempt 1/3,
		// waiting 5000ms" (sepivip/SeekerClaw PR #6 claudeApiCall; later
		// "retry 1/3, waiting …", read above).
		d, _ := delayAfter(lineFrom(low, i), ". delay: ", ", waiting ")
		return i, d
	}
	return best, delay
}

// sleptForAttempt: s, the line from "retrying", holds ": attempt <n>
// (slept for <d>" within its first 80 bytes: "retrying lm query: attempt 2
// (slept for 31.20s) due to …".
func sleptForAttempt(s string) bool {
	w := s[:min(len(s), 80)]
	k := strings.Index(w, ": attempt ")
	if k < 0 {
		return false
	}
	r := s[k+len(": attempt "):]
	n, j := leadingInt(r)
	if j == 0 || n < 1 {
		return false
	}
	r, ok := strings.CutPrefix(r[j:], " (slept for ")
	if !ok {
		return false
	}
	_, _, ok = parseHumanDuration(r)
	return ok
}

// laterAttemptStarts: line is aiohttp_retry's "attempt N out of M" and
// nothing else, with 2 <= N <= M: logged as each attempt starts
// (aiohttp_retry/client.py _do_request: f"Attempt {current_attempt+1} out
// of {attempts}"), so from the second on a retry is under way.
func laterAttemptStarts(line string) bool {
	r, ok := strings.CutPrefix(line, "attempt ")
	if !ok {
		return false
	}
	n, j := leadingInt(r)
	if j == 0 || n < 2 {
		return false
	}
	r, ok = strings.CutPrefix(r[j:], " out of ")
	if !ok {
		return false
	}
	m, k := leadingInt(r)
	return k > 0 && n <= m && strings.TrimRight(r[k:], " \r") == ""
}

// retriesLeftAfterFailure: line is p-retry's onFailedAttempt log, "attempt
// N failed. K retries left." with K >= 1 (sindresorhus/p-retry readme:
// `Attempt ${attemptNumber} failed. ${retriesLeft} retries left. …`, earlier
// "There are ${retriesLeft} retries left."), or another loop's "attempt N
// failed: <error> …" that counts the retries left on its line ("2 retries
// remaining", "retriesRemaining=3", "retries left: 2"; gh-aw's Claude
// harness logs "[claude-harness] attempt 1 failed: … retriesRemaining=3"):
// a retry follows.
func retriesLeftAfterFailure(line string) bool {
	r, ok := strings.CutPrefix(line, "attempt ")
	if !ok {
		return false
	}
	n, j := leadingInt(r)
	if j == 0 || n < 1 {
		return false
	}
	r, ok = strings.CutPrefix(r[j:], " failed")
	if !ok {
		return false
	}
	if p, ok := strings.CutPrefix(r, ". "); ok {
		p = strings.TrimPrefix(p, "there are ")
		if k, m := leadingInt(p); m > 0 && (strings.HasPrefix(p[m:], " retries left") || strings.HasPrefix(p[m:], " retry left")) {
			return k >= 1
		}
	}
	k, ok := retriesLeftCount(r)
	return ok && k >= 1
}

// retriesLeftCount is the count of retries left that s states last: "K
// retries left", "K retries remaining", "retries remaining: K", "retries
// left: K", "retriesremaining=K", "retries_remaining=K".
func retriesLeftCount(s string) (int, bool) {
	best, found, at := 0, false, -1
	for _, w := range []string{" retries left", " retry left", " retries remaining", " retry remaining"} {
		if i := strings.LastIndex(s, w); i > at {
			j := i
			for j > 0 && isDigit(s[j-1]) {
				j--
			}
			if j < i && (j == 0 || !isAlnum(s[j-1])) {
				k, _ := leadingInt(s[j:i])
				best, found, at = k, true, i
			}
		}
	}
	for _, w := range []string{"retries remaining:", "retries left:", "retriesremaining=", "retries_remaining=", "remaining retries:"} {
		if i := strings.LastIndex(s, w); i > at {
			r := strings.TrimLeft(s[i+len(w):], " ")
			if k, m := leadingInt(r); m > 0 {
				best, found, at = k, true, i
			}
		}
	}
	return best, found
}

// pipelineRetrying: the "attempt " at i is the .NET pipeline's "request
// [<id>] attempt number <n> took <d>s", the whole line.
func pipelineRetrying(low string, i int) bool {
	head := strings.TrimLeft(lineWindow(low, i, 200, 0), " \t")
	if !strings.HasPrefix(head, "request [") || !strings.HasSuffix(head, "] ") {
		return false
	}
	r, ok := strings.CutPrefix(lineFrom(low, i), "attempt number ")
	if !ok {
		return false
	}
	n, j := leadingInt(r)
	if j == 0 || n < 1 {
		return false
	}
	r, ok = strings.CutPrefix(r[j:], " took ")
	if !ok {
		return false
	}
	_, m, ok := parseHumanDuration(r)
	return ok && strings.TrimRight(r[m:], " \r") == ""
}

// sleepingTail reads the wait of a line that ends ", sleeping <d> ...":
// google-api-core's "Retrying due to 503 Service Unavailable, sleeping 1.3s
// ...".
func sleepingTail(line string) (time.Duration, bool) {
	k := strings.LastIndex(line, ", sleeping ")
	if k < 0 {
		return 0, false
	}
	r := line[k+len(", sleeping "):]
	d, n, ok := parseHumanDuration(r)
	if !ok || d <= 0 || d > maxHint || strings.Trim(r[n:], ".… \r") != "" {
		return 0, false
	}
	return d, true
}

// retriesLeftField: line s opens with key and a count of retries left, at
// least 1, ended by the line's end or a stop: "retrying request with
// num_retries: 3".
func retriesLeftField(s, key string) bool {
	r, ok := strings.CutPrefix(s, key)
	if !ok {
		return false
	}
	n, j := leadingInt(r)
	return j > 0 && n >= 1 && strings.Trim(r[j:], ".…! \r") == ""
}

// secondsField reads the number of seconds after key in s ("sleep
// seconds=1.5", "wait_for=0.84", `"wait_for": 0.84`), a plain number with
// no unit.
func secondsField(s, key string) (time.Duration, bool) {
	k := strings.Index(s, key)
	if k < 0 {
		return 0, false
	}
	r := strings.TrimLeft(s[k+len(key):], " ")
	j := 0
	for j < len(r) && j < 16 && (isDigit(r[j]) || r[j] == '.') {
		j++
	}
	f, err := strconv.ParseFloat(r[:j], 64)
	if err != nil || f <= 0 || f > maxHint.Seconds() {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// millisField reads the whole milliseconds after key in s ("delay_ms=4816"),
// within the hint bounds.
func millisField(s, key string) (time.Duration, bool) {
	k := strings.Index(s, key)
	if k < 0 {
		return 0, false
	}
	n, j := leadingInt(s[k+len(key):])
	if j == 0 || n <= 0 || time.Duration(n)*time.Millisecond > maxHint {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

// retryablehttpRemaining: line carries go-retryablehttp's " remaining=N"
// field with N >= 1 after a " timeout=" one.
func retryablehttpRemaining(line string) bool {
	t := strings.Index(line, " timeout=")
	k := strings.LastIndex(line, " remaining=")
	if t < 0 || k < t {
		return false
	}
	n, j := leadingInt(line[k+len(" remaining="):])
	return j > 0 && n >= 1
}

// lastFieldDelay: the last " · " field of line s is a duration and nothing
// else: "… · attempt 2/3 · 4s", "… · 1m 30s".
func lastFieldDelay(s string) (time.Duration, bool) {
	k := strings.LastIndex(s, " · ")
	if k < 0 {
		return 0, false
	}
	f := strings.TrimRight(s[k+len(" · "):], " \r")
	d, n, ok := parseHumanDuration(f)
	if !ok || d <= 0 || d > maxHint || n != len(f) {
		return 0, false
	}
	return d, true
}

// retryInLine: the "retry " at j opens its line (blanks aside) and rest,
// the line after it, is "in <duration>" ended by a stop and nothing else:
// "Retry in 0.5 seconds.". It returns the duration.
func retryInLine(low string, j int, rest string) (time.Duration, bool) {
	r, ok := strings.CutPrefix(rest, "in ")
	if !ok {
		return 0, false
	}
	if strings.TrimLeft(low[strings.LastIndexByte(low[:j], '\n')+1:j], " \t") != "" {
		return 0, false
	}
	d, n, ok := parseHumanDuration(r)
	if !ok || d <= 0 || strings.Trim(r[n:], ".…! \r") != "" {
		return 0, false
	}
	return d, true
}

// bareRetryNotice: s, the words after "retrying" to the end of the line,
// is " now" or an ellipsis, and nothing else but stops: "Retrying now...",
// "Retrying...", "Retrying…".
//
// " request" may name what is retried: Gemini CLI's "Loop detection has been
// disabled for this session. Retrying request..." (packages/cli/src/ui/hooks/
// useGeminiStream.ts, before it sends the turn again).
// causeBefore: s, the text before a bare "retrying", ends with the
// separator after a cause: "; ", ", ", ". ", " - ", " – " or " — ".
func causeBefore(s string) bool {
	for _, sep := range []string{"; ", ", ", ". ", " - ", " – ", " — "} {
		if strings.HasSuffix(s, sep) && len(s) > len(sep) {
			return true
		}
	}
	return false
}

func bareRetryNotice(s string) bool {
	rest, now := strings.CutPrefix(strings.TrimPrefix(s, " request"), " now")
	if strings.Trim(rest, ".…! ") != "" {
		return false
	}
	return now || strings.Contains(rest, "..") || strings.Contains(rest, "…")
}

// retryFields: s, the words after a log message's closing "retrying", is
// its key=value fields (after an ellipsis or the message's closing quote),
// and they count an attempt that another follows: attempt=N with N <
// max_attempts=M (the attempts in all), or N <= max_retries=M (the
// retries after the first try), or no limit named. The wait, when a field
// states it (backoff=2s, delay=2s, wait=2s, delay_ms=2000), is the hint.
func retryFields(s string) (time.Duration, bool) {
	s = strings.TrimLeft(s, ".…\"")
	if !strings.HasPrefix(s, " ") {
		return 0, false
	}
	attempt, maxAttempts, maxRetries, fields := -1, -1, -1, 0
	var wait time.Duration
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" || v == "" {
			// A field's value may hold a blank ("status=429 Too Many
			// Requests"); a word before any field is prose.
			if fields == 0 {
				return 0, false
			}
			continue
		}
		fields++
		n, j := leadingInt(v)
		whole := j > 0 && j == len(v)
		switch k {
		case "attempt":
			if whole {
				attempt = n
			}
		case "max_attempts":
			if whole {
				maxAttempts = n
			}
		case "max_retries":
			if whole {
				maxRetries = n
			}
		case "backoff", "delay", "wait":
			if d, m, ok := parseHumanDuration(v); ok && m == len(v) && d > 0 && d <= maxHint {
				wait = d
			}
		case "delay_ms", "backoff_ms":
			if d := time.Duration(n) * time.Millisecond; whole && d > 0 && d <= maxHint {
				wait = d
			}
		}
	}
	if attempt < 1 || maxAttempts >= 0 && attempt >= maxAttempts || maxRetries >= 0 && attempt > maxRetries {
		return 0, false
	}
	return wait, true
}

// retryCounter: s, the words after "retrying", holds a counter "n/m" with
// 1 <= n <= m within its first 40 bytes, in parentheses or brackets or
// after a blank: "... (1/3)", " request... (2/3)", " 2/5 in 1s".
func retryCounter(s string) bool {
	w := s[:min(len(s), 40)]
	for i := 0; i < len(w); i++ {
		if isDigit(w[i]) && (i == 0 || w[i-1] == '(' || w[i-1] == '[' || w[i-1] == ' ') && leadingCounter(w[i:], false) {
			return true
		}
		if w[i] == '\n' {
			return false
		}
	}
	return false
}

// leadingCounter: s opens with "n/m" (1 <= n <= m <= 100; n < m when
// last, the noun "retry 3/3" being the report of the last one), ended by
// a bracket, a blank, ':', ',' or the end: "2/5 after error", "1/3] 503".
func leadingCounter(s string, last bool) bool {
	n, i := 0, 0
	for i < len(s) && i < 3 && isDigit(s[i]) {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == 0 || i >= len(s) || s[i] != '/' {
		return false
	}
	i++
	m, j := 0, i
	for j < len(s) && j < i+3 && isDigit(s[j]) {
		m = m*10 + int(s[j]-'0')
		j++
	}
	if j == i || n < 1 || n > m || m > 100 || last && n == m {
		return false
	}
	return j == len(s) || strings.IndexByte(") ]:,", s[j]) >= 0
}

// delayAfter reads the first duration that follows one of the markers in
// s: "in 4.0 seconds", "after 2s", "backoff=5s", and one unit named with an
// article, "after a second", "in an hour" (a Go client's "retrying fetch
// <cid> after a second...").
func delayAfter(s string, markers ...string) (time.Duration, bool) {
	for _, m := range markers {
		if k := strings.Index(s, m); k >= 0 {
			rest := strings.TrimLeft(s[k+len(m):], " ")
			if a, ok := cutArticle(rest); ok {
				rest = "1 " + a
			}
			if d, _, ok := parseHumanDuration(rest); ok && d > 0 {
				return d, true
			}
		}
	}
	return 0, false
}

// cutArticle: s opens with "a " or "an " before a letter; it returns the rest.
func cutArticle(s string) (string, bool) {
	for _, a := range []string{"a ", "an "} {
		if r, ok := strings.CutPrefix(s, a); ok && r != "" && isLetter(r[0]) {
			return r, true
		}
	}
	return "", false
}

// lineOf is the line of low that holds i, cut to 256 bytes either side.
func lineOf(low string, i int) string { return lineWindow(low, i, 256, 256) }

// lineWindow is low around i, at most before bytes back and after bytes on,
// cut at the line's ends.
func lineWindow(low string, i, before, after int) string {
	ws := max(0, i-before)
	if nl := strings.LastIndexByte(low[ws:i], '\n'); nl >= 0 {
		ws += nl + 1
	}
	we := min(len(low), i+after)
	if nl := strings.IndexByte(low[i:we], '\n'); nl >= 0 {
		we = i + nl
	}
	return low[ws:we]
}

// attemptCounter: s holds "attempt N/M" or "attempt N of M" with N < M.
func attemptCounter(s string) bool {
	n, m, ok := attemptNumbers(s)
	return ok && n < m
}

// finalAttempt: s holds "attempt N/M" or "attempt N of M" with N >= M, the
// last attempt the loop makes.
func finalAttempt(s string) bool {
	n, m, ok := attemptNumbers(s)
	return ok && n >= m
}

// attemptNumbers reads the first "attempt N/M" or "attempt N of M" in s.
func attemptNumbers(s string) (int, int, bool) {
	k := strings.Index(s, "attempt ")
	if k < 0 {
		return 0, 0, false
	}
	s = s[k+len("attempt "):]
	n, i := leadingInt(s)
	if i == 0 {
		return 0, 0, false
	}
	s = s[i:]
	switch {
	case strings.HasPrefix(s, "/"):
		s = s[1:]
	case strings.HasPrefix(s, " of "):
		s = s[len(" of "):]
	default:
		return 0, 0, false
	}
	m, j := leadingInt(s)
	return n, m, j > 0
}

func leadingInt(s string) (int, int) {
	n, i := 0, 0
	for i < len(s) && i < 6 && isDigit(s[i]) {
		n = n*10 + int(s[i]-'0')
		i++
	}
	return n, i
}

// aggregateWords head a final error that lists every attempt made (zeroclaw's
// reliable provider: "All providers/models failed. Attempts:", earlier "All
// providers failed. Attempts:").
var aggregateWords = []string{"providers failed. attempts:", "providers/models failed. attempts:"}

func retriesEndWords(line string) bool {
	return containsAny(line, []string{"giving up", "gave up", "no more retries", "not retrying", "exceeded retry",
		"retries exhausted", "max retries", "maximum retries", "after all retries", "stopped retrying", "after retrying",
		"failed after"})
}

// lineFrom is low from i to the end of its line.
func lineFrom(low string, i int) string {
	if nl := strings.IndexByte(low[i:], '\n'); nl >= 0 {
		return low[i : i+nl]
	}
	return low[i:]
}

// noticeOver: the retry notice at i is not the last word. The process
// exited, the turn ended in a JSON-RPC error of its own text, or a later
// line at the notice's depth or shallower says error. Lines indented deeper
// than the notice's are its detail ("   📝 Error: HTTP 429 …" under
// "⚠️  API call failed (attempt 1/3)"), and a JSON body opened on its line
// is its payload.
func (s *scan) noticeOver(i int) bool {
	if s.ev.ExitStatus != "" || s.ev.HasRPCError && i >= s.rpcEnd {
		return true
	}
	ls := strings.LastIndexByte(s.low[:i], '\n') + 1
	depth := indentOf(s.low[ls:])
	if ls == 0 && s.leadGlyph >= 0 {
		// The glyph that opened the text is blanked in low
		// (normalizeLow): its column is the line's depth in the tree.
		depth = s.leadGlyph
	}
	if finalAttempt(lineFrom(s.low, ls)) {
		// "Retrying in 24s · attempt 10/10": no retry comes after this
		// one, so the next error, however it is indented, is the outcome.
		depth = len(s.low)
	}
	// Claude Code's TUI draws each message of a turn as "  ⎿  …", two
	// blanks deep. A paste whose first line lost that prefix ("API Error
	// (…) · Retrying in 1 seconds… (attempt 1/10)\n  ⎿  API Error: 401 …")
	// has its siblings on the "⎿" lines at that depth; deeper "    ⎿" lines
	// are the causes under a message.
	lostTree := ls == 0 && depth == 0 && s.leadGlyph < 0
	nl := payloadEnd(s.low, i)
	if nl >= 0 {
		if d := loggedTracebackEnd(s.low[ls:nl], s.low[nl+1:]); d > 0 {
			nl += 1 + d
			if nl >= len(s.low) {
				return false
			}
		}
	}
	for nl >= 0 && nl+1 < len(s.low) {
		rest := s.low[nl+1:]
		line := lineFrom(rest, 0)
		in := indentOf(rest)
		peer := in <= depth || lostTree && in <= 2 && strings.HasPrefix(rest[in:], "⎿")
		if t := strings.TrimSpace(line); t != "" && peer && saysFinal(line) {
			return true
		}
		next := strings.IndexByte(rest, '\n')
		if next < 0 {
			break
		}
		nl += 1 + next
	}
	return false
}

func indentOf(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

// attemptsRemaining: s opens with "<n> attempt(s) remaining", n > 0.
func attemptsRemaining(s string) bool {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == 0 || s[:j] == "0" {
		return false
	}
	rest := s[j:]
	return strings.HasPrefix(rest, " attempts remaining") || strings.HasPrefix(rest, " attempt remaining")
}

// A rate limit's words or a 429 that name a longer window, money, a plan
// or the account's standing ("429 Monthly token quota exhausted. Upgrade
// your plan", "Usage cap reached for this billing period", "429 Account
// suspended due to unpaid invoices"), with no per-minute rate or short wait
// beside them, are a quota, a bill or a block that no rule before knew by
// its words. A replay meets the same refusal, so the rate-limit readings
// leave them unread: the side that does not replay.
var (
	longLimitKWs = newKWs([]string{"monthly", "per month", "this month", "for the month", "weekly", "per week", "this week",
		"per day", "today", "tomorrow", "billing period", "billing cycle",
		"budget", "spend limit", "spending limit", "spending cap", "spend cap", "billing", "invoice", "unpaid", "payment",
		"your balance", "account balance", "insufficient balance", "top up", "top-up", "recharge", "credits",
		"free tier", "free plan", "paid plan", "your plan", "current plan", "plan limit", "upgrade", "free trial", "trial account",
		"subscription", "hard limit", "total limit", "lifetime",
		"suspended", "deactivated", "banned", "terminated"})
	shortRateKWs = newKWs([]string{"per minute", "per min", "/min", "rpm", "tpm", "rps", "qps", "per second", "/sec",
		"concurren", "slow down", "temporarily", "moment", "shortly", "retry-after", "x-ratelimit", "ratelimit-reset", "retrydelay"})
)

const checkLongLimit = "the text names a longer window, money, a plan or the account's standing, and no per-minute rate or short wait"

// longLimit: s names such a limit (above) and no short one.
func (s *scan) longLimit() bool {
	if !s.longLimitDone {
		s.longLimitDone = true
		s.longLimitSeen = s.hasAnyKW(longLimitKWs) && !s.hasAnyKW(shortRateKWs)
		if s.longLimitSeen {
			if d, ok := retryAfterHint(s); ok && d <= shortReset {
				s.longLimitSeen = false
			}
		}
	}
	return s.longLimitSeen
}

// Something the request names that its provider has withdrawn, most often
// a model: "Claude Sonnet 4.5 is no longer available. Please switch to
// Claude Sonnet 4.6." (Antigravity's backend, relayed),
// "The model gemma2-9b-it has been decommissioned and is no longer
// supported.", "This client is no longer supported for Gemini Code Assist
// for individuals.", "Qwen OAuth free tier has been discontinued". A
// replay names it again. Not a notice of what will go ("… has been
// deprecated and will be removed in a future version", "is deprecated and
// will soon be removed"), which is no cause, nor a connection that is gone.
var (
	retiredWords = []string{"no longer available", "no longer supported", "has been retired", "been decommissioned",
		"has been discontinued", "have been discontinued", "been deprecated", "was deprecated", "is deprecated"}
	retiredStops = []string{"will be removed", "will soon", "in a future", "future version", "soon be", "will be retired",
		"will no longer", "connection", "server", "network", "socket", "temporarily"}
)

// retiredAt is the offset of a withdrawal (above) on a line that names no
// future removal and no connection, or -1.
func retiredAt(low string) int {
	for _, w := range retiredWords {
		for i := range occurrences(low, w, 8) {
			if !containsAny(lineOf(low, i), retiredStops) {
				return i
			}
		}
	}
	return -1
}
