package routingerr

import (
	"strings"
	"time"
)

// Errors of the other coding tools and gateways, read from their sources
// (testdata/catalogue/opencode.jsonl, kiro.jsonl).
var toolRules = []rule{
	// claude.ai's connector errors for a remote MCP server: "Couldn't reach
	// the MCP server. You can check the server URL and verify the server is
	// running." and "Authorization with the MCP server failed. You can check
	// your credentials and permissions." (anthropics/claude-code issues,
	// heldout111): the server's address or its credentials, the user's to fix.
	{id: "claude_ai.mcp_unreachable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"couldn't reach the mcp server", "couldn’t reach the mcp server"}},
	{id: "claude_ai.mcp_authorization.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		any: []string{"authorization with the mcp server failed"}},
	// OpenCode Zen's free limit while opencode still retries it
	// (session/retry.ts: retryable() turns a FreeUsageLimitError into the
	// retry status "Free usage exceeded, subscribe to Go" with the action
	// "Free limit reached" / "Subscribe to OpenCode Go…", and policy()
	// backs off up to five times): a retry notice, not the final error.
	{id: "opencode.zen_free_limit_retry.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.8,
		gate:  []string{"subscribe to opencode go", "subscribe to go", "free usage exceeded, add credits"},
		check: checkRetriesOver,
		match: func(s *scan) int {
			i := s.index("subscribe to opencode go", true)
			if i < 0 {
				i = s.index("subscribe to go", true)
			}
			if i < 0 { // the wording before Go: "Free usage exceeded, add credits https://opencode.ai/zen"
				i = s.index("free usage exceeded, add credits", true)
			}
			if i < 0 || s.retriesOver(i) {
				return -1
			}
			return i
		}},
	// The Zen limit errors themselves (the final error once the retries are
	// spent: a FreeUsageLimitError or GoUsageLimitError body): the free or
	// Go allowance, until it resets.
	{id: "opencode.zen_usage_limit.v2", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		any: []string{"freeusagelimiterror", "gousagelimiterror"}},
	// The Zen console's subscription quota (zen.api.error
	// .subscriptionQuotaExceeded: "Subscription quota exceeded. Retry in
	// {{retryIn}}."; the TUI adds "You can continue using free models."):
	// the plan's window, until it resets.
	{id: "opencode.zen_subscription_quota.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.8,
		any: []string{"subscription quota exceeded"}},
	// Zen's FreeTierError: "OpenCode's free tier can only be used from
	// within OpenCode" (a call that is not OpenCode's own).
	{id: "opencode.zen_free_tier_only.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"free tier can only be used from within opencode", "freetiererror"}},
	// The OpenCode Go gateway (opencode.ai/zen/go) refuses a request without
	// the x-opencode-session header with a 400 MissingSessionID: "Request is
	// missing x-opencode-session and cannot be routed efficiently"
	// (opencode.ai/docs/go/#where-can-i-use-it asks third-party clients for
	// a stable session id per conversation). The client must be set up to
	// send it; the same request is refused again.
	{id: "opencode.go_missing_session.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"missing x-opencode-session", "missingsessionid"}},
	// The Zen gateway's billing refusals (console routes/zen/util/handler.ts
	// validateBilling: a CreditsError "No payment method. Add a payment
	// method here: …/billing" or "Insufficient balance. Manage your billing
	// here: …", a MonthlyLimitError "Your workspace has reached its monthly
	// spending limit of $N. …", a UserLimitError "You have reached your
	// monthly spending limit of $N. …"), all sent as HTTP 401 with the
	// class name as error.type; `opencode run` prints the bare message.
	// The key is fine: a payment method, a top-up or a higher limit is the
	// fix, so the 401 says less than the words (catalogue opencode-zen-
	// credits-*, opencode-zen-*-limit).
	{id: "opencode.zen_billing.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"creditserror", "monthlylimiterror", "userlimiterror",
			"no payment method. add a payment method", "no payment method on file"}},

	// Roo Code's (and Kilo Code's) words for a provider's error status
	// (webview-ui i18n chat.json apiRequest.errorMessage, shown in place of
	// the body): 401, 403, 429, 500. Late, so a body that says more decides
	// first. Its 400 ("couldn't process the request as made") and "Unknown
	// API error" say nothing a reader can act on; its 402 is a funds family
	// phrase.
	{id: "roo.provider_auth.v1", band: bandGeneric, code: "auth", class: ClassUserAction, conf: 0.7,
		any: []string{"couldn't authenticate with provider"}},
	{id: "roo.provider_refused.v1", band: bandGeneric, code: "permission", class: ClassUserAction, conf: 0.7,
		any: []string{"provider refused to complete this request"}},
	{id: "roo.provider_rate_limited.v1", band: bandGeneric, code: "rate_limited", class: ClassTransient, conf: 0.7,
		any: []string{"being rate-limited by the provider"}},
	{id: "roo.provider_server_error.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.7,
		any: []string{"something is wrong on the provider side"}},

	// Roo Code's countdown before it sends, while the provider rate limit the
	// user set has not passed (3.26–3.28 src/core/task/Task.ts
	// attemptApiRequest: "Rate limiting for ${i} seconds..." each second,
	// say api_req_retry_delayed; from 3.29 the row shows "Rate limiting"
	// and the seconds apart): the request is still to be sent. Only with
	// the seconds and the ellipsis after them, so prose about rate limiting
	// for an endpoint is not read as the countdown. Catalogue roo-code
	// roo-rate-limiting-for-seconds.
	{id: "roo.rate_limit_countdown.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  []string{"rate limiting for "},
		check: "seconds and an ellipsis after \"rate limiting for \"",
		match: func(s *scan) int {
			i, _ := rooRateLimitCountdown(s.low)
			return i
		},
		hint: func(s *scan, c Classification) Classification {
			if _, d := rooRateLimitCountdown(s.low); d > 0 && d <= maxHint {
				c.RetryAfter = new(d)
			}
			return c
		}},

	// Continue's own words for a local model server that refused the
	// connection (core/llm/index.ts fetch: ECONNREFUSED to
	// 127.0.0.1:11434 becomes "Unable to connect to local Ollama instance.
	// Ollama may not be running." / "… may not be installed or may not
	// running."; to localhost:8000 "Unable to connect to local Lemonade
	// instance. …"; 0.8.25–0.8.x: "Failed to connect to local Ollama
	// instance. To start Ollama, first download it at https://ollama.ai."):
	// the server is not started or not installed, which a replay does not
	// change.
	{id: "continue.local_server_down.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"connect to local ollama instance", "connect to local lemonade instance"}},

	// The ollama Python client's words for a server it could not reach
	// (ollama/ollama-python ollama/_client.py: Client and AsyncClient
	// _request_raw turn httpx.ConnectError into ConnectionError(
	// CONNECTION_ERROR_MESSAGE), "Failed to connect to Ollama. Please check
	// that Ollama is downloaded, running and accessible.
	// https://ollama.com/download"), which wrappers print with or without
	// the "ConnectionError: " prefix: the local server is not installed or
	// not started, as for Continue's line above. Catalogue local-servers
	// ollama-python-connection-error.
	{id: "ollama.python_client_unreachable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"ollama is downloaded, running and accessible"}},

	// Continue's hosted free-trial proxy caps each client's requests for
	// good: continuedev/proxy-server main.py counts every request per IP,
	// unique id or client in a table that never resets and answers a 429
	// "Too many requests from this client (limit is N)" (earlier: "… from
	// this IP address" / "… from this unique ID"), and one past its
	// total cap "The Continue server cannot handle any more requests";
	// the later hosted proxy says "You have exceeded the maximum number
	// of requests for the free trial." A 429 that no wait lifts: the
	// user brings their own key.
	{id: "continue.free_trial_cap.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"requests for the free trial", "too many requests from this client (limit is",
			"too many requests from this ip address (limit is", "too many requests from this unique id (limit is",
			"continue server cannot handle any more requests"}},

	// Zed's agent panel callout for a provider's overload or 5xx after its
	// retries (agent_ui, ServerOverloaded: "{provider}'s servers are
	// temporarily unavailable. Zed will retry automatically. If the problem
	// persists, check the provider's status page."); the same words name a
	// provider's outage anywhere.
	{id: "zed.provider_unavailable.v1", band: bandTransient, code: "unavailable", class: ClassTransient, conf: 0.75,
		any: []string{"servers are temporarily unavailable"}},

	// openclaw's model fallback when every auth profile of a provider is
	// cooling down after failures (src/agents/model-fallback.ts: the attempt
	// "Provider <p> is in cooldown (all profiles unavailable)" with reason
	// rate_limit, or the reason inferred from the profiles' last failures;
	// the summary "All models failed (N): <p>/<m>: <error> (<reason>) |
	// …"): openclaw's own back-off, which ends. A cooldown it put down to
	// billing or auth is no wait (left to the rules for those words).
	{id: "openclaw.provider_cooldown.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.75,
		any:  []string{"is in cooldown (all profiles unavailable)"},
		none: []string{"unavailable) (billing)", "unavailable) (auth)"}},
	// openclaw's log of a run that ended on a provider error keeps the raw
	// reply as rawErrorPreview (src/agents/pi-embedded-error-observation.ts:
	// the first 400 characters, redacted) and, in its console line, as
	// " rawError=<preview>" (pi-embedded-subscribe.handlers.lifecycle.ts
	// handleAgentEnd). A raw reply of "403 <html…" is a page, not the API:
	// openclaw's own classifyProviderRuntimeFailureKind calls an HTML body
	// at 403 auth_html_403 ("Authentication failed with an HTML 403 response
	// from the provider. Re-authenticate and verify your provider account
	// access."), the chatgpt.com Cloudflare challenge or an account block.
	// Whatever words the run's "error" field carries ("API rate limit
	// reached.", "DNS lookup … failed." in 2026.4.x), replaying meets the
	// same page.
	{id: "openclaw.raw_error_html_403.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{`"rawerrorpreview":"403 <`, "rawerror=403 <"}},

	// oracle's message for a Responses API that answered 404/405
	// (steipete/oracle src/oracle/errors.ts, case "unsupported-endpoint":
	// "The Responses API returned 404/405 — your base URL/gateway probably
	// lacks /v1/responses (check OPENAI_BASE_URL or switch to
	// api.openai.com / browser engine)."): the configured endpoint has no
	// such route; a person changes the base URL.
	{id: "oracle.responses_endpoint_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"probably lacks /v1/responses"}},

	// Zed's ChatGPT Subscription provider when no sign-in is stored
	// (crates/language_models/src/provider/openai_subscribed.rs
	// authenticate: "Sign in with your ChatGPT Plus or Pro subscription to
	// use this provider."; the agent logs it as "Failed to authenticate
	// provider: ChatGPT Subscription: …"): a human signs in.
	{id: "zed.chatgpt_subscription_signin.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"sign in with your chatgpt plus or pro subscription"}},

	// Zed's agent panel when the external agent it found is older than the
	// ACP version it needs (crates/agent_ui/src/acp/thread_view.rs, the
	// unsupported-version callout: "Upgrade {agent} to work with Zed" over
	// "Currently using {path}, which is only version {v} (need at least
	// {min})" or "Currently using {path}, which does not report a valid
	// --version"): the binary on PATH must be upgraded or replaced; the
	// same launch fails again.
	{id: "zed.agent_version_unsupported.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate:  []string{"currently using "},
		check: "after \"Currently using <path>\" the text says \", which is only version <v>\" with \"(need at least <min>)\" just after, or \", which does not report a valid --version\"",
		match: func(s *scan) int {
			i := strings.Index(s.low, "currently using ")
			if i < 0 {
				return -1
			}
			// A path comes between and the callout may wrap: a bounded
			// window, not one line.
			line := s.low[i:]
			if len(line) > 400 {
				line = line[:400]
			}
			if strings.Contains(line, ", which does not report a valid --version") {
				return i
			}
			// The callout wraps: "(need at least …)" may start the next line.
			if k := strings.Index(line, ", which is only version "); k >= 0 {
				rest := s.low[i+k:]
				if len(rest) > 120 {
					rest = rest[:120]
				}
				if strings.Contains(rest, "(need at least ") {
					return i
				}
			}
			return -1
		}},

	// Kiro CLI's stream errors (its agent crate, StreamErrorKind's Display).
	{id: "kiro.throttled.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: []string{"request was throttled by the service"}},
	{id: "kiro.service_failure.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{"service failed to process the request"}},
	{id: "kiro.stream_timeout.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"stream timed out receiving the response"}},
	{id: "kiro.context_overflow.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		any: []string{"the context window overflowed"}},
	// The Kiro service's own busy message ("The model is temporarily busy.
	// Please try again in a moment. (epRequestId: …)").
	// The Kiro agent extension (kiro.kiroAgent dist/extension.js) turns a
	// model stream that failed under load into "The model you've selected
	// is experiencing a high volume of traffic. Try changing the model and
	// re-running your prompt." and one that lost the network into "A
	// network error occurred. Please check your connection and try again."
	// Both pass (another model is the user's way round the first; the
	// same request later is the daemon's).
	{id: "kiro.model_busy.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.8,
		any: []string{"model is temporarily busy", "selected is experiencing a high volume of traffic"}},
	{id: "kiro.network_error.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.75,
		any: []string{"a network error occurred. please check your connection and try again"}},
	// Cursor's dialog when its backend cannot reach the model's provider
	// (ERROR_OPENAI, ConnectError: [unavailable]): "Unable to reach the
	// model provider / We're having trouble connecting to the model
	// provider. This might be temporary - please try again in a moment.";
	// cursor-agent prints it as "Provider Error We're having trouble …".
	// A cause named with it (a schema the provider refused) is read by the
	// rules of its band first.
	{id: "cursor.provider_unreachable.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.7,
		any: []string{"trouble connecting to the model provider", "unable to reach the model provider"}},
	// The Kiro service's account-level hold, a 429 whose body is
	// {"message":"Due to suspicious activity, we are imposing temporary
	// limits on how frequently your account can send a request to Kiro
	// while we investigate.","reason":null} (the IDE shows it as "… your
	// account can make requests."). It names no reset and no delay, and it
	// is the account that is held, not the request: Kiro proxies park the
	// account for an hour or drop it, and users report it still there a
	// day later. A user_action (before the transient band a 429 reaches).
	{id: "kiro.account_limited.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.8,
		any: []string{"due to suspicious activity, we are imposing temporary limits"}},

	// Warp's agent (warpdotdev/warp app/src/server/server_api.rs AIApiError,
	// app/src/ai/agent/mod.rs RenderableAIError): a 429 with Warp's
	// out-of-credits code is AIApiError::QuotaLimit ("Request failed due to
	// lack of AI quota."), which releases that put through the generic
	// arm showed as "Request failed with error: QuotaLimit" (the Debug of
	// the variant); the plan's credits, until they refresh. A response
	// stream that ends without its stream-finished event is
	// AIApiError::UnexpectedEof ("Response stream ended unexpectedly before
	// completion."), a cut, not a verdict. A Grok subscription whose token
	// no longer refreshes asks to be reconnected.
	{id: "warp.quota_limit.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.8,
		any: []string{"request failed with error: quotalimit", "request failed due to lack of ai quota"}},
	{id: "warp.unexpected_eof.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"response stream ended unexpectedly before completion"}},
	{id: "warp.grok_token_refresh.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"grok subscription token could not be refreshed"}},

	// LangChain's settings helpers (langchain_core/utils/env.py
	// get_from_env, utils.py secret_from_env) when neither the argument nor
	// the environment gives a value: "Did not find openai_api_key, please
	// add an environment variable `OPENAI_API_KEY` which contains it, or
	// pass `openai_api_key` as a named parameter." (a ValueError, or inside
	// a pydantic ValidationError of the chat model). Nothing was sent; a
	// *_api_key is a key to set, any other name a setting. Catalogue
	// wrappers langchain-did-not-find-*.
	{id: "langchain.api_key_missing.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		all: []string{"please add an environment variable", "api_key"}},
	{id: "langchain.setting_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"please add an environment variable"}},
}

// rooRateLimitCountdown finds Roo Code's "rate limiting for N seconds..."
// in low: the offset of the phrase and the seconds, or -1.
func rooRateLimitCountdown(low string) (int, time.Duration) {
	const w = "rate limiting for "
	for off := 0; ; {
		j := strings.Index(low[off:], w)
		if j < 0 {
			return -1, 0
		}
		i := off + j
		off = i + len(w)
		rest := low[off:]
		if len(rest) == 0 || !isDigit(rest[0]) {
			continue
		}
		d, n, ok := parseHumanDuration(rest)
		if !ok || !strings.HasSuffix(strings.TrimSpace(rest[:n]), "seconds") {
			continue
		}
		if after := rest[n:]; strings.HasPrefix(after, "...") || strings.HasPrefix(after, "…") {
			return i, d
		}
	}
}
