package routingerr

import "strings"

// Gemini API, Gemini CLI and Vertex AI (including Claude on Vertex).
var googleRules = []rule{
	// Gemini CLI's own cancel (errors.ts FatalCancellationError "Operation
	// cancelled.", exit 130; CanceledError "The operation was canceled."):
	// the user stopped it, nothing to retry or fix.
	{id: "gemini.cancelled.v1", band: bandCancel, code: "cancelled", class: ClassUnclassified, conf: 0.6,
		any: []string{"fatalcancellationerror", "operation cancelled.", "operation was canceled", "user cancelled the request", "(status: cancelled)"},
		// hyper's Canceled for a pooled connection that closed before the
		// request went out ("operation was canceled: connection was not
		// ready"): nobody cancelled (catalogue hyper-connection-not-ready).
		none: []string{"connection was not ready"}},
	// RESOURCE_EXHAUSTED: quota.* in rules_agents.go read its quota ids.

	{id: "gemini.api_key_invalid.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.95,
		any: []string{"api_key_invalid", "api key not valid", "api key expired",
			// 403: Google blocks a key found in public ("Your API key was
			// reported as leaked. Please use another API key.").
			"reported as leaked"}},
	// The other ways Google says the caller has no usable credential
	// (google.rpc canonical messages): no key or token at all ("Method
	// doesn't allow unregistered callers …", "Request is missing required
	// authentication credential."), a key the API does not know ("API Key
	// not found. Please pass a valid API key."), an OAuth token without the
	// scope (ACCESS_TOKEN_SCOPE_INSUFFICIENT), ahead of the 400/403 status.
	{id: "google.credentials_missing.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"doesn't allow unregistered callers", "missing required authentication credential", "api key not found",
			"insufficient authentication scopes", "access_token_scope_insufficient",
			// google-auth-library (Gemini CLI's OAuth client, ADC): the stored
			// refresh token no longer works ("Could not refresh access token:
			// Request failed with status code 400"), whatever status the token
			// endpoint gave.
			"could not refresh access token"}},
	// Billing is off or missing for the project (BILLING_DISABLED "This API
	// method requires billing to be enabled …", FAILED_PRECONDITION "Billing
	// account for project … is not found. Billing must be enabled …"), or
	// the model has no free tier ("Gemini 2.5 Pro Preview doesn't have a
	// free quota tier …", a 429 that waiting never clears).
	{id: "google.billing_disabled.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"requires billing to be enabled", "billing must be enabled", "billing_disabled",
			"doesn't have a free quota tier",
			// The project's spend cap (ai.google.dev/gemini-api/docs/billing):
			// a 429 RESOURCE_EXHAUSTED that no retry clears before someone
			// raises the cap or the month turns ("Your billing account has
			// exceeded its monthly spending cap."; catalogue
			// google-api-spend-cap-429).
			"exceeded its monthly spending cap", "exceeded its spending cap", "reached its monthly spending cap"}},
	// The project or key may not call the API: the API not enabled
	// (SERVICE_DISABLED "… has not been used in project N before or it is
	// disabled"), the project refused ("Your project has been denied access.
	// Please contact support."), a key restricted to other referers
	// ("Requests from referer <empty> are blocked."), IAM ("Permission
	// denied on resource project …").
	{id: "google.project_denied.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"before or it is disabled", "your project has been denied access", "requests from referer",
			"permission denied on resource", "' denied on resource '",
			// VPC Service Controls ("Request is prohibited by organization's
			// policy. vpcServiceControlsUniqueIdentifier: …").
			"prohibited by organization's policy", "vpcservicecontrolsuniqueidentifier"}},
	{id: "gemini.location_unsupported.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.9,
		any: []string{"not available in your country", "user location is not supported"}},
	{id: "vertex.publisher_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.9,
		any: []string{"not allowed to use publisher model", "is not found for api version",
			// NOT_FOUND's default message ("Requested entity was not found."),
			// which Gemini CLI turns into a ModelNotFoundError: the model or
			// the project it names does not exist for this account.
			"requested entity was not found",
			// Vertex AI's NOT_FOUND for a model the project cannot reach
			// ("Publisher Model `projects/…/models/gemini-1.0-pro` was not
			// found or your project does not have access to it. Please
			// ensure you are using a valid model version. …"; catalogue
			// vertex-publisher-model-not-found), wrapped or with its status
			// dropped.
			"was not found or your project does not have access to it"}},
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
		any: []string{"requires setting the google_cloud_project", "invalid google cloud project id",
			// Earlier releases: "GOOGLE_CLOUD_PROJECT environment variable not
			// found. …", "Google Workspace Account (…) must specify a
			// GOOGLE_CLOUD_PROJECT environment variable.", "Enterprise users must
			// specify GOOGLE_CLOUD_PROJECT …", "Failed to onboard to Gemini Code
			// Assist with this project".
			"google_cloud_project environment variable not found", "must specify a google_cloud_project",
			"must specify google_cloud_project", "failed to onboard to gemini code assist",
			// The Code Assist relays built on Gemini CLI's OAuth (Gemini-CLI-2-API
			// and its AIClient-2-API forks, src/gemini/gemini-core.js
			// discoverProjectAndModels) end a failed loadCodeAssist/onboardUser
			// with "Could not discover a valid Google Cloud Project ID." (and
			// "… because no Gemini OAuth credentials were loaded. Configure
			// PROJECT_ID explicitly …"), which they then serve as a 500
			// INTERNAL: set the project, a replay discovers nothing new
			// (catalogue relays-code-assist-no-project-id-500).
			"could not discover a valid google cloud project", "configure project_id explicitly",
			// GewoonJaap/gemini-cli-openai (src/gemini-client.ts
			// discoverProjectId) rethrows any loadCodeAssist failure as "Could
			// not discover project ID. Make sure you're authenticated and consider
			// setting GEMINI_PROJECT_ID." (catalogue
			// relays-gemini-cli-openai-no-project-id).
			"could not discover project id"}},
	// The project's Code Assist license is not the one chosen
	// (LicenseMismatchError, earlier setup.ts: "License type mismatch
	// detected. You selected: … But the server returned: …").
	{id: "gemini.license_mismatch.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{"license type mismatch detected"}},
	// The rest of a failed sign-in: auth.ts's "Failed to sign in. Message:
	// <cause>" ("Failed to login. Message:" before it was renamed),
	// oauth2.ts's token exchange and device-code failures, gemini.tsx's
	// "Error authenticating: <error>", and Google's own page when the
	// account may not use the product ("… did not complete successfully and
	// is not authorized to access your account").
	{id: "gemini.sign_in_failed.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"failed to sign in. message:", "failed to login. message:", "error authenticating:",
			// The same sign-in failure without "Message:" (an ACP client or a
			// wrapper that prints the reason after the sentence): "Failed to
			// sign in. This client is no longer supported for Gemini Code
			// Assist for individuals. …" (catalogue
			// gemini-cli-sign-in-client-unsupported).
			"failed to sign in.", "this client is no longer supported for gemini code assist",
			"failed to exchange authorization code for tokens", "failed to authenticate with user code",
			"fatalauthenticationerror", "is not authorized to access your account", "not yet authorized to access your account",
			// The page's lead sentence, which opens every wording of it
			// ("The authentication did not complete successfully. The
			// following products are not yet authorized …"; catalogue
			// gemini-cli-auth-failure-page-lead).
			"authentication did not complete successfully",
			// oauth2.ts's browser and device flows: the callback server, the
			// redirect's error, the five-minute timeouts, a cancel, the
			// metadata server's ADC, a broken credentials file.
			"manual authorization is required", "authentication timed out after", "authorization timed out after",
			"authentication cancelled by user", "oauth callback", "google oauth error:", "oauth state mismatch",
			"no authorization code received", "during oauth authentication", "could not authenticate using",
			"invalid credentials format",
			// setup.ts / errors.ts: account validation declined, or "/auth" chosen instead.
			"cancelled account validation", "requested to change authentication method",
			// Earlier releases' words for the same steps: "Failed to
			// login.\nMessage: …", "State mismatch. Possible CSRF attack",
			// "Error during authentication: <error>", "Failed to authenticate
			// with authorization code: …", "Failed to open browser
			// automatically. …", "Code Assist login required, but interactive
			// consent could not be obtained.", "Could not load credentials",
			// "No id_token obtained after refreshing tokens."
			"failed to login.", "possible csrf attack", "error during authentication:",
			"failed to authenticate with authorization code", "failed to open browser automatically",
			"code assist login required", "could not load credentials", "no id_token obtained"}},
	// No credentials configured for the chosen auth method (config/auth.ts,
	// validateNonInterActiveAuth.ts, acpSessionManager.ts): "When using
	// Gemini API, you must specify the GEMINI_API_KEY environment
	// variable.", "Please set an Auth method in your settings.json …", an
	// enforced auth type that is not the current one, "Gemini API key is
	// missing or not configured." (ACP).
	{id: "gemini.auth_method_unset.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"please set an auth method", "the enforced authentication type is", "is enforced, but no authentication is configured",
			"you must specify the gemini_api_key", "when using vertex ai, you must specify", "gemini api key is missing",
			// python-genai's client: "Project or API key must be set when using
			// the Vertex AI API."
			"api key must be set when using the vertex ai api",
			// The interactive sign-in (ui/auth/useAuth.ts, AuthDialog.tsx).
			"authentication is enforced to be", "existing api key detected", "no authentication method selected",
			"must select an auth method"}},
	// The rest of Gemini CLI's setup: an auth type it does not know
	// ("Invalid auth method selected.", codeAssist.ts "Unsupported authType:
	// …"), a bad GOOGLE_GEMINI_BASE_URL ("Invalid custom base URL: …"), the
	// Cloud Shell default project refused (server.ts).
	{id: "gemini.setup_invalid.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"invalid auth method selected", "unsupported authtype:", "invalid custom base url:",
			"cloud shell gemini project was denied", "invalid value for gemini_default_auth_type",
			// What stops the CLI before a turn (FatalConfigError,
			// FatalSandboxError, FatalUntrustedWorkspaceError): a headless run in
			// an untrusted folder ("Gemini CLI is not running in a trusted
			// directory. …"), a feature the admin turned off ("YOLO mode is
			// disabled by your administrator. …"), the sandbox that cannot start,
			// settings that do not load ("Please fix the configuration file(s)
			// and try again.").
			"not running in a trusted directory", "is disabled by your administrator", "fatalsandboxerror", "fatalconfigerror",
			"fataluntrustedworkspaceerror", "(from gemini_sandbox)", "failed to determine command for sandbox",
			"please fix the configuration file(s)",
			// An ACP host switching a session to auto-edit or YOLO in a folder
			// the user never trusted (packages/core/src/config/config.ts
			// setApprovalMode: "Cannot enable privileged approval modes in an
			// untrusted folder."; the ACP agent returns it as -32603 with
			// data.details), and the sandbox image that is not there
			// (packages/cli/src/utils/sandbox.ts: FatalSandboxError "Sandbox
			// image '<image>' is missing or could not be pulled. Please check
			// the image name, your network connection, or notify …"): the
			// folder must be trusted, the image built or pulled, first.
			"cannot enable privileged approval modes in an untrusted folder", "is missing or could not be pulled",
			// The docs anchor setup.ts appends to ProjectIdRequiredError (its
			// only use at 5411f113ca), read when a host's wrapping broke the
			// GOOGLE_CLOUD_PROJECT the words above key on ("… setting the\n
			// GOOGLE _CLOUD_PROJECT env var. See …#workspace-gca", AionUi).
			// After gemini.sign_in_failed.v1, which keeps the login's own
			// failure.
			"gemini-cli-auth-docs#workspace-gca"}},
	// A non-interactive run with no prompt at all (gemini.tsx: "No input
	// provided via stdin. Input can be provided by piping data into gemini
	// or using the --prompt option."): the same invocation fails again.
	{id: "gemini.no_input.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"no input provided via stdin",
			// "Error: The --prompt-interactive flag cannot be used when input
			// is piped from stdin." (and its earlier "is not supported when
			// piping input from stdin").
			"flag cannot be used when input is piped", "flag is not supported when piping input",
			// A slash command that needs the interactive UI
			// (nonInteractiveCliCommands.ts).
			"exiting due to a confirmation prompt", "not supported in non-interactive mode"}},
	// A settings file that does not load (gemini.tsx: "Error in <path>:
	// <parse error>\nPlease fix <path> and try again.").
	{id: "gemini.settings_invalid.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		gate:  []string{"and try again."},
		check: "the line before says which settings file: \"Please fix <path> and try again.\"",
		match: func(s *scan) int {
			i := strings.Index(s.low, "please fix ")
			if i < 0 || !strings.Contains(s.low[i:], "settings.json and try again.") {
				return -1
			}
			return i
		}},
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
		any: []string{"reached max session turns", "fatalturnlimitederror",
			// stream-json's error event when the cap was not configured.
			"maximum session turns exceeded",
			// The interactive and non-interactive words for the same caps and
			// for the loop detector halting the turn (useGeminiStream.ts,
			// nonInteractiveCli.ts): "The session has reached the maximum
			// number of turns: 100. …", "A potential loop was detected. … The
			// request has been halted.", "Loop detected, stopping execution".
			"reached the maximum number of turns", "potential loop was detected", "loop detected, stopping execution"}},
	// Code Assist's 403s that name their reason (googleQuotaErrors.ts,
	// errors.ts): VALIDATION_REQUIRED (the account must be verified in a
	// browser, ValidationRequiredError) and TOS_VIOLATION (the account is
	// suspended, AccountSuspendedError "This service has been disabled in
	// this account for violation of Terms of Service."), ahead of the
	// PERMISSION_DENIED status they come with.
	{id: "gemini.validation_required.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{`"reason":"validation_required"`, `"reason": "validation_required"`}},
	{id: "gemini.account_suspended.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"tos_violation", "violation of terms of service"}},
	{id: "gemini.permission_denied.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{`"status":"permission_denied"`, `"status": "permission_denied"`}},
	// FAILED_PRECONDITION: the project or account is not in the state the
	// call needs ("Precondition check failed.", Code Assist's answer to an
	// account it cannot onboard); google.rpc says not to retry until that
	// state is fixed. The words that say which state (a region, billing)
	// decide first.
	{id: "google.failed_precondition.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.75,
		any: []string{`"status":"failed_precondition"`, `"status": "failed_precondition"`, "(status: failed_precondition)",
			"9 failed_precondition:", "precondition check failed"}},

	{id: "gemini.model_overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.9,
		gate: []string{"model is overloaded"},
		match: func(s *scan) int {
			// The API's own sentence is an error wherever it sits (Gemini CLI's
			// "Failed to generate content with model …: The model is
			// overloaded. Please try again later."); the bare words need an
			// error-shaped line.
			if i := strings.Index(s.low, "model is overloaded. please try again later"); i >= 0 {
				return i
			}
			return s.errorText("model is overloaded")
		}},
	// Gemini CLI's own verdict in its JSON output ({"error":{"type":
	// "TerminalQuotaError","message":…}}, stream-json's result event,
	// errors.ts getErrorType): a quota it will not retry, whatever the
	// message left it to say. Capacity, credits and a zero limit are
	// TerminalQuotaErrors too; their words decide.
	{id: "gemini.terminal_quota_type.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.7,
		any:  []string{`"type":"terminalquotaerror"`, `"type": "terminalquotaerror"`, "terminalquotaerror:"},
		none: []string{"capacity", "high demand", "credit", "limit: 0"}},
	// Gemini CLI's TerminalQuotaError when the stated wait is over its
	// five-minute ceiling (googleQuotaErrors.ts before the "Suggested retry
	// after" wording: "Quota limit requires a long delay of 3600s."): the
	// CLI gave up waiting, so a replay waits out the same window.
	{id: "gemini.long_quota_delay.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.8,
		any: []string{"quota limit requires a long delay"}},
	// A Code Assist quota metric named without its window ("Quota exceeded
	// for quota metric 'Gemini 2.5 Pro Requests'", which Gemini CLI's
	// quotaErrorDetection.ts took for the Pro model's daily quota and
	// switched to Flash on): the per-minute and per-day ids decide when
	// the text has them; without either, the side that does not replay.
	{id: "gemini.quota_metric_unstated.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.6,
		any:  []string{"quota exceeded for quota metric 'gemini"},
		none: []string{"per minute", "perminute", "per_minute", "please retry in", "suggested retry after", "retrydelay"}},
	// Its RetryableQuotaError in the same JSON output: a rate it waited on
	// and would wait on again.
	{id: "gemini.retryable_quota_type.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.7,
		any: []string{`"type":"retryablequotaerror"`, `"type": "retryablequotaerror"`, "retryablequotaerror:"}},
	// Provisioned Throughput spent for this moment ("Too many requests.
	// Exceeded the Provisioned Throughput.", 429): a rate, not the shared
	// capacity vertex.resource_exhausted.v1 reads.
	{id: "vertex.provisioned_throughput.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.8,
		any: []string{"exceeded the provisioned throughput"}},
	// Vertex per-model request quotas (Claude on Vertex): per-minute in
	// practice, so a rate limit; raising them is the user's other option.
	{id: "vertex.quota_exceeded.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.75,
		all: []string{"resource_exhausted", "quota exceeded for"}},
	// The same quota message without its status: the metric names the
	// Vertex service ("Quota exceeded for
	// aiplatform.googleapis.com/online_prediction_requests_per_base_model
	// with base model: …"); a per-day metric is read by quota.* first.
	{id: "vertex.quota_metric.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.7,
		any:  []string{"quota exceeded for aiplatform.googleapis.com/"},
		none: []string{"per_day", "perday", "per day"}},
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
			"returned an empty response or malformed tool call",
			// geminiChat.ts's InvalidStreamError texts (NO_FINISH_REASON,
			// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, NO_RESPONSE_TEXT,
			// THINKING_ONLY_RESPONSE) and the non-interactive mode's words for
			// them (utils/constants.ts): Gemini CLI retries these itself, so
			// once they end a turn they are the model's flake. The blocked and
			// MAX_TOKENS endings are terminal (gemini.response_blocked.v1,
			// gemini.output_token_limit.v1).
			// The EmptyStreamError of Gemini CLI 0.1–0.5 (and of Qwen Code,
			// forked from it): "Model stream was invalid or completed without
			// valid content." (geminiChat.ts processStreamResponse).
			"model stream was invalid", "completed without valid content",
			"model stream ended with", "model stream ended without", "returned an empty response",
			"returned an empty text response", "but no final response text",
			// js-genai's stream reader (_api_client.ts): an empty body, a chunk
			// that does not parse.
			"response body is empty", "exception parsing stream chunk"}},
	// The Gemini API refusing a conversation whose turns do not pair up:
	// "Please ensure that the number of function response parts is equal to
	// the number of function call parts of the function call turn.",
	// "Please ensure that function call turn comes immediately after a user
	// turn or after a function response turn.", and Gemini 3's "Function
	// call is missing a thought_signature in functionCall parts." (400
	// INVALID_ARGUMENT): the history itself is broken, every replay of it
	// fails.
	{id: "gemini.history_invalid.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.85,
		any: []string{"number of function response parts is equal to", "function call turn comes immediately after",
			"function call turns come immediately after", "function response turn comes immediately after",
			"missing a thought_signature",
			// The same 400 INVALID_ARGUMENT for turns out of order: "Please
			// ensure that multiturn requests alternate between user and
			// model." (catalogue google-api-multiturn-alternate).
			"multiturn requests alternate between user and model"}},
	// A response the model's own filters ended empty: "Model stream ended due
	// to safety settings (SAFETY) …", RECITATION, OTHER, and the
	// non-interactive mode's "The model response was blocked due to safety
	// settings." / "… recitation/copyright filters." / "… other policy
	// settings.": the same prompt is blocked again. The interactive UI's
	// notices for the same finish reasons (useGeminiStream's
	// finishReasonMessages: "Response stopped due to safety reasons.",
	// "… recitation policy.", "… unsupported language.", "… forbidden
	// terms.", "… prohibited content.", "… sensitive personally identifiable
	// information.", "… image safety violations.", "… image prohibited
	// content.", "… image recitation policy."; not its malformed or
	// unexpected tool call, whose replay may well pass), and
	// generative-ai-go's BlockedError ("blocked: candidate:
	// FinishReasonSafety", "blocked: prompt: BlockReasonSafety").
	{id: "gemini.response_blocked.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{"model stream ended due to", "model response was blocked due to",
			"response stopped due to safety", "response stopped due to recitation", "response stopped due to unsupported language",
			"response stopped due to forbidden terms", "response stopped due to prohibited content", "response stopped due to sensitive personally",
			"response stopped due to image safety", "response stopped due to image prohibited", "response stopped due to image recitation",
			"blocked: candidate: finishreason", "blocked: prompt: blockreason"},
		none: []string{"(max_tokens)"}},
	// Vertex's and the Gemini API's words for a request too big for the
	// model: "Unable to submit request because the input token count is
	// 131335 but model only supports up to 131072. Reduce the input token
	// count and try again.", "Request payload size exceeds the limit:
	// 20971520 bytes." (both 400 INVALID_ARGUMENT).
	{id: "gemini.input_too_large.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		any: []string{"but model only supports up to", "reduce the input token count", "request payload size exceeds the limit"}},
	// MAX_TOKENS with nothing but thoughts: "Model stream ended due to token
	// limit exhaustion (MAX_TOKENS) with empty response text." / "Model
	// response was truncated because it exceeded the token limit. Try using
	// /compress to free up context space."
	{id: "gemini.output_token_limit.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.8,
		any: []string{"token limit exhaustion (max_tokens)", "truncated because it exceeded the token limit"}},

	// INVALID_ARGUMENT with nothing more specific (a key, a region, a
	// context overflow decide first): Gemini CLI's "[API Error: <message>
	// (Status: INVALID_ARGUMENT)]" (errorParsing.ts), the JSON body, gRPC's
	// "3 INVALID_ARGUMENT:".
	{id: "gemini.invalid_argument.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.75,
		any: []string{"(status: invalid_argument)", `"status":"invalid_argument"`, `"status": "invalid_argument"`, "3 invalid_argument:",
			// The API's default INVALID_ARGUMENT message, however it is wrapped,
			// and its field validation ("* GenerateContentRequest.tools[0]
			// .function_declarations[3].parameters.properties[x].items: missing
			// field.").
			"request contains an invalid argument", "* generatecontentrequest.",
			// langchain-google-genai's wrapper for any InvalidArgument
			// ("ChatGoogleGenerativeAIError: Invalid argument provided to
			// Gemini: 400 …", chat_models.py _chat_with_retry); a key, a
			// region, a broken history or a context overflow in the same text
			// decide first (catalogue google-api-langchain-invalid-argument-image).
			"invalid argument provided to gemini",
			// Google's parse failure for the body ("Invalid JSON payload
			// received. Unknown name \"foo\" at 'generation_config': Cannot find
			// field.").
			"invalid json payload received"}},
	{id: "gemini.internal.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{`"status":"internal"`, `"status": "internal"`, "13 internal:",
			// The Gemini API's 500 message, bare as Gemini CLI's ACP mode and
			// its "[API Error: …]" pass it on.
			"an internal error has occurred. please retry",
			// Gemini CLI's "(Status: X)" suffix (errorParsing.ts) and gRPC's
			// "2 UNKNOWN:" for the server-side statuses.
			"(status: internal)", "(status: unknown)", "2 unknown:"}},
	{id: "gemini.unavailable.v1", band: bandGeneric, code: "unavailable", class: ClassTransient, conf: 0.8,
		any: []string{`"status":"unavailable"`, `"status": "unavailable"`, "got status: unavailable", "14 unavailable:", "deadline_exceeded",
			// Google's UNAVAILABLE messages without their status, and
			// DEADLINE_EXCEEDED's ("Deadline expired before operation could
			// complete.", the 504 Gemini CLI prints as [API Error: …]).
			"deadline expired before operation",
			"service temporarily unavailable", "the service is currently unavailable",
			// The "(Status: X)" suffix; ABORTED is a concurrency conflict
			// google.rpc says to retry.
			"(status: unavailable)", "(status: aborted)", "10 aborted:"}},
	// NOT_FOUND with nothing more specific: Gemini CLI makes every 404 a
	// ModelNotFoundError.
	{id: "gemini.not_found_status.v1", band: bandGeneric, code: "model", class: ClassUserAction, conf: 0.7,
		any: []string{"(status: not_found)", `"status":"not_found"`, `"status": "not_found"`, "5 not_found:"}},
}
