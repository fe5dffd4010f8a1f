package routingerr

import (
	"strings"
	"time"
)

// GitHub Copilot Chat (microsoft/vscode-copilot-chat,
// src/platform/chat/common/commonTypes.ts): its own wordings for the
// Copilot API's rate limits and quotas. getRateLimitMessage writes
// "Sorry, your request was rate-limited. Please wait {0} before trying
// again." ({0} is "17 seconds", "3 minutes", "269 hours 20 minutes" or "a
// moment"); getQuotaHitMessage writes the monthly and premium quotas.

var copilotRateLimited = []string{"your request was rate-limited", "your request was speed limited",
	"you have been rate-limited", "exhausted this model's rate limit", "exceeded the agent mode rate limit"}

// copilotQuotaWait: a rate limit whose wait is longer than this is a quota
// window (Copilot's per-plan caps say "Please wait 269 hours 20 minutes").
const copilotQuotaWait = time.Hour

var kwPleaseWait = newKW("please wait ")

var copilotRules = []rule{
	{id: "copilot.rate_limited_long.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate:  copilotRateLimited,
		check: "the wait it states is longer than an hour",
		match: func(s *scan) int {
			if d, ok := copilotWaitFor(s); ok && d > copilotQuotaWait {
				return s.indexKW(kwPleaseWait)
			}
			return -1
		},
		hint: func(s *scan, c Classification) Classification {
			if d, ok := copilotWaitFor(s); ok && !s.now.IsZero() {
				c.ResetAt = new(s.now.Add(d).UTC().Truncate(time.Second))
			}
			return c
		}},
	{id: "copilot.rate_limited.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: copilotRateLimited,
		hint: func(s *scan, c Classification) Classification {
			if d, ok := copilotWaitFor(s); ok {
				c.RetryAfter = new(d)
			}
			return c
		}},
	// The Copilot API's own 429 as the Copilot CLI and coding agent print
	// it: "Sorry, you've hit a rate limit that restricts the number of
	// Copilot model requests you can make within a specific time period.
	// Please try again in 2 hours." A wait of more than an hour is a
	// window to wait out (the reset from the text); a shorter one is a rate
	// limit, read by the rate-limit rules with its "try again in".
	{id: "copilot.capi_rate_limit_long.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate:  []string{"restricts the number of copilot model requests"},
		check: "the wait it states is longer than an hour",
		match: func(s *scan) int {
			if i, d := copilotTryAgainIn(s.low); i >= 0 && d > copilotQuotaWait {
				return i
			}
			return -1
		},
		hint: func(s *scan, c Classification) Classification {
			if _, d := copilotTryAgainIn(s.low); d > 0 && !s.now.IsZero() {
				c.ResetAt = new(s.now.Add(d).UTC().Truncate(time.Second))
			}
			return c
		}},
	// "You've reached your monthly chat messages quota.", "You've exhausted
	// your premium model quota.", and the Copilot API's own code shown as
	// "Quota Exceeded\n\nServer Error: …\nError Code: quota_exceeded".
	// The Copilot CLI says the API's 402 in its own words: "Quota exceeded.
	// Upgrade to increase your limit: https://github.com/features/copilot/plans"
	// (session.error errorType "quota", @github/copilot 0.0.354 index.js).
	{id: "copilot.quota.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		any: []string{"monthly chat messages", "exhausted your premium model quota", "error code: quota_exceeded",
			"error code: free_quota_exceeded", "quota exceeded. upgrade to increase your limit"}},
	// The Copilot API's 413 as Copilot Chat ("Reason: Request Failed: 413
	// Request Entity Too Large") and the Copilot CLI/SDK ("Model call
	// failed: \"413 413 Request Entity Too Large\"") report it: the prompt
	// with its context is over what the API takes; the same request fails
	// again.
	{id: "copilot.request_too_large.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		gate: []string{"request failed: 413", "model call failed", "githubcopilot.com"},
		any:  []string{"request entity too large"}},
	// Copilot Chat's ChatFetchResponseType.Length: "Sorry, the response hit
	// the length limit. Please rephrase your prompt." The answer ran into
	// the output limit; the same prompt runs into it again.
	{id: "copilot.response_length.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"the response hit the length limit"}},
	// A stream the Copilot API ended with a server-error finish reason:
	// chatMLFetcher.ts maps FinishedCompletionReason.ServerError to the
	// reason "Server error. Stream terminated" (shown as "Reason: …" under
	// "Sorry, your request failed. Please try again."). The answer was cut
	// by the service mid-stream; a replay is a new stream.
	{id: "copilot.stream_terminated.v1", band: bandTransient, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{"server error. stream terminated"}},
	// overage_limit_reached: "You cannot accrue additional premium requests
	// at this time. Please contact GitHub Support …".
	// The Copilot API's 400 model_not_available_for_integrator ("The
	// requested model is not available for integrator \"opencode\".
	// Available models: […]" / "Verify the correct Copilot-Integration-Id
	// header is being sent."): this client may not use that model; another
	// model (or client) is the fix, not a replay.
	// Its sibling code model_not_supported ("The requested model is not
	// supported.", code model_not_supported, param model) is the same gate
	// per account or client identity (@oh-my-pi/pi-ai 18.2.11
	// utils/http-inspector.ts rewriteCopilotError, "GitHub's body names the
	// cause"; providers/github-copilot-headers.ts isCopilotIdentityDenied
	// reads error.code == "model_not_supported"): read by its code, which
	// survives relays that nest the body as an escaped string and terminals
	// that wrap the message. A model Copilot serves on /responses only
	// (the Codex family) is refused on Chat Completions with a 400
	// {"error":{"message":"model gpt-5.2-codex is not accessible via the
	// /chat/completions endpoint","code":"unsupported_api_for_model"}}
	// (copilot-api 0.7.0's log of it, FlorianBruniaux/cc-copilot-bridge@dfb722c
	// docs/TROUBLESHOOTING.md): the client's endpoint for that model, not a
	// replay. Catalogue copilot copilot-codex-unsupported-api-for-model.
	// The API's third refusal of a listed model, no_available_model_endpoints
	// ("no endpoints available for this model under your current plan and
	// policies"), is the account's plan or policy, the same gate: read by
	// its code, which survives the CLI wrapping the message across lines.
	{id: "copilot.model_not_for_integrator.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"not available for integrator", "model_not_available_for_integrator", "model_not_supported",
			"unsupported_api_for_model", "is not accessible via the /chat/completions endpoint", "no_available_model_endpoints",
			"no endpoints available for this model under your current plan"}},
	// The Copilot CLI's own model checks (@github/copilot 0.0.354 index.js):
	// /model with a name it does not know ("Model \"x\" is not supported by
	// Copilot CLI.\n\nSupported models: …"), with one the account's models
	// do not include ("Model \"x\" is not available. It may be disabled by
	// your organization's policy."), and no usable model at all, in a
	// prompt run ("No supported model available") or a session ("No model
	// available. Check policy enablement under GitHub Settings > Copilot",
	// errorType model_selection). A model to choose or a policy to enable;
	// the same request picks the same nothing.
	{id: "copilot.cli_model_unavailable.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"is not supported by copilot cli", "may be disabled by your organization's policy",
			"no supported model available", "no model available. check policy enablement"}},
	// The same CLI when it has no token to ask for the models with: "No
	// authentication information available" (the model list came back
	// "noauth"): a sign-in.
	{id: "copilot.cli_no_auth.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"no authentication information available"}},
	{id: "copilot.overage_limit.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"cannot accrue additional premium requests"}},
	// The Copilot language server (the JetBrains, Vim and other editor
	// plugins talk JSON-RPC to it) refuses a request without a Copilot
	// token: ResponseError(ErrorCodes.NoCopilotToken = 1000, "Not
	// authenticated: <failureKind>") (@github/copilot-language-server
	// 1.539.0 dist/main.js). The kinds read here are the sign-in's:
	// NotSignedIn, HTTP401 (a token GitHub no longer takes), NotAuthorized
	// (no Copilot access on the account). Its "Exception" kind is whatever
	// failed while fetching the token, a network error as well, and is not
	// read.
	{id: "copilot.ls_not_authenticated.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"not authenticated: notsignedin", "not authenticated: http401", "not authenticated: notauthorized"}},
}

// copilotWaitFor reads Copilot's "Please wait {0} before trying again".
func copilotWaitFor(s *scan) (time.Duration, bool) {
	i := s.indexKW(kwPleaseWait)
	if i < 0 {
		return 0, false
	}
	rest := s.low[i+len(kwPleaseWait.w):]
	d, n, ok := parseHumanDuration(rest)
	// Copilot Chat 0.24 wrote "… Please wait 9 hours 23 minutes and try
	// again!" (vscode-copilot-release#5236); later "… before trying again."
	if !ok || d <= 0 || !strings.HasPrefix(rest[n:], " before") && !strings.HasPrefix(rest[n:], " and try again") {
		return 0, false
	}
	return clampHint(d)
}

// copilotTryAgainIn reads the Copilot API's "Please try again in 2 hours"
// (the text may wrap inside it): its offset and the wait, or -1.
func copilotTryAgainIn(low string) (int, time.Duration) {
	const k = "please try again in "
	i := strings.LastIndex(low, k)
	if i < 0 {
		return -1, 0
	}
	rest := strings.Join(strings.Fields(low[i+len(k):min(len(low), i+len(k)+80)]), " ")
	d, _, ok := parseHumanDuration(rest)
	if !ok || d <= 0 {
		return -1, 0
	}
	return i, d
}
