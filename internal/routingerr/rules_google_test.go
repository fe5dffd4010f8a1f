package routingerr

// Fixtures for the rules read from Gemini CLI, Qwen Code, opencode and the
// Vercel AI SDK sources (catalogue gemini-cli.jsonl, qwen-code.jsonl,
// opencode.jsonl); positives come from the catalogue, these are the near
// misses each rule must leave alone.
func init() {
	for id, f := range map[string]struct{ pos, neg []Evidence }{
		"gemini.cancelled.v1": {
			pos: []Evidence{txt("FatalCancellationError: Operation cancelled.")},
			neg: []Evidence{txt("Operation cancelling is not supported"), txt("the cancelled operations list is empty")},
		},
		"gemini.response_blocked.v1": {
			pos: []Evidence{txt("⚠️  Response stopped due to prohibited content."), txt("blocked: candidate: FinishReasonSafety"), txt("[ERROR] The model response was blocked due to safety settings.")},
			neg: []Evidence{txt("Response stopped due to malformed function call."), txt("safety reasons aside, the response stopped"), txt("Model stream ended due to token limit exhaustion (MAX_TOKENS) with empty response text."),
				txt("safety settings updated")},
		},
		"gemini.output_token_limit.v1": {
			pos: []Evidence{txt("Model stream ended due to token limit exhaustion (MAX_TOKENS) with empty response text.")},
			neg: []Evidence{txt("finishReason: MAX_TOKENS"), txt("the token limit is 8192")},
		},
		"gemini.auth_method_unset.v1": {
			pos: []Evidence{txt("When using Gemini API, you must specify the GEMINI_API_KEY environment variable.")},
			neg: []Evidence{txt("GEMINI_API_KEY is set"), txt("auth method: oauth-personal")},
		},
		"gemini.setup_invalid.v1": {
			pos: []Evidence{txt("Invalid auth method selected."),
				txt("This account requires setting the GOOGLE_CLOUD_\nPROJECT env var. See https://goo.gle/gemini-cli-auth-docs#workspace-gca")},
			neg: []Evidence{txt("auth method selected: gemini-api-key"), txt("custom base URL: http://localhost:8080"),
				txt("see https://goo.gle/gemini-cli-auth-docs"), txt("Privileged approval modes are enabled in this trusted folder."),
				txt("the sandbox image is missing a tag"), txt("image could not be pulled because the registry is down (503)")},
		},
		"gemini.invalid_argument.v1": {
			pos: []Evidence{txt("[API Error: Request contains an invalid argument. (Status: INVALID_ARGUMENT)]"),
				txt("ChatGoogleGenerativeAIError: Invalid argument provided to Gemini: 400 * GenerateContentRequest.contents: contents is not specified"),
				txt(`{"error":{"message":"Failed to generate image: Gemini API error 400: Request contains an invalid argument.","type":"api_error","code":"api_error"}}`)},
			neg: []Evidence{txt("[API Error: Internal error encountered. (Status: INTERNAL)]"), txt("invalid argument count"),
				txt("invalid arguments provided to the gemini tool")},
		},
		"gemini.validation_required.v1": {
			pos: []Evidence{txt(`{"error":{"code":403,"message":"Verify your account to continue.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VALIDATION_REQUIRED","domain":"cloudcode-pa.googleapis.com"}]}}`)},
			neg: []Evidence{txt("validation required for field name"), txt(`{"reason":"RATE_LIMIT_EXCEEDED"}`)},
		},
		"gemini.account_suspended.v1": {
			pos: []Evidence{txt("[API Error: This service has been disabled in this account for violation of Terms of Service.]")},
			neg: []Evidence{txt("see the terms of service"), txt("service disabled for maintenance")},
		},
		"qwen.quota_reset.v1": {
			pos: []Evidence{txt("Quota exhausted: Your token-plan 1-week quota has been exhausted. The quota will reset at 07-27 09:25:00 UTC.")},
			neg: []Evidence{txt("Quota exceeded for requests per minute; the window will reset at 12:01"), txt("the counter will reset at midnight")},
		},
		"genai_js.stream_cut.v1": {
			pos: []Evidence{txt("Error: [GoogleGenerativeAI Error]: Failed to parse stream"), txt("[GoogleGenerativeAI Error]: Error reading from the stream")},
			neg: []Evidence{txt("[GoogleGenerativeAI Error]: Request aborted when reading from the stream"), txt("Failed to parse stream options: unknown key"),
				txt("[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-pro:generateContent: [400 Bad Request] API key not valid.")},
		},
		"genai.incomplete_json.v1": {
			pos: []Evidence{txt("Incomplete JSON segment at the end")},
			neg: []Evidence{txt("JSON segment complete"), txt("incomplete json")},
		},
		"opencode.context_overflow_error.v1": {
			pos: []Evidence{{RPCCode: -32603, HasRPCError: true, RPCMessage: "Internal error: Request Entity Too Large", RPCData: `{"service":"session","errorName":"ContextOverflowError"}`},
				txt("Error: Session too large to compact - context exceeds model limit even after stripping media")},
			neg: []Evidence{txt("context overflow handled by compaction"), txt(`{"errorName":"APIError"}`), txt("session too large to compact? no, it compacted fine")},
		},
		"opencode.content_filter_error.v1": {
			pos: []Evidence{txt("ContentFilterError: The response was blocked by the provider's content filter.")},
			neg: []Evidence{txt("content filter: off"), txt("filter error in grep")},
		},
		"opencode.oauth_error.v1": {
			pos: []Evidence{txt("ProviderAuthOauthCallbackFailed: ProviderAuthOauthCallbackFailed")},
			neg: []Evidence{txt("ProviderAuthError: Missing API key"), txt("oauth callback ok")},
		},
		"vertex.provisioned_throughput.v1": {
			pos: []Evidence{txt(`{"error":{"code":429,"message":"Too many requests. Exceeded the Provisioned Throughput.","status":"RESOURCE_EXHAUSTED"}}`)},
			neg: []Evidence{txt("provisioned throughput purchased"), txt("throughput exceeded expectations")},
		},
		"gemini.input_too_large.v1": {
			pos: []Evidence{txt("400 Unable to submit request because the input token count is 3601938 but model only supports up to 1000000.")},
			neg: []Evidence{txt("the model supports up to 1M tokens"), txt("payload size: 20 MB")},
		},
		"gemini.no_input.v1": {
			pos: []Evidence{txt("No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.")},
			neg: []Evidence{txt("input provided via stdin"), txt("no input file given")},
		},
		"aisdk.unsupported.v1": {
			pos: []Evidence{txt("AI_UnsupportedFunctionalityError: 'image file parts' functionality not supported.")},
			neg: []Evidence{txt("this functionality is supported"), txt("unsupported option --foo")},
		},
		"google.credentials_missing.v1": {
			pos: []Evidence{txt("Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")},
			neg: []Evidence{txt("API key found in environment"), txt("authentication credential refreshed")},
		},
		"google.billing_disabled.v1": {
			pos: []Evidence{txt("This API method requires billing to be enabled. Please enable billing on project #123 by visiting https://console.developers.google.com/billing/enable?project=123 then retry."),
				txt("google.api_core.exceptions.ResourceExhausted: 429 Your billing account has exceeded its spending cap.")},
			neg: []Evidence{txt("billing is enabled for this project"), txt("free quota tier: 50 requests per day"),
				txt("Set a monthly spending cap to avoid surprises"), txt("spending cap: $50, used $12")},
		},
		"google.project_denied.v1": {
			pos: []Evidence{txt("Your project has been denied access. Please contact support.")},
			neg: []Evidence{txt("the project has access to the API"), txt("referer header set")},
		},
		"google.failed_precondition.v1": {
			pos: []Evidence{txt("[API Error: Precondition check failed. (Status: FAILED_PRECONDITION)]")},
			neg: []Evidence{txt("precondition met"), txt(`{"status":"FAILED"}`)},
		},
		"gemini.history_invalid.v1": {
			pos: []Evidence{txt("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")},
			neg: []Evidence{txt("the function call returned 3 parts"), txt("thought signature verified"),
				txt("multiturn requests are supported by this model")},
		},
		"gemini.license_mismatch.v1": {
			pos: []Evidence{txt("License type mismatch detected.\nYou selected: Gemini Code Assist (GCA)\nBut the server returned: Free Tier")},
			neg: []Evidence{txt("license type: Apache-2.0"), txt("mismatch detected in checksum")},
		},
		"gemini.settings_invalid.v1": {
			pos: []Evidence{txt("Error in /home/u/.gemini/settings.json: Unexpected token\nPlease fix /home/u/.gemini/settings.json and try again.")},
			neg: []Evidence{txt("Please fix the typo and try again."), txt("settings.json saved")},
		},
		"gemini.long_quota_delay.v1": {
			pos: []Evidence{{HTTPStatus: 429, Err: "Quota limit requires a long delay of 3600s."}},
			neg: []Evidence{txt("quota limit hit. Retrying after 45s."), txt("a long delay of 3s before retry")},
		},
		"http.reason_phrase_unauthorized.v1": {
			pos: []Evidence{txt("AI_APICallError: Unauthorized")},
			neg: []Evidence{txt("the proxy logged an unauthorized attempt from another host last week and nothing else happened")},
		},
		"http.reason_phrase_forbidden.v1": {
			pos: []Evidence{txt("AI_APICallError: Forbidden")},
			neg: []Evidence{txt("writing outside the workspace is forbidden by policy, so the tool skipped it and continued")},
		},
		"http.reason_phrase_payment.v1": {
			pos: []Evidence{txt("Payment Required")},
			neg: []Evidence{txt("the invoice says payment required by friday but the account is in good standing")},
		},
		"http.reason_phrase_too_large.v1": {
			pos: []Evidence{txt("AI_APICallError: Request Entity Too Large")},
			neg: []Evidence{txt("nginx client_max_body_size avoids request entity too large responses in most setups we run")},
		},
		"gemini.quota_metric_unstated.v1": {
			pos: []Evidence{txt("Quota exceeded for quota metric 'Gemini 2.5 Pro Requests'")},
			neg: []Evidence{txt("[API Error: Quota exceeded for quota metric 'Gemini 2.5 Pro Requests' and limit 'Gemini 2.5 Pro Requests per minute per user per tier'"),
				txt("Quota exceeded for quota metric 'Generate Content API requests per minute'")},
		},
		"vertex.quota_metric.v1": {
			pos: []Evidence{txt("Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude-sonnet-4. Please submit a quota increase request.")},
			neg: []Evidence{txt("Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_day_per_project"), txt("quota for aiplatform.googleapis.com raised")},
		},
		"opencode.free_usage_exceeded.v1": {
			pos: []Evidence{txt("Free usage exceeded")},
			neg: []Evidence{txt("Free usage exceeded, subscribe to Go https://opencode.ai/go"), txt("the free usage tier was exceeded by many users last month, so the docs now explain the limits in detail")},
		},
		"dashscope.billing_message.v1": {
			pos: []Evidence{txt("The prepaid bill is overdue."),
				txt("The free tier of the model has been exhausted. If you wish to continue access the model on a paid basis, disable the free-tier-only mode.")},
			neg: []Evidence{txt("if the prepaid bill is overdue the console shows a banner and emails the account owner")},
		},
		"gemini.terminal_quota_type.v1": {
			pos: []Evidence{txt(`{"session_id":"6b1d","error":{"type":"TerminalQuotaError","message":"[API Error: Quota exceeded. (Status: RESOURCE_EXHAUSTED)]","code":1}}`)},
			neg: []Evidence{txt(`{"error":{"type":"TerminalQuotaError","message":"No capacity available for model gemini-3-pro-preview on the server"}}`),
				txt(`{"error":{"type":"RetryableQuotaError","message":"Quota exceeded."}}`)},
		},
		"gemini.retryable_quota_type.v1": {
			pos: []Evidence{txt(`{"type":"result","status":"error","error":{"type":"RetryableQuotaError","message":"[API Error: Quota exceeded. (Status: RESOURCE_EXHAUSTED)]"}}`)},
			neg: []Evidence{txt(`{"error":{"type":"TerminalQuotaError","message":"Quota exceeded."}}`), txt("retryable quota errors are retried")},
		},
		"gemini.not_found_status.v1": {
			pos: []Evidence{txt("[API Error: Something went wrong. (Status: NOT_FOUND)]")},
			neg: []Evidence{txt("status: found"), txt(`{"status":"NOT_STARTED"}`)},
		},
		"qwen.oauth_failed.v1": {
			pos: []Evidence{txt("Device token poll failed: expired_token - The device code has expired")},
			neg: []Evidence{txt("device authorization succeeded"), txt("refresh token saved")},
		},
		"aisdk.no_output.v1": {
			pos: []Evidence{txt("AI_NoOutputGeneratedError: No output generated. Check the stream for errors.")},
			neg: []Evidence{txt("No output generated for this cell"), txt("type validation passed")},
		},
		"aisdk.invalid_request.v1": {
			pos: []Evidence{txt("AI_InvalidPromptError: Invalid prompt: messages must not be empty")},
			neg: []Evidence{txt("Invalid prompt template name"), txt("invalid request id")},
		},
		"aisdk.missing_tool_results.v1": {
			pos: []Evidence{txt("AI_MissingToolResultsError: Tool result is missing for tool call call_abc123.")},
			neg: []Evidence{txt("tool result received for tool call call_abc123"), txt("missing tool name")},
		},
		"aisdk.prompt_schema.v1": {
			pos: []Evidence{txt("AI_InvalidPromptError: Invalid prompt: The messages do not match the ModelMessage[] schema.")},
			neg: []Evidence{txt("AI_InvalidPromptError: Invalid prompt: messages must not be empty"),
				txt("the messages match the ModelMessage[] schema"), txt("ModelMessage[] schema updated")},
		},
		"aisdk.no_such_model.v1": {
			pos: []Evidence{txt("AI_NoSuchModelError: No such languageModel: gpt-9")},
			neg: []Evidence{txt("no such file or directory"), txt("languageModel: gpt-4o")},
		},
		"aisdk.setting_missing.v1": {
			pos: []Evidence{txt("AI_LoadSettingError: Google Vertex project setting is missing. Pass it using the 'project' parameter or the GOOGLE_VERTEX_PROJECT environment variable.")},
			neg: []Evidence{txt("setting loaded from environment"), txt("project setting: my-project")},
		},
		"aisdk.forbidden.v1": {
			pos: []Evidence{txt("GatewayForbiddenError: Forbidden")},
			neg: []Evidence{txt("you have permission to access this resource"), txt("gateway forwarded the request")},
		},
		"opencode.proxy_unauthorized.v1": {
			pos: []Evidence{txt("Unauthorized: request was blocked by a gateway or proxy. Your authentication token may be missing or expired — try running `opencode auth login <your provider URL>` to re-authenticate.")},
			neg: []Evidence{txt("authentication token refreshed"), txt("token expires in 3600s")},
		},
		"opencode.config_invalid.v1": {
			pos: []Evidence{txt("Config file at /home/u/.config/opencode/opencode.json is not valid JSON(C): Unexpected token")},
			neg: []Evidence{txt("configuration is valid"), txt("config file loaded")},
		},
		"aisdk.api_key_missing.v1": {
			pos: []Evidence{txt("AI_LoadAPIKeyError: OpenAI API key is missing. Pass it using the 'apiKey' parameter or the OPENAI_API_KEY environment variable.")},
			neg: []Evidence{txt("API key is set; passing it using the header"), txt("the key must be a string of 32 characters")},
		},
		"opencode.config_file_invalid.v1": {
			pos: []Evidence{txt("Config file at /home/u/.config/opencode/opencode.json is invalid\n↳ Unrecognized key(s) in object: 'foo'")},
			neg: []Evidence{txt("Loaded config file at /home/u/.config/opencode/opencode.json\nmodel id is invalid"), txt("config file at ~/.config/opencode/opencode.json"), txt("Loaded config file at ./opencode.json; model name is invalid")},
		},
		"opencode.provider_overloaded.v1": {
			pos: []Evidence{txt("Provider is overloaded")},
			neg: []Evidence{txt("provider is online"), txt("overloaded operator + for type")},
		},
		"opencode.rate_limited.v1": {
			pos: []Evidence{txt("Rate Limited"),
				// Hermes' final report: the line is error-shaped (retryReport).
				txt("❌ Rate limited after 3 retries — HTTP 429: Too Many Requests"),
				// buzz-acp's AcpError::AgentError wraps the agent's JSON-RPC
				// error: the line is error-shaped (isErrorShaped).
				txt("     configured_model=grok-4.6 pid=1 error=Agent reported error (code -32003): Rate limited")},
			neg: []Evidence{txt("requests are no longer rate limited after the upgrade"),
				txt("agent reported that the queue was rate limited yesterday")},
		},
		"opencode.idle_timeout.v1": {
			pos: []Evidence{txt("Idle timeout: no data received from provider")},
			neg: []Evidence{txt("data received from provider in 120ms"), txt("idle timeout set to 300s")},
		},
		"google.per_day_violation.v1": {
			pos: []Evidence{txt(`429 RESOURCE_EXHAUSTED. {'details': [{'violations': [{'quotaId': 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'}, {'quotaId': 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'}]}]}`)},
			neg: []Evidence{txt(`'quotaId': 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'`), txt("quotaId requests per day and per minute"),
				txt(`"quotaId": "GenerateRequestsPerDayPerProjectPerModel", "reason": "MODEL_CAPACITY_EXHAUSTED"`)},
		},
		"os.no_space.v1": {
			pos: []Evidence{txt("Error executing tool write_file: No space left on device. Free up some disk space and try again.")},
			neg: []Evidence{txt("space left on device: 12 GB"), txt("no spaces allowed in file names")},
		},
	} {
		ruleFixtures[id] = f
	}
}
