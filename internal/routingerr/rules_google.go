package routingerr

// Gemini API, Gemini CLI and Vertex AI (including Claude on Vertex).
var googleRules = []rule{
	// RESOURCE_EXHAUSTED: quota.* in rules_agents.go read its quota ids.

	{id: "gemini.api_key_invalid.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.95,
		any: []string{"api_key_invalid", "api key not valid", "api key expired",
			// 403: Google blocks a key found in public ("Your API key was
			// reported as leaked. Please use another API key.").
			"reported as leaked"}},
	{id: "gemini.location_unsupported.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.9,
		any: []string{"not available in your country", "user location is not supported"}},
	{id: "vertex.publisher_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.9,
		any: []string{"not allowed to use publisher model", "is not found for api version"}},
	// Gemini CLI's sign-in (packages/core/src/code_assist/setup.ts,
	// oauth2.ts; packages/cli/src/core/auth.ts): until someone signs in no
	// turn can start, whatever the cause. setup.ts's own errors say what to
	// fix: the account's tier (IneligibleTierError, whose message is the
	// server's reasons, "Your current account is not eligible for Gemini
	// Code Assist for individuals …"), the project it needs
	// (ProjectIdRequiredError, InvalidNumericProjectIdError).
	{id: "gemini.ineligible_tier.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"ineligibletiererror", "not eligible for gemini code assist"}},
	{id: "gemini.project_required.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.9,
		any: []string{"requires setting the google_cloud_project", "invalid google cloud project id"}},
	// The rest of a failed sign-in: auth.ts's "Failed to sign in. Message:
	// <cause>" ("Failed to login. Message:" before it was renamed),
	// oauth2.ts's token exchange and device-code failures, gemini.tsx's
	// "Error authenticating: <error>", and Google's own page when the
	// account may not use the product ("… did not complete successfully and
	// is not authorized to access your account").
	{id: "gemini.sign_in_failed.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"failed to sign in. message:", "failed to login. message:", "error authenticating:",
			"failed to exchange authorization code for tokens", "failed to authenticate with user code",
			"fatalauthenticationerror", "is not authorized to access your account", "not yet authorized to access your account"}},
	// Gemini CLI's words when the account may not use a model
	// (useQuotaAndFallback.ts, ModelNotFoundError): "It seems like you don't
	// have access to <model>. This model is not available for personal
	// accounts." / "Your admin might have disabled the access. Contact them
	// to enable the Preview Release Channel."
	{id: "gemini.model_access.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"not available for personal accounts", "to enable the preview release channel",
			"seems like you don't have access to"}},
	// Gemini CLI's session-turn cap in non-interactive mode
	// (nonInteractiveCliAgentSession.ts: FatalTurnLimitedError, "Reached max
	// session turns for this session. Increase the number of turns by
	// specifying maxSessionTurns in settings.json."): a replay stops at the
	// same cap.
	{id: "gemini.turn_limit.v1", band: bandUser, code: "turn_limit", class: ClassUserAction, conf: 0.9,
		any: []string{"reached max session turns", "fatalturnlimitederror"}},
	{id: "gemini.permission_denied.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{`"status":"permission_denied"`, `"status": "permission_denied"`}},

	{id: "gemini.model_overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.9,
		gate:  []string{"model is overloaded"},
		match: func(s *scan) int { return s.errorText("model is overloaded") }},
	// Vertex per-model request quotas (Claude on Vertex): per-minute in
	// practice, so a rate limit; raising them is the user's other option.
	{id: "vertex.quota_exceeded.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.75,
		all: []string{"resource_exhausted", "quota exceeded for"}},
	// Vertex's shared (dynamic) capacity: "Resource exhausted, please try
	// again later."
	{id: "vertex.resource_exhausted.v1", band: bandTransient, code: "capacity", class: ClassTransient, conf: 0.8,
		any: []string{"resource_exhausted", "resource exhausted"}},
	// Gemini's InvalidStreamError, and AionUi's words for it once its own
	// retries are spent ("Invalid response stream detected after multiple
	// retries. Please try again."); its interim "… Retrying..." is a retry
	// line (agentRetryWords).
	{id: "gemini.invalid_chunk.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.7,
		any: []string{"invalid chunk or missing finish reason", "stream ended with an invalid chunk", "invalid response stream detected",
			// Gemini CLI's non-interactive mode (nonInteractiveCli.ts): "Invalid
			// stream: The model returned an empty response or malformed tool call."
			"returned an empty response or malformed tool call"}},

	{id: "gemini.internal.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{`"status":"internal"`, `"status": "internal"`, "13 internal:"}},
	{id: "gemini.unavailable.v1", band: bandGeneric, code: "unavailable", class: ClassTransient, conf: 0.8,
		any: []string{`"status":"unavailable"`, `"status": "unavailable"`, "got status: unavailable", "14 unavailable:", "deadline_exceeded"}},
}
