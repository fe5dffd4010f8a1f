package routingerr

import "strings"

// The Vercel AI SDK (packages/ai, provider, provider-utils, gateway) as
// opencode and other agents relay it, and opencode's own wording around
// it (provider/error.ts, session/retry.ts, cli/error.ts). Catalogue
// opencode.jsonl ai-sdk-*, ai-gateway-*, opencode-*. The SDK's error names
// stay in the text ("AI_NoOutputGeneratedError: …"); a wrapped provider
// error inside them decides first (these rules sit in late bands).
var aisdkRules = []rule{
	// AI_TypeValidationError ("Type validation failed: Value: <json>.\nError
	// message: <zod issues>", packages/provider type-validation-error.ts) on a
	// chunk that carries no error at all and fails the OpenAI-compatible
	// chunk schema for want of "choices" (@ai-sdk/openai-compatible's
	// createOpenAICompatibleChatChunkSchema is a union of a chunk with a
	// choices array and the error schema, so zod reports both paths): the
	// endpoint streams a shape this provider package does not read, e.g. a
	// relay's own usage or billing record. The same endpoint sends it again
	// on a replay; nothing says the provider failed. Unclassified, before
	// aisdk.no_output.v1 reads every validation failure as a bad stream
	// (catalogue opencode ai-sdk-type-validation-no-choices).
	{id: "aisdk.chunk_without_choices.v1", band: bandGeneric, code: "unknown", class: ClassUnclassified, conf: 0.5,
		gate:  []string{"type validation failed: value: "},
		check: "the value has no error and the schema wanted choices",
		match: func(s *scan) int {
			i := strings.Index(s.low, "type validation failed: value: ")
			if i < 0 {
				return -1
			}
			e := strings.Index(s.low[i:], "error message:")
			if e < 0 {
				return -1
			}
			value, issues := s.low[i:i+e], s.low[i+e:]
			if strings.Contains(value, `"error":`) || strings.Contains(value, `"error" :`) || strings.Contains(value, `"choices"`) {
				return -1
			}
			if !strings.Contains(issues, `"path":["choices"]`) && !strings.Contains(issues, `"path": ["choices"]`) {
				return -1
			}
			return i
		}},
	// A stream that ended without anything usable: no output or content, an
	// empty body, a chunk that does not parse or validate, a tool the model
	// made up, the Gateway's invalid or failed upstream response.
	{id: "aisdk.no_output.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.6,
		any: []string{"ai_nooutputgeneratederror", "ai_nocontentgeneratederror", "ai_emptyresponsebodyerror",
			"ai_typevalidationerror", "ai_jsonparseerror", "ai_noobjectgeneratederror", "ai_nosuchtoolerror", "gatewayresponseerror",
			"invalid response from gateway", "gatewayfaileddependencyerror",
			// opencode's StructuredOutputError: the model's output did not fit
			// the requested schema after its retries.
			"structuredoutputerror"}},
	// The request itself is wrong: AI_InvalidPromptError ("Invalid prompt:
	// …"), AI_InvalidArgumentError, the Gateway's invalid_request_error.
	{id: "aisdk.invalid_request.v1", band: bandGeneric, code: "invalid_request", class: ClassTerminal, conf: 0.7,
		any: []string{"ai_invalidprompterror", "ai_invalidargumenterror", "gatewayinvalidrequesterror",
			// AI_DownloadError: a URL in the prompt the SDK could not fetch
			// ("Failed to download <url>: 404 Not Found"); a network cause
			// decides first.
			"ai_downloaderror"}},
	// AI_UnsupportedFunctionalityError ("'image file parts' functionality
	// not supported."): the chosen model or provider cannot take this
	// request; another model can.
	{id: "aisdk.unsupported.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.75,
		any: []string{"ai_unsupportedfunctionalityerror", "' functionality not supported"}},
	// AI_MissingToolResultsError: the history has a tool call without its
	// result, so every replay is rejected the same way.
	{id: "aisdk.missing_tool_results.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.8,
		any: []string{"ai_missingtoolresultserror", "tool result is missing for tool call", "tool results are missing for tool calls"}},
	// The messages an agent built from its stored session no longer fit the
	// SDK's own schema: standardizePrompt's "Invalid prompt: The messages do
	// not match the ModelMessage[] schema." (vercel/ai packages/ai/src/
	// prompt/standardize-prompt.ts, InvalidPromptError in
	// packages/provider/src/errors/invalid-prompt-error.ts), thrown before
	// any request is sent. The same history fails the same check on every
	// replay (catalogue opencode ai-sdk-invalid-prompt-model-message-schema).
	{id: "aisdk.prompt_schema.v1", band: bandTerminal, code: "resume_corrupted", class: ClassTerminal, conf: 0.8,
		any: []string{"the messages do not match the modelmessage[] schema"}},
	// A model id the provider does not have: AI_NoSuchModelError ("No such
	// languageModel: …"), GatewayModelNotFoundError.
	{id: "aisdk.no_such_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"ai_nosuchmodelerror", "no such languagemodel", "gatewaymodelnotfounderror"}},
	// AI_LoadSettingError ("Google Vertex project setting is missing. Pass
	// it using the 'project' parameter …").
	{id: "aisdk.setting_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"ai_loadsettingerror", "setting is missing. pass it using"}},
	// AI_LoadAPIKeyError (@ai-sdk/provider-utils loadApiKey): "<Provider> API
	// key is missing. Pass it using the 'apiKey' parameter or the <ENV>
	// environment variable." (or "… Environment variables is not supported
	// in this environment."), "<Provider> API key must be a string." — a key
	// to set before any request is made.
	{id: "aisdk.api_key_missing.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"ai_loadapikeyerror", "api key is missing. pass it using", "api key must be a string"}},
	// GatewayForbiddenError, and opencode's words for a proxy's HTML 403
	// ("Forbidden: request was blocked by a gateway or proxy. You may not
	// have permission to access this resource …").
	{id: "aisdk.forbidden.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.8,
		any: []string{"gatewayforbiddenerror", "you may not have permission to access this resource"}},
	// opencode's words for a proxy's HTML 401 ("Unauthorized: request was
	// blocked by a gateway or proxy. Your authentication token may be
	// missing or expired …").
	{id: "opencode.proxy_unauthorized.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		any: []string{"authentication token may be missing or expired"}},
	// opencode's configuration errors (cli/error.ts): "Config file at … is
	// not valid JSON(C)", "Configuration is invalid at …", an MCP server
	// needing auth it cannot do.
	{id: "opencode.config_invalid.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"is not valid json(c)", "configuration is invalid", "does not support mcp authentication"}},
	// The same errors in opencode's earlier wording (cli/error.ts before
	// "Configuration is invalid at …"): "Config file at <path> is invalid"
	// with its "↳ <issue>" lines, and "Config file at <path> is not valid
	// JSON". The verdict must follow the path, so a line that merely names
	// a config file does not match.
	{id: "opencode.config_file_invalid.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		gate: []string{"config file at "}, check: "the path is followed by \"is invalid\" or \"is not valid JSON\"",
		match: func(s *scan) int {
			i := s.index("config file at ", false)
			if i < 0 {
				return -1
			}
			// The path, then the verdict right after it.
			rest := s.low[i+len("config file at "):]
			j := strings.IndexAny(rest, " \n")
			if j <= 0 {
				return -1
			}
			rest = rest[j:]
			if strings.HasPrefix(rest, " is invalid") || strings.HasPrefix(rest, " is not valid json") {
				return i
			}
			return -1
		}},
	// opencode's NamedError names (session/message-v2.ts, provider/auth.ts),
	// in the text ("ContextOverflowError: …") or as ACP data's errorName:
	// they say what opencode decided about the provider's answer, whatever
	// the message (a bare "Request Entity Too Large", "400 status code (no
	// body)" that it read as an overflow).
	// And the ContextOverflowError opencode raises itself when compaction
	// cannot make the history fit (session/compaction.ts: "Session too
	// large to compact - context exceeds model limit even after stripping
	// media", "Conversation history too large to compact - exceeds model
	// context limit"), printed without the name.
	{id: "opencode.context_overflow_error.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		any: []string{"contextoverflowerror", "too large to compact - context exceeds model limit",
			"too large to compact - exceeds model context limit"}},
	{id: "opencode.content_filter_error.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		any: []string{"contentfiltererror"}},
	{id: "opencode.oauth_error.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"providerauthoauth"}},
	// OpenCode Zen's FreeUsageLimitError message on its own ("Free usage
	// exceeded"); the retry status that wraps it while opencode still
	// retries adds ", subscribe to Go …" and is read by
	// opencode.zen_free_limit_retry.v1 first.
	{id: "opencode.free_usage_exceeded.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.7,
		gate: []string{"free usage exceeded"}, check: checkErrorText,
		match: func(s *scan) int { return s.errorText("free usage exceeded") }},
	// The retry reasons session/retry.ts shows (and a final error can carry):
	// "Provider is overloaded", "Rate Limited".
	{id: "opencode.provider_overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.75,
		any: []string{"provider is overloaded"}},
	{id: "opencode.rate_limited.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.7,
		gate:  []string{"rate limited"},
		match: func(s *scan) int { return s.errorText("rate limited") }},
	// A 4xx reason phrase as the whole message: what opencode
	// (provider/error.ts: STATUS_CODES[status] for an empty body) and the
	// AI SDK (APICallError's statusText) pass on when the provider said
	// nothing more. The status decides, as http.reason_phrase.v1 does for
	// the 5xx phrases; "Bad Request" and "Not Found" say too little.
	{id: "http.reason_phrase_unauthorized.v1", band: bandFallback, code: "auth", class: ClassUserAction, conf: 0.55,
		gate: []string{"unauthorized"}, check: checkErrorText,
		match: func(s *scan) int { return s.errorText("unauthorized") }},
	{id: "http.reason_phrase_forbidden.v1", band: bandFallback, code: "permission", class: ClassUserAction, conf: 0.55,
		gate: []string{"forbidden"}, check: checkErrorText,
		match: func(s *scan) int { return s.errorText("forbidden") }},
	{id: "http.reason_phrase_payment.v1", band: bandFallback, code: "billing", class: ClassUserAction, conf: 0.55,
		gate: []string{"payment required"}, check: checkErrorText,
		match: func(s *scan) int { return s.errorText("payment required") }},
	{id: "http.reason_phrase_too_large.v1", band: bandFallback, code: "context_overflow", class: ClassTerminal, conf: 0.55,
		gate: []string{"request entity too large"}, check: checkErrorText,
		match: func(s *scan) int { return s.errorText("request entity too large") }},
}
