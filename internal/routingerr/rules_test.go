package routingerr

import (
	"slices"
	"testing"
	"time"
)

func txt(s string) Evidence              { return Evidence{Err: s} }
func status(code int, s string) Evidence { return Evidence{HTTPStatus: code, Err: s} }

// ruleFixtures holds, for every rule, evidence it must win on (positives,
// checked through the whole ordered table) and near misses it must not match
// (negatives, checked against the rule alone).
var ruleFixtures = map[string]struct{ pos, neg []Evidence }{
	"codex.stream_closed_before_completed.v1": {
		pos: []Evidence{txt("stream closed before response.completed"), txt("Error: websocket closed by server before response.completed")},
		neg: []Evidence{txt("stream closed after response.completed"), txt("response.completed arrived before the stream closed")}},
	"agent.own_retry.v1": {
		pos: []Evidence{txt("Attempt 2 failed with status 429. Retrying with backoff..."),
			txt("⠋ This is taking a bit longer, we’re still on it. (esc to cancel, 2m 13s)"),
			txt("stream error: stream disconnected before completion: connection reset; retrying..."),
			txt("Rate limited. Quick retry in 1s..."), txt("Server at capacity. Waiting 10s... (attempt 2)"),
			txt(`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}`),
			txt("context window exceeded — compacting and retrying"),
			txt(`time=2026-06-01T12:00:00.000Z level=WARN msg="Retrying due to rate limit" attempt=1 max_retries=8 error="429 Too Many Requests"`),
			txt("anthropic-sdk: betaRefusalFallbackMiddleware: fast fallback request to claude-opus-4-6 was rejected (HTTP 429); retrying without `speed`"),
			txt("13:02:11 - LiteLLM Router:INFO: fallback_event_handlers.py:128 - Falling back to model_group = gpt-4o"),
			txt("2026-06-01 12:00:00 [warning  ] stamina.retry_scheduled        callable='openai.resources.chat.completions.Completions.create' retry_num=1 wait_for=0.84 waited_so_far=0.0"),
			txt(`{"jsonrpc": "2.0", "method": "event", "params": {"type": "StepRetry", "payload": {"n": 1, "next_attempt": 2, "max_attempts": 3, "wait_s": 2.5, "error_type": "RateLimitError", "status_code": 429}}}`),
			txt(`{"type":"model.retry.scheduled","payload":{"attempt":2,"statusCode":429,"message":"[1302][Rate limit reached for requests]"}}`),
			txt("[INFO] Your configured model (gemini-2.5-pro) was temporarily unavailable. Switched to gemini-2.5-flash for this session."),
			txt("[agent/embedded] [ws-stream] WebSocket connect failed for session=agent:main:main; falling back to HTTP. error=Error: connect ENETUNREACH 162.159.140.245:443"),
			txt("[ws-stream] session=agent:main:main broken/disconnected; falling back to HTTP"),
			txt("Bad Gateway: Failed to proxy request (click to expand) [retrying in ~3 weeks attempt #45]")},
		neg: []Evidence{{ExitStatus: "exit status 1", Err: "Attempt 2 failed with status 429. Retrying with backoff..."},
			txt("Tip: switching account in settings keeps your history"), txt("a quick retry in production fixed it"),
			txt("the banner shows [retrying in ~ attempt #N] while it waits"),
			txt("The request failed; retrying is pointless until the key is fixed"),
			txt("503 Service Unavailable. Switched to the status page for updates."),
			txt("Attempt 1 failed. Retrying with backoff...\nError: quota exhausted"),
			{HasRPCError: true, RPCCode: 429, RPCMessage: "You have exhausted your daily quota on this model.", StderrTail: "Attempt 1 failed with status 429. Retrying with backoff..."},
			txt("The server kept failing; retrying without success for an hour"), txt("Request failed; retrying without luck"),
			txt("Falling back to model_group = gpt-4o\nlitellm.router.py::async_function_with_fallbacks() - Error occurred while trying to do fallbacks - RateLimitError"),
			txt("Trying to reach the office"), txt("this is taking a bit longer than the last build"),
			txt("the client never falls back to HTTP; it fails"), txt("falling back to HTTP is disabled: transport=websocket"),
			txt("[ws-stream] WebSocket connect failed for session=s1; falling back to HTTP. error=Error: Unexpected server response: 500\nError: 401 Incorrect API key provided"),
			txt("crush prints Retrying due to rate limit when it waits"),
			txt(`{"type":"model.retry.exhausted","payload":{"attempt":3,"statusCode":429,"message":"[1302][Rate limit reached for requests]"}}`),
			txt("the model.retry.scheduled event is logged before each retry"),
			txt("WARN Retrying due to rate limit attempt=8 max_retries=8\nfailed to process events: maximum retry attempts reached for rate limit: 8 retries"),
			txt(`{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"529 overloaded_error: Overloaded"}`),
			txt("context window exceeded — compacting and retrying\nContextWindowOverflowError: context window exceeded and recovery failed"),
			txt("stamina.retry_scheduled wait_for=0.84\nopenai.RateLimitError: Error code: 429 - rate limit"), txt("configure stamina's retry hook in settings"),
			{ExitStatus: "exit status 1", Err: `{"jsonrpc":"2.0","method":"event","params":{"type":"StepRetry","payload":{"n":1,"next_attempt":3,"max_attempts":3,"wait_s":4.0,"error_type":"RateLimitError","status_code":429}}}`}},
	},
	"google.quota_limit_zero.v1": {
		pos: []Evidence{status(429, "Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro")},
		neg: []Evidence{txt("limit: 0.5"), txt("limit: 10, model: x"), txt("java.io.EOFException: \\n not found: limit=0 content=…"),
			txt("TotalCachedContentStorageTokensPerModel limit exceeded for model gemini-2.5-flash: limit=10, requested=45776")},
	},
	"quota.daily.v1": {
		pos: []Evidence{status(429, "You have exhausted your daily quota on this model."), status(429, "Daily request limit exceeded"),
			txt("Cloud Code Assist API error (429): Individual quota reached. Contact your administrator to enable overages"),
			txt("Rate limit exceeded. Free tier limits have been reached."),
			txt("✕ [API Error: Qwen API quota exceeded: Your Qwen API quota has been exhausted. Please wait for your quota to reset.]")},
		neg: []Evidence{txt("MODEL_CAPACITY_EXHAUSTED daily quota"), txt("the quota is checked hourly"), txt("Approaching weekly limit"),
			txt("Your Qwen API quota has been raised")},
	},
	"quota.per_day_id.v1": {
		pos: []Evidence{txt(`{"error":{"status":"RESOURCE_EXHAUSTED","details":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}}`)},
		neg: []Evidence{txt("runs daily at 3am"), txt(`RESOURCE_EXHAUSTED quotaId GenerateRequestsPerMinute daily`)},
	},
	"google.quota_no_window.v1": {
		pos: []Evidence{status(429, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED"}}`),
			txt(`{"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"You exceeded your current quota, please check your plan and billing details.\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","code":429,"status":"Too Many Requests"}}`)},
		neg: []Evidence{txt(`{"message":"You exceeded your current quota, please check your plan and billing details. Please retry in 12.5s.","status":"RESOURCE_EXHAUSTED"}`),
			txt(`You exceeded your current quota. RESOURCE_EXHAUSTED quotaId: GenerateRequestsPerMinutePerProjectPerModel-FreeTier`),
			txt(`You exceeded your current quota, please check your plan and billing details. retry_delay { seconds: 44 } RESOURCE_EXHAUSTED`),
			txt("RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).")},
	},
	"quota.per_minute.v1": {
		pos: []Evidence{txt("You exceeded your current quota, please check your plan and billing details. Please retry in 2s.")},
		neg: []Evidence{txt("You exceeded your current quota, please check your plan and billing details."), txt("retry in 2s per minute")},
	},
	"google.model_capacity.v1": {
		pos: []Evidence{txt(`{"reason":"MODEL_CAPACITY_EXHAUSTED"}`)},
		neg: []Evidence{txt("capacity planning")},
	},
	"quota.no_credits.v1": {
		pos: []Evidence{txt(`{"reason":"INSUFFICIENT_G1_CREDITS_BALANCE"}`), txt("400 Access denied, please make sure your account is in good standing. (Arrearage)"),
			txt("Server returned 429 — Token limit exceeded. Visit https://console.mindshub.ai to upgrade or to top up your tokens."),
			status(402, `{"error":"You have depleted your monthly included credits. Purchase pre-paid credits to continue."}`),
			txt("You have exceeded your monthly included credits for Inference Providers.")},
		neg: []Evidence{txt("Your account is in good standing"), txt("credits added"), txt("usage included"), txt("your token allowance resets tomorrow"),
			txt("your monthly included credits refill on the 1st")},
	},
	"google.resource_exhausted_bare.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: 429, RPCMessage: "Resource has been exhausted (e.g. check quota)."}},
		neg: []Evidence{txt("resource exhaustion tests")},
	},
	"generic.content_policy.v1": {
		pos: []Evidence{txt("Invalid prompt: your prompt was flagged as potentially violating our usage policy."),
			txt("The request was rejected as a result of our safety system."), txt("Detected unsafe or sensitive content in the input."),
			txt("Output blocked by content filtering policy")},
		neg: []Evidence{txt("content filter settings"), txt("usage policy page")},
	},
	"generic.context_overflow.v1": {
		pos: []Evidence{txt("Context limit reached · /compact or /clear to continue"),
			status(500, `{"type":"error","error":{"type":"api_error","message":"internal error: 输入内容超长，请缩短后重试"}}`),
			txt(`{"finish_reason":"input_exceeds_limit"}`), status(400, `{"error":{"message":"tokens in request more than max tokens allowed"}}`),
			txt("Input token length too long")},
		neg: []Evidence{txt("context limit is 200k"), txt("input is short"), txt("输入内容已提交"), txt("token length: 12 of 128000")},
	},
	"generic.attachment.v1": {
		pos: []Evidence{txt("PDF too large. Please double press esc to edit your message and try again.")},
		neg: []Evidence{txt("the PDF is large"), txt("image was resized")},
	},
	"generic.structured_output.v1": {
		pos: []Evidence{txt("error_max_structured_output_retries")},
		neg: []Evidence{txt("structured output is valid")},
	},
	"claude_code.turn_limit.v1": {
		pos: []Evidence{txt("Error: Reached max turns (25)")},
		neg: []Evidence{txt("max turns: 25"), txt("budget 5 USD")},
	},
	"agents_sdk.max_turns.v1": {
		pos: []Evidence{txt("MaxTurnsExceededError: Max turns (25) exceeded"), txt("Streaming error: Max turns (3) exceeded"),
			txt(`{"error": "Error: Max turns (10) exceeded", "tool_name": "researcher"}`)},
		neg: []Evidence{txt("run with max turns (default 10) exceeded nothing"), txt("max turns (10) not exceeded"),
			txt("max turns () exceeded"), txt("Set max turns (10). The budget was exceeded.")},
	},
	"generic.auth_words.v1": {
		pos: []Evidence{txt("Your access token could not be refreshed because your refresh token has expired. Please log out and sign in again."),
			txt(`{"error":{"message":"Missing bearer authentication in header","type":"invalid_request_error"}}`),
			txt("The API key you provided is invalid."), txt("Error: this API key has been revoked"),
			txt("Authentication error"), txt("Session expired. Please log in again."), txt("Error: login required"),
			txt("Failed to load OAuth credentials. Please authenticate first: Error: OAuth client credentials not found in config"),
			txt(`err="No auth credentials found"`), txt("Authentication is required before this operation can be performed"),
			txt("Not authenticated. Please sign in."), txt("You must be logged in to use this feature"),
			txt("Error: you are not currently authenticated with Claude Code."),
			txt(`{"error":{"message":"Invalid token (request id: 20260601120000123456789abcdef)","type":"new_api_error"}}`),
			txt("Token not provided (request id: 20260601120000123456789abcdef)")},
		neg: []Evidence{txt("authenticated as user@example.com"), txt("signed in"), txt("token refreshed"), txt("Loaded OAuth credentials from ~/.gemini/oauth_creds.json"),
			// A parser's word for a bad character is no credential.
			txt("SyntaxError: invalid token at line 1 column 7")},
	},
	"generic.billing_words.v1": {
		pos: []Evidence{txt("Your account is not active, please check your billing details on our website."),
			txt("Your subscription has expired. Renew it to continue."), txt("Error: your Pro plan has expired"),
			txt("Your free trial has ended."), txt("Error: account overdue"),
			txt("OpenAI completion error: 403 Access denied due to overdue account"),
			status(400, `{"error":{"message":"ExceededBudget: User=<user_id> over budget. Spend=3.7e-05, Budget=0.0","type":"budget_exceeded","param":null,"code":"400"}}`),
			status(429, `{"error":{"message":"No deployments available - crossed budget for provider: Exceeded budget for provider openai: 0.0007350000000000001 >= 1e-12","type":"None","param":"None","code":"429"}}`),
			txt("Project budget exceeded for 'p-1'."), txt(`{"error":{"type":"budget_exceeded","message":"over the cap"}}`),
			txt(`{"error":{"code":"team_budget_exceeded","message":"x"}}`)},
		neg: []Evidence{txt("account active"), txt("plus sign"), txt("the crossed wires budget report"),
			txt("the project budget was not exceeded"), txt("budget_exceeded_count=0"),
			txt("Rate limit reached for requests. Add a payment method to your account to increase your rate limit.")},
	},
	"generic.model_words.v1": {
		pos: []Evidence{txt("The provided model identifier is invalid."), txt("Unknown model: claude-opus-9"), txt("Error: invalid model name 'gpt-9'"),
			status(502, `{"error":{"message":"unknown provider for model gemini-9","type":"server_error","code":"internal_server_error"}}`),
			status(503, "model gpt-image-2 is only supported on /v1/images/generations and /v1/images/edits"),
			status(400, `{"error":{"message":"acme/none-9b is not a valid model ID","code":400}}`)},
		neg: []Evidence{txt("model found"), txt("checked that anthropic/claude-x is a valid model ID"), txt("AccessDeniedException: You don't have access to the model with the specified model ID.")},
	},
	"generic.config_words.v1": {
		pos: []Evidence{txt("Access blocked by Cloudflare. This usually happens when connecting from a restricted region"),
			txt("Error: Claude Code cannot be launched inside another Claude Code session.\nNested sessions share runtime resources and will crash all active sessions.\nTo bypass this check, unset the CLAUDECODE environment variable."),
			status(400, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`),
			txt("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, Currently only named tools are supported.'}]\", 'type': 'BadRequestError', 'param': None, 'code': 400}"),
			txt("litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call. You passed model=llama3"),
			txt("kiro-cli version 1.20.0 is installed, but version >=1.25.0,<3 is required. Please upgrade kiro-cli. See https://kiro.dev for instructions.")},
		neg: []Evidence{txt("cloudflare cache hit"), txt("cwd is /srv"), txt("launched another Claude Code session in a second terminal"),
			txt("this persona requires a calm voice"), txt("gemini CLI version 0.40.0 is installed"),
			txt("start vllm with --enable-auto-tool-choice --tool-call-parser hermes"), txt("LLM provider set to ollama"),
			txt("named tools are supported on this server"),
			txt("unknown provider for model gpt-9")},
	},
	"generic.permission_words.v1": {
		pos: []Evidence{txt("Your organization must be verified to stream this model."),
			txt("You must be a named user on your organization's Standard edition subscription to use this service."),
			txt("This API key does not have permission to use the requested model."),
			txt("You do not have permission to access this resource."),
			txt("403: You are currently configured to use a Google Cloud Project but lack a Gemini Code Assist license.")},
		neg: []Evidence{txt("organization verified"), txt("the tool does not have permission bits set"),
			txt("Gemini Code Assist license assigned to you@example.com")},
	},
	"acp.auth_required_code.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32000, RPCMessage: "This integration does not support using claude.ai subscriptions."}},
		neg: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "login failed"}, {HasRPCError: true, RPCCode: -32000, RPCMessage: "tool failed"}},
	},
	"generic.high_demand.v1": {
		pos: []Evidence{txt("We're currently experiencing high demand, which may cause temporary errors."),
			txt("The server is temporarily unable to service your request due to capacity problems. Please try again later."),
			status(429, `{"object":"error","message":"Service tier capacity exceeded for this model.","type":"invalid_request_error","param":null,"code":"3505"}`),
			txt("Due to unexpected capacity constraints, Claude is unable to respond.")},
		neg: []Evidence{txt("demand is high"), txt("at capacity planning"), txt("the service tier capacity is 10 rps"),
			txt("capacity constraints are listed in the docs")},
	},
	"gateway.busy.v1": {
		pos: []Evidence{txt("The AI gateway is busy. Retry the request."), txt("Error: gateway is currently busy")},
		neg: []Evidence{txt("the gateway is up"), txt("busy gateway config reloaded")},
	},
	"generic.server_error_words.v1": {
		pos: []Evidence{txt("The server had an error while processing your request. Sorry about that!")},
		neg: []Evidence{txt("the server processed your request")},
	},
	"generic.rate_limit_words.v1": {
		pos: []Evidence{txt("429 Requests rate limit exceeded, please try again later. (throttling)"),
			txt("RuntimeError: Scryfall rate limit persisted after 5 retries; download stopped at its checkpoint."),
			txt("Error: moonshotai/kimi-k2.5 is temporarily rate-limited upstream."),
			txt("OpenAI Responses API threw rate limit error")},
		neg: []Evidence{txt("Rate limit exceeded: the monthly quota of your plan is used up"),
			txt("rate limits are configured per key"), txt("slowdown"), txt("the rate limit persisted settings are saved after restart"),
			txt("the upstream is rate-limited per key"), txt("the test threw no rate limit errors")},
	},
	"browser.fetch_failed.v1": {
		pos: []Evidence{txt("TypeError: Failed to fetch"), txt("TypeError: Load failed"),
			txt("[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1/models/gemini-pro:streamGenerateContent?alt=sse: Load failed"),
			txt("错误名称: TypeError\n错误信息: Failed to fetch\n堆栈信息: TypeError: Failed to fetch"),
			txt("Chat failed, check your proxy: NetworkError when attempting to fetch resource (xyz)")},
		neg: []Evidence{txt("Error: Failed to fetch models"), txt("docs: what NetworkError when attempting to fetch resource means"), txt("Model load failed"), txt("Error: load failed"),
			txt("错误信息: Failed to fetch models"),
			txt("Failed to fetch dynamically imported module: https://app.example/assets/index.js"),
			txt("request to https://api.example/v1 failed: Failed to fetch data")},
	},
	"node.terminated.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: 500, RPCMessage: "terminated"}, txt("TypeError: terminated"), txt(`{"details":"terminated"}`),
			txt("API Error: 502 terminated"), txt("Data: {“details”:“terminated”}"),
			txt("2026-07-15T20:00:29.605Z [ERROR][deepseek] Provider error: terminated"),
			txt("[API Error: terminated] (Request ID: c4236022-361b-4dc9-b66c-50df0eac5acd) (Conversation ID: sess_26d469f7)")},
		neg: []Evidence{txt("the job terminated normally after 3 steps"), txt("process terminated by signal 9 while building"),
			txt("the “worker” terminated"),
			txt("HTTP 500 terminated"), txt("API Error: 500 worker terminated"), txt("[build] the job terminated"),
			txt("[12:00:01] worker 3 of the build pool error: terminated"), txt("terminated (see the logs)"),
			txt("Error: terminated (id: 42) and restarted")},
	},
	"net.stream_cut.v1": {
		pos: []Evidence{txt("SocketError: other side closed"), txt("Error: 2 UNKNOWN: Stream removed"),
			txt("stream read failed: request or response body error"),
			txt("read stream: ... wsarecv: An existing connection was forcibly closed")},
		neg: []Evidence{txt("the other side agreed"), txt("server connected"), txt("the upstream removed this model"),
			txt("log the request or response body size"), txt("JSON Parse error: Unexpected EOF"),
			txt("SyntaxError: JSON Parse error: Unexpected EOF\n    at <parse> (:0)")},
	},
	"go.eof.v1": {
		pos: []Evidence{txt(`Post "https://api.openai.com/v1/responses": EOF`), txt("Post https://api.openai.com/v1/responses: EOF"),
			txt("2016/08/26 03:01:25 error fetching http://example.org/: EOF"),
			txt(`time=2026-06-01T12:00:00Z level=ERROR msg="upstream failed" err="Post \"https://api.x.ai/v1/chat\": EOF"`),
			txt(`{"error":"Post \"https://daily-cloudcode-pa.googleapis.com/v1internal:loadCodeAssist\": EOF"}`),
			txt(`{"error":"error fetching http://example.org/: EOF","code":502}`)},
		neg: []Evidence{txt(`"key": eofmarker`), txt("EOF reached while reading config"), txt("read config: EOF"),
			txt("Post the file at https://example.com and wait: EOF"), txt("http://example.org/: EOF"),
			txt("see http:// : EOF"), txt(`msg="read config: EOF"`)},
	},
	"node.response_aborted.v1": {
		pos: []Evidence{txt("Error: aborted\n    at connResetException (node:internal/errors:787:14)\n    at TLSSocket.socketCloseListener (node:_http_client:455:19)")},
		neg: []Evidence{txt("Error: aborted by the user"), txt("at connResetException (node:internal/errors:787:14)")},
	},
	"http2.refused_protocol.v1": {
		pos: []Evidence{txt("stream error: stream ID 1; HTTP_1_1_REQUIRED; received from peer")},
		neg: []Evidence{txt("stream error: stream ID 1; PROTOCOL_ERROR; received from peer"), txt("HTTP/1.1 required headers missing"),
			txt(`InformationalError: HTTP/2: "stream error" received - code 7`), txt(`HTTP/2: "stream error" received - code 130`)},
	},
	"tls.alert_refused.v1": {
		pos: []Evidence{txt(`Post "https://api.openai.com/v1/responses": remote error: tls: unknown certificate authority`),
			txt("ssl.SSLError: [SSL: TLSV1_ALERT_UNKNOWN_CA] tlsv1 alert unknown ca (_ssl.c:1000)")},
		neg: []Evidence{txt("remote error: tls: internal error"), txt("the certificate authority is unknown to me"), txt("bad certificate handling docs")},
	},
	"tls.alert_transient.v1": {
		pos: []Evidence{txt(`Post "https://api.openai.com/v1/responses": remote error: tls: internal error`)},
		neg: []Evidence{txt("remote error: tls: bad certificate"), txt("internal error")},
	},
	"tls.cert_verify.v1": {
		pos: []Evidence{txt("error: certificate not trusted\n  code: \"CERT_UNTRUSTED\""),
			txt("AI_APICallError: Cannot connect to API: unknown certificate verification error")},
		neg: []Evidence{txt("the certificate is trusted"), txt(`{"code":"invalid_cache_key"}`),
			txt("unknown error during certificate verification step")},
	},
	"tls.schannel_refused.v1": {
		pos: []Evidence{txt("fatal: unable to access 'https://github.com/o/r/': schannel: SEC_E_UNTRUSTED_ROOT (0x80090325) - The certificate chain was issued by an authority that is not trusted."),
			txt("curl: (35) schannel: next InitializeSecurityContext failed: CRYPT_E_NO_REVOCATION_CHECK (0x80092012)"),
			txt("schannel: next InitializeSecurityContext failed: Unknown error (0x80092013) - The revocation function was unable to check revocation because the revocation server was offline."),
			txt("schannel: AcquireCredentialsHandle failed: SEC_E_NO_CREDENTIALS (0x8009030E)"),
			txt("schannel: CertGetCertificateChain trust error CERT_TRUST_REVOCATION_STATUS_UNKNOWN")},
		neg: []Evidence{txt("schannel: failed to receive handshake, SSL/TLS connection failed"),
			txt("schannel: next InitializeSecurityContext failed: SEC_E_INCOMPLETE_MESSAGE (0x80090318)"),
			txt("the revocation list was checked"), txt("no credentials are needed for this package"),
			txt("sec_e_ok")},
	},
	"net.request_unusable.v1": {
		pos: []Evidence{txt(`Post "localhost:11434/api/chat": unsupported protocol scheme "localhost"`),
			txt(`Post "https://https//api.openai.com/v1": dial tcp: lookup https: no such host`),
			txt(`Post "https://api.openai.com/v1/responses": stopped after 10 redirects`)},
		neg: []Evidence{txt("dial tcp: lookup httpbin.org: no such host"), txt("getaddrinfo ENOTFOUND https-proxy.corp"),
			txt("a bad portion of the response"),
			txt("stopped after 3 retries"), txt("the scheme is known")},
	},
	"grpc.permission_denied.v1": {
		pos: []Evidence{txt("rpc error: code = PermissionDenied desc = Permission 'aiplatform.endpoints.predict' denied on resource")},
		neg: []Evidence{txt("rpc error: code = Unavailable desc = permission service down"), txt("PERMISSION_DENIED_BY_POLICY_DOCS")},
	},
	"net.connect_forbidden.v1": {
		pos: []Evidence{txt("Error: connect EACCES 104.18.6.192:443")},
		neg: []Evidence{txt("Error: EACCES: permission denied, open '/etc/x'"), txt("connect: connection refused")},
	},
	"proxy.tunnel_refused.v1": {
		pos: []Evidence{txt("TypeError: fetch failed\n  [cause]: RequestAbortedError [AbortError]: Proxy response (407) !== 200 when HTTP Tunneling")},
		neg: []Evidence{txt("Proxy response (502) !== 200 when HTTP Tunneling"), txt("Tunnel connection failed: 4000 bytes"),
			txt("Proxy response (429) !== 200 when HTTP Tunneling")},
	},
	"proxy.tunnel_failed.v1": {
		pos: []Evidence{txt("Proxy response (502) !== 200 when HTTP Tunneling")},
		neg: []Evidence{txt("Tunnel connection failed: 407 Proxy Authentication Required"), txt("proxy response (ok)")},
	},
	"qwen.request_timeout.v1": {
		pos: []Evidence{txt("[API Error: Streaming setup timeout after 6s. Try reducing input length or increasing timeout in config.]")},
		neg: []Evidence{txt("Try reducing input length"), txt("streaming request completed after 46s")},
	},
	"net.connection_words.v1": {
		pos: []Evidence{txt("Error: Client network socket disconnected before secure TLS connection was established"),
			txt("Connection failed: error sending request"),
			txt(`DispatchFailure(DispatchFailure { source: ConnectorError { kind: Io, source: hyper::Error(Io, Kind(BrokenPipe)), connection: Unknown } })`),
			txt("ERROR codex_api::endpoint::responses_websocket: failed to connect to websocket: IO error: tls handshake eof, url: wss://chatgpt.com/backend-api/codex/responses"),
			txt(`ERROR service=session.processor error=Unable to connect stack="AI_APICallError: Unable to connect\n    at <anonymous>"`)},
		neg: []Evidence{txt("socket connected"), txt("the operation succeeded"), txt("tls handshake complete"),
			txt("Unable to connect to the database: check DATABASE_URL"),
			txt(`DispatchFailure(DispatchFailure { source: ConnectorError { kind: User, source: InvalidUri(InvalidFormat), connection: Unknown } })`)},
	},
	"agent.session_ended.v1": {
		pos: []Evidence{txt("The Claude Agent session has ended. Please start a new session.")},
		neg: []Evidence{txt("session ended cleanly? no")},
	},
	"http.reason_phrase.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error: Bad Gateway"}, txt("Error: Request Timeout"),
			txt("Model temporarily unavailable"), txt("The model is currently unavailable. Please try again later.")},
		neg: []Evidence{txt("we configured a bad gateway in the docs"), txt("set the request timeout to 30s in the config"),
			txt("If the model is currently unavailable, try again with another one.")},
	},
	"codex.error_info.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"codex_error_info":"response_stream_disconnected"}`},
			{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"codex_error_info":{"http_connection_failed":{"http_status_code":null}}}`}},
		neg: []Evidence{txt(`{"codex_error_info":"bad_request"}`)},
	},
	"jsonrpc.invalid_request.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32602, RPCMessage: "Invalid params"}},
		neg: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Invalid params"}},
	},
	"jsonrpc.method_not_found.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32601, RPCMessage: "Method not found"}},
		neg: []Evidence{txt("Method not found")},
	},
	"net.connection_closed_text.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error: Connection closed."}, txt("Connection closed")},
		neg: []Evidence{txt("I made sure the handler logs when the connection closed normally after the response was written to the client")},
	},
	"proxy.upstream.v1": {
		pos: []Evidence{status(503, "upstream connect error or disconnect/reset before headers. reset reason: connection termination")},
		neg: []Evidence{txt("upstream merged"), txt("upstream available again"), txt("upstream unavailability report")},
	},
	"claude_code.output_or_unprocessable.v1": {
		pos: []Evidence{txt("API Error: Claude's response exceeded the 32000 output token maximum.")},
		neg: []Evidence{txt("output tokens: 32000 maximum"), txt("unprocessable")},
	},
	"claude_code.repeated_overload.v1": {
		pos: []Evidence{txt("API Error: Repeated server overload with Opus model")},
		neg: []Evidence{txt("server overload protection")},
	},
	"quota.try_again.v1": {
		pos: []Evidence{txt("Online prediction request quota exceeded for anthropic-claude-sonnet-4. Please try again later with backoff.")},
		neg: []Evidence{txt("Quota exceeded. Check your plan and billing details. Try again later."), txt("please try again later"),
			txt("Request failed: Quota exceeded for quota metric 'Gemini 2.5 Pro Requests'\nPlease retry if you think this is a transient or recoverable error.")},
	},
	"cli.limit_resets.v1": {
		pos: []Evidence{txt("5-hour limit reached ∙ resets 3pm (Europe/Paris)")},
		neg: []Evidence{txt("Approaching 5-hour limit ∙ resets 3pm"), txt("5-hour limit resets 3pm ∙ continuing with extra usage"), txt("the cache resets every hour")},
	},
	"openclaw.raw_error_html_403.v1": {
		pos: []Evidence{txt(`warn {"event":"embedded_run_agent_end","error":"API rate limit reached. Please try again later.","failoverReason":"auth","model":"gpt-5.4","provider":"openai-codex","rawErrorPreview":"403 <html>\n <head>..."}`),
			txt("embedded run agent end: runId=r1 isError=true model=gpt-5.4 provider=openai-codex error=LLM request failed. rawError=403 <html>\n <head>...")},
		neg: []Evidence{txt(`{"event":"embedded_run_agent_end","error":"Forbidden","rawErrorPreview":"403 {\"error\":{\"message\":\"Country, region, or territory not supported\"}}"}`),
			txt("embedded run agent end: runId=r1 isError=true error=Bad gateway rawError=502 <html><title>502 Bad Gateway</title></html>"),
			txt("rawErrorPreview is cut at 400 characters")},
	},
	"oracle.responses_endpoint_missing.v1": {
		pos: []Evidence{txt("The Responses API returned 404/405 \u2014 your base URL/gateway probably lacks /v1/responses (check OPENAI_BASE_URL or switch to api.openai.com).")},
		neg: []Evidence{txt("the gateway lacks /v1/chat/completions"), txt("POST /v1/responses 200 OK")},
	},
	"openclaw.provider_cooldown.v1": {
		pos: []Evidence{txt("Embedded agent failed before reply: All models failed (2): minimax/MiniMax-M2.1: Provider minimax is in cooldown (all profiles unavailable) (rate_limit) | kimi-coding/k2p5: Provider kimi-coding is in cooldown (all profiles unavailable) (rate_limit)")},
		neg: []Evidence{txt("All models failed (1): openrouter/x: Provider openrouter is in cooldown (all profiles unavailable) (billing)"),
			txt("the provider is in cooldown"), txt("all profiles unavailable")},
	},
	"generic.internal_server_error_text.v1": {
		pos: []Evidence{txt("AI_RetryError: Failed after 3 attempts. Last error: Internal server error"),
			txt("❌ API failed after 3 retries — Internal server error"),
			txt("OAuth Request Failed - Internal server error"), txt("[error] An internal server error occurred.: Error in response: undefined"),
			// A body quoted into a log string, its JSON escaped.
			txt(`HTTP请求失败: 500, 响应: {\"error\":{\"code\":\"http_error\",\"message\":\"Internal server error during generate\"}}`)},
		neg: []Evidence{txt("we log internal server error counts"), {HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error"},
			// A retry report needs its count and the message after it.
			txt("the job failed after retries, internal server error counts were high"),
			txt("failed after 3 retries and an internal server error page")},
	},
	"bedrock.service_quota.v1": {
		pos: []Evidence{txt("An error occurred (ServiceQuotaExceededException) when calling the InvokeModel operation: Your request exceeds the service quota for your account.")},
		neg: []Evidence{txt("service quota page")},
	},
	"generic.cancelled_flag.v1": {
		pos: []Evidence{{Cancelled: true, Err: "API Error: 529 Overloaded"}},
		neg: []Evidence{txt("cancelled"), {Cancelled: false, Err: "request cancelled"}},
	},
	"go.context_canceled.v1": {
		pos: []Evidence{txt("agent prompt: context canceled"), txt("Post \"https://api\": context cancelled")},
		neg: []Evidence{txt("context deadline exceeded"), txt("the context was cancelled by")},
	},
	"acp.request_cancelled.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32800, RPCMessage: "cancelled"}, txt(`acp: {"code":-32800,"message":"Request cancelled"}`)},
		neg: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error"}, txt(`{"code":-328000}`)},
	},
	"claude_code.aborted.v1": {
		pos: []Evidence{txt("API Error: Operation aborted"), txt("AbortError: Request was aborted."),
			txt("[Request interrupted by user for tool use]"), txt("  ⎿  Interrupted · What should Claude do instead?")},
		neg: []Evidence{txt("aborted the operation"), txt("the request was interrupted by a user action"), txt("what should claude do next")},
	},
	"claude_code.retrying.v1": {
		pos: []Evidence{txt("API Error (Request timed out.) · Retrying in 1 seconds… (attempt 2/10)"),
			{StderrTail: "API Error (529 …) · Retrying in 19 seconds… (attempt 8/10)\n[debug] tick\n"}},
		neg: []Evidence{
			txt("API Error (529) · Retrying in 38 seconds… (attempt 10/10)\nAPI Error: 529 {\"type\":\"error\"}"),
			txt("  ⎿  API Error (529) · Retrying in 38 seconds… (attempt 10/10)\n  ⎿  Credit balance is too low"),
			{ExitStatus: "exit status 1", Err: "API Error (529) · Retrying in 4 seconds… (attempt 4/10)"},
			txt("retrying in a moment"),
		},
	},
	"openrouter.no_endpoints_capability.v1": {
		pos: []Evidence{status(404, "No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection")},
		neg: []Evidence{txt("No endpoints found"), txt("kubectl: no endpoints found in namespace default")},
	},
	"openrouter.no_endpoints_model.v1": {
		pos: []Evidence{txt("No endpoints found for meta-llama/llama-3.3-8b-instruct:free.")},
		neg: []Evidence{txt("No endpoints found."), txt("endpoints found for the model: 3")},
	},
	"agent.own_retry_i18n.v1": {
		pos: []Evidence{txt("将于 5 秒后重试…（第 1/10 次）"), txt("12 秒後に再試行します… (2/10 回目)"),
			txt("7초 후 재시도 중… (시도 2/10)"), txt("Nouvelle tentative dans 30 secondes… (tentative 4/10)"),
			txt("повтор через 3 с - попытка №2..."), txt("إعادة المحاولة خلال 62056 ثواني - المحاولة رقم 1")},
		neg: []Evidence{txt("秒后重试"), txt("请稍后重试"), txt("将于 5 秒后重试…（第 10/10 次）\n[API Error: 401 invalid access token or token expired]"),
			{ExitStatus: "exit status 1", Err: "将于 5 秒后重试…（第 1/10 次）"}, txt("nouvelle tentative dans la soirée"),
			// opencode's translated retry line needs its number and unit: a
			// word, hours or days are not the countdown.
			txt("повтор через минуту"), txt("erneuter Versuch in 5 Stunden"), txt("повтор через 3 суток"),
			txt("reintentando en 5 minutos"), txt("повтор через 3с - попытка №2\n[API Error: 401 invalid access token]")},
	},
	"qwen.rate_limit_error_i18n.v1": {
		pos: []Evidence{txt("触发限流：429 Too Many Requests"), txt("속도 제한 오류: 429 Too Many Requests")},
		neg: []Evidence{txt("触发限流"), txt("속도 제한 오류 없음")},
	},
	"codex.usage_limit_i18n.v1": {
		pos: []Evidence{txt("利用制限に達しました。続行するにはプランをアップグレードしてください。"),
			txt("Seu limite de uso será redefinido em 12 de ago. de 2026, 09:10.")},
		neg: []Evidence{txt("利用制限"), txt("o limite de uso")},
	},
	"gemini.daily_quota_i18n.v1": {
		pos: []Evidence{txt("您已达到每日配额限制。")},
		neg: []Evidence{txt("您已达到"), txt("每日配额")},
	},
	"gemini.request_cancelled_i18n.v1": {
		pos: []Evidence{txt("[API 错误: 请求已取消。]")},
		neg: []Evidence{txt("请求已发送"), txt("已取消订阅")},
	},
	"volcengine.account_overdue.v1": {
		pos: []Evidence{txt(`{"error":{"code":"AccountOverdueError","message":"The request failed because your account has an overdue balance."}}`)},
		neg: []Evidence{txt("overdue task reminder"), txt("account balance: 12.00")},
	},
	"volcengine.closed_endpoint.v1": {
		pos: []Evidence{status(400, `{"error":{"code":"InvalidEndpoint.ClosedEndpoint","message":"The request targeted an endpoint that is currently closed or temporarily unavailable. Request ID: x"}}`)},
		neg: []Evidence{txt("the endpoint is closed for maintenance windows on sunday"), txt("InvalidEndpoint")},
	},
	"zhipu.auth_header_missing.v1": {
		pos: []Evidence{txt(`{"error":{"code":"1001","message":"Authentication parameter not received in Header, unable to authenticate"}}`)},
		neg: []Evidence{txt("authentication parameter received"), txt(`{"code":"1001"}`)},
	},
	"volcengine.out_of_context.v1": {
		pos: []Evidence{txt(`{"error":{"code":"OutofContextError","message":"Total tokens of image and text exceed max message tokens.","type":"BadRequest"}}`)},
		neg: []Evidence{txt("the context of the error was out of date"), txt("max message tokens: 4096")},
	},
	"volcengine.model_not_open.v1": {
		pos: []Evidence{txt(`{"error":{"code":"ModelNotOpen","message":"Your account 1 has not activated the model m."}}`)},
		neg: []Evidence{txt("model is open for business"), txt("the model was activated")},
	},
	"baidu.qps_limit.v1": {
		pos: []Evidence{txt(`{"error_code": 18, "error_msg": "Open api qps request limit reached"}`), status(429, `{"code":"RATE_LIMIT_TOTAL_QPS"}`)},
		neg: []Evidence{txt("qps request limit is 10"), txt("rate_limit settings: total qps 20")},
	},
	"baidu.daily_quota.v1": {
		pos: []Evidence{txt(`{"code":"QUOTA_USER_DAILY_REQUEST","message":"Daily request quota per user for AI Search exceeded"}`),
			txt("Daily request quota per user for Web Search exceeded")},
		neg: []Evidence{txt("quota_user_monthly"), txt("user daily request")},
	},
	"baidu.free_quota_used.v1": {
		pos: []Evidence{status(429, `{"code":"QUOTA_USER_DAILY_FREE","message":"Daily free quota per user for AI Search exceeded"}`),
			txt("Daily free quota per user for Web Search exceeded")},
		neg: []Evidence{txt("quota_user_daily"), txt("free quota remaining: 100")},
	},
	"baidu.input_too_long.v1": {
		pos: []Evidence{txt(`{"error":{"code":"tokens_too_long","message":"Prompt tokens too long"}}`), txt("Error: the max input characters is 20000")},
		neg: []Evidence{txt("tokens_too_long_threshold = 5"), txt("characters too long for the label")},
	},
	"codex.reconnecting.v1": {
		pos: []Evidence{txt("Reconnecting... 4/5 (21s • esc to interrupt)"), txt("Reconnecting… 1/5"),
			txt("◦ Reconnecting... 1/5 (17s • esc to interrupt)\n  └ Unexpected status 502 Bad Gateway: Unknown error"),
			txt("Reconnecting... 1/5 ^\nstream disconnected before completion: idle timeout waiting for SSE"),
			txt("Reconnecting... 3/5\nstream error: stream disconnected before completion: stream closed before response.completed")},
		neg: []Evidence{txt("Reconnecting... please wait"), {ExitStatus: "exit status 1", Err: "Reconnecting... 5/5"},
			txt("Reconnecting... 5/5\nstream disconnected before completion: idle timeout waiting for SSE"),
			txt("Reconnecting... 2/5\nstream disconnected before completion: idle timeout waiting for SSE\nexceeded retry limit, last status: 429 Too Many Requests"),
			txt("Reconnecting... 1/5\nstream disconnected before completion: Your input exceeds the context window of this model."),
			txt("Reconnecting... 1/5\nstream disconnected before completion: Your access token could not be refreshed. Please sign in again."),
			txt("Reconnecting... 5/5\nexceeded retry limit, last status: 401 Unauthorized, request id: x"),
			txt("Reconnecting... 5/5\nunexpected status 401 Unauthorized: {\"detail\":\"Unauthorized\"}"),
			txt("Reconnecting... 5/5\nYou've hit your usage limit. Try again at 3:32 PM."),
			txt("Reconnecting... 3/5\nYour workspace is out of credits. Add credits to continue."),
			txt("Reconnecting... 5/5\nPolicy-restricted capacity is unavailable. Please try again later."),
			txt("• Reconnecting... 5/5 (40s • esc to interrupt)\n  └ Unexpected status 502 Bad Gateway\n■ unexpected status 401 Unauthorized")},
	},
	"anthropic.unified_rejected.v1": {
		pos: []Evidence{status(429, "anthropic-ratelimit-unified-status: rejected\nanthropic-ratelimit-unified-reset: 1764525600"),
			status(429, "anthropic-ratelimit-unified-7d-status: rejected\nretry-after: 90000"),
			txt("anthropic-ratelimit-unified-5h-status=rejected\nretry-after=4000")},
		neg: []Evidence{txt("anthropic-ratelimit-unified-status: allowed"), txt("anthropic-ratelimit-unified-5h-status=allowed\nanthropic-ratelimit-unified-7d-status: allowed_warning")},
	},
	"claude_code.usage_limit_epoch.v1": {
		pos: []Evidence{txt("Claude AI usage limit reached|1751385600")},
		neg: []Evidence{txt("Claude AI usage limit reached|"), txt("usage limit reached")},
	},
	"anthropic.spend_limit.v1": {
		pos: []Evidence{txt("You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.")},
		neg: []Evidence{txt("Server is temporarily limiting requests (not your usage limit)")},
	},
	"openai.usage_limit_reached.v1": {
		pos: []Evidence{txt(`{"error":{"type":"usage_limit_reached","resets_at":1775317531}}`)},
		neg: []Evidence{txt("usage limit reached soon")},
	},
	"bedrock.per_day.v1": {
		pos: []Evidence{txt("ThrottlingException: Too many tokens per day, please wait before trying again.")},
		neg: []Evidence{txt("ThrottlingException: Too many tokens, please wait before trying again.")},
	},
	"cli.usage_limit.v1": {
		pos: []Evidence{txt("You've hit your session limit · resets 3:45pm"), txt("■ You’ve hit your usage limit. Try again at 3:32 PM."),
			txt("Claude usage limit reached. Your limit will reset at 3pm (Europe/Paris)."),
			status(429, "API call failed after 3 retries: HTTP 429: The usage limit has been reached"),
			status(429, `{"error":"you (user) have reached your session usage limit, upgrade for higher limits: https://ollama.com/upgrade (ref: 521d2571)"}`),
			txt("You've reached your weekly rate limit. Please wait for your limit to reset on April 20, 2026 at 2:00 AM or switch to auto model to continue.")},
		neg: []Evidence{txt("API Error: Server is temporarily limiting requests (not your usage limit)"), txt("hit your head on the\nlimit"),
			txt("You are approaching your usage limit"), txt("usage limit not reached yet"), txt("usage limit\nreached"),
			txt("90% of your session usage limit is used"), txt("the weekly rate limit is 500 requests")},
	},
	"claude_code.model_setting.v1": {
		pos: []Evidence{txt("The server routed this response to a model that auto mode does not run on; the response was discarded."),
			txt("CLAUDE_CODE_NO_MODEL_FALLBACK is set: model substitution is disabled · unset it to allow the swap"),
			txt("API Error: Effort 'max' isn't available with thinking turned off on this model · run /effort high to continue")},
		neg: []Evidence{txt("Auto mode is on"), txt("the server routed this request"), txt("thinking turned off")},
	},
	"claude_code.local_refusal.v1": {
		pos: []Evidence{txt("A mod's http.fetch hook stopped this request: blocked"),
			txt("Invalid ANTHROPIC_CUSTOM_HEADERS · Fix the environment variable · header value contains a newline")},
		neg: []Evidence{txt("http.fetch hook ran"), txt("ANTHROPIC_CUSTOM_HEADERS set")},
	},
	"claude_code.unattended_stop.v1": {
		pos: []Evidence{txt("This session restarted with no new message, and Claude has stopped continuing it automatically. Send a message to continue.")},
		neg: []Evidence{txt("Claude is continuing automatically"), txt("this session restarted")},
	},
	"claude_code.credential_unusable.v1": {
		pos: []Evidence{txt("Your apiKeyHelper script is failing · This usually means you need to re-authenticate with your provider"),
			txt("Anthropic profile login expired · Re-authenticate your Anthropic profile")},
		neg: []Evidence{txt("apiKeyHelper script ran"), txt("saved to the Keychain")},
	},
	"claude_code.media_removed.v1": {
		pos: []Evidence{txt("API Error: an image in the conversation could not be processed and was removed. Double press esc to edit your message.")},
		neg: []Evidence{txt("the image was removed from the clipboard")},
	},
	"claude_code.message_too_long.v1": {
		pos: []Evidence{txt("This message is too long to send, so Claude didn't get it. Send a shorter one.")},
		neg: []Evidence{txt("this message is long")},
	},
	"claude_code.streaming_fallback.v1": {
		pos: []Evidence{txt("2026-06-03T07:02:24.294Z [ERROR] Error streaming, falling back to non-streaming mode: terminated"),
			txt("[WARN] Streaming endpoint returned 404, falling back to non-streaming mode")},
		neg: []Evidence{txt("[ERROR] Error streaming, falling back to non-streaming mode: terminated\nAPI Error: Connection error."),
			txt("Error streaming (non-streaming fallback disabled): Stream idle timeout - no chunks received"),
			txt("falling back to non-streaming mode is not supported"),
			txt("[ERROR] Error streaming, falling back to non-streaming mode: 403 The security token included in the request is invalid")},
	},
	"claude_code.no_response_retrying.v1": {
		pos: []Evidence{txt("No response from the API after 5m · retrying, waiting up to 10m")},
		neg: []Evidence{txt("No response from the API after 5m · retrying, waiting up to 10m\nAPI Error: Request timed out."), txt("retrying later")},
	},
	"claude_code.tool_concurrency.v1": {
		pos: []Evidence{txt("API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation.")},
		neg: []Evidence{txt("tool use finished"), txt("run /review")},
	},
	"anthropic.tool_result_mismatch.v1": {
		pos: []Evidence{status(400, "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01"),
			txt("ValidationException: Expected toolResult blocks at messages.0.content for the following Ids: tooluse_x"),
			txt("BadRequestError: messages.4: 'tool_use' ids were found without 'tool_result' blocks immediately after: toolu_02")},
		neg: []Evidence{txt("tool_result blocks found"), txt("toolResult blocks are optional")},
	},
	"anthropic.thinking_signature.v1": {
		pos: []Evidence{status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.7.content.0.thinking.signature: Field required"}}`),
			txt(`429 {"error":{"message":"Last error: HTTP 400: messages.1.content.0: Invalid ` + "`signature` in `thinking`" + ` block"},"type":"overloaded_error"}`)},
		neg: []Evidence{txt("thinking signature verified"), txt("the signature field is required")},
	},
	"generic.conversation_too_long.v1": {
		pos: []Evidence{txt("The conversation is too long for this model. Try /undo to remove recent turns or /new to start fresh."),
			txt("This conversation is too long. Start a new chat.")},
		neg: []Evidence{txt("the conversation is long"), txt("conversation too"), txt("a long conversation is fine")},
	},
	"anthropic.thinking_blocks_modified.v1": {
		pos: []Evidence{status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.19.content.1: `+"`thinking` or `redacted_thinking`"+` blocks in the latest assistant message cannot be modified."}}`),
			txt("API Error: 400 messages.1.content.11: thinking or redacted_thinking blocks\nin the latest assistant message cannot be modified")},
		neg: []Evidence{txt("thinking blocks in earlier assistant messages may be omitted"), txt("the latest assistant message can be modified before it is sent")},
	},
	"openclaw.cli_watchdog.v1": {
		pos: []Evidence{txt("[agent/cli-backend] cli watchdog timeout: provider=codex-cli model=gpt-5.5 session=abc noOutputTimeoutMs=180000 pid=4242"),
			txt("FailoverError: CLI produced no output for 180s and was terminated.")},
		neg: []Evidence{txt("the cli watchdog is disabled in config"), txt("the CLI produced no output because stdout was redirected")},
	},
	"anthropic.prompt_too_long.v1": {
		pos: []Evidence{txt("claude exited with error: exit status 1: Prompt is too long"), txt("Input is too long for requested model."),
			txt("This message exceeds the length limit for this chat.")},
		neg: []Evidence{txt("the prompt is long"), txt("each chat has a length limit")},
	},
	"anthropic.request_too_large.v1": {
		pos: []Evidence{txt("Request too large (max 30 MB)."), status(413, `{"type":"error","error":{"type":"request_too_large"}}`)},
		neg: []Evidence{txt("Request too large for gpt-4o on tokens per min (TPM)"), txt("request is large")},
	},
	"claude_code.pdf_invalid.v1": {
		pos: []Evidence{txt("The PDF file was not valid. Double press esc to go back.")},
		neg: []Evidence{txt("the PDF file was written")},
	},
	"openai.request_too_large_tpm.v1": {
		pos: []Evidence{status(429, "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 31538.")},
		neg: []Evidence{txt("Request too large (max 30 MB)"), txt("Rate limit reached for gpt-4o on tokens per min (TPM)")},
	},
	"openai.context_length.v1": {
		pos: []Evidence{txt(`{"error":{"code":"context_length_exceeded"}}`), txt("This model's maximum context length is 128000 tokens.")},
		neg: []Evidence{txt("context length is fine")},
	},
	"codex.context_window.v1": {
		pos: []Evidence{txt("Codex ran out of room in the model's context window. Start a new conversation.")},
		neg: []Evidence{txt("the context window is 200k tokens")},
	},
	"openai.duplicate_input_item.v1": {
		pos: []Evidence{status(400, `{"error":{"message":"Duplicate item found with id msg_17. Remove duplicate items from your input and try again.","type":"invalid_request_error"}}`),
			txt("AI_APICallError: Duplicate item found with id rs_0a1b2c")},
		neg: []Evidence{txt("duplicate items were removed from the list"), txt("found a duplicate id in config")},
	},
	"openai.no_tool_output.v1": {
		pos: []Evidence{txt(`unexpected status 400 Bad Request: {"error":{"message":"No tool output found for function call call_x."}}`),
			status(400, `{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[3].role","code":null}}`),
			txt(`Error code: 400 - {'error': {'message': "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1", 'type': 'invalid_request_error'}}`),
			txt(`Invalid Value: 'input[2].call\_id'. Function call output requires call\_id.`),
			txt(`{"error":{"message":"No tool call found for tool output with call_id call_7","type":"invalid_request_error"}}`)},
		neg: []Evidence{txt("tool output found"), txt("each tool message must be a response the user can read"),
			txt("the function call output requires a call id field, see the docs")},
	},
	"openai.item_not_persisted.v1": {
		pos: []Evidence{status(404, `{"error":{"message":"Item with id 'rs_1' not found. Items are not persisted when `+"`store`"+` is set to false.","type":"invalid_request_error"}}`)},
		neg: []Evidence{txt("Item with id 42 not found"), txt("items are persisted to disk")},
	},
	"claude_code.no_claude_access.v1": {
		pos: []Evidence{txt("Your organization does not have access to Claude. Please login again or contact your administrator.")},
		neg: []Evidence{txt("the sandbox does not have access to the claude config dir"), txt("please contact your administrator")},
	},
	"claude_code.auth_error_notice.v1": {
		pos: []Evidence{txt("Authentication error · This may be a temporary network issue, please try again")},
		neg: []Evidence{txt("Authentication error: the proxy refused")},
	},
	"claude_code.plan_feature.v1": {
		pos: []Evidence{txt("Auto mode is unavailable for your plan")},
		neg: []Evidence{txt("Auto mode is unavailable right now"), txt("the plan is unavailable")},
	},
	"claude_code.model_deployment.v1": {
		pos: []Evidence{txt("The model claude-opus-4-7 is not available on your Vertex deployment. Try /model to switch to claude-opus-4-1, or ask your admin to enable this model.")},
		neg: []Evidence{txt("ask your admin"), txt("enable this model in settings")},
	},
	"claude_code.result_limit.v1": {
		pos: []Evidence{txt("Reached maximum number of turns (10)")},
		neg: []Evidence{txt("maximum number of turns: 10"), txt("budget reached 50%")},
	},
	"anthropic.image_dimensions.v1": {
		pos: []Evidence{status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.3.content.1.image.source.base64.data: image dimensions exceed max allowed size for many-image requests: 2000 pixels"}}`)},
		neg: []Evidence{txt("image dimensions: 2000x1000"), txt("many images were attached")},
	},
	"claude_code.image_size.v1": {
		pos: []Evidence{txt("Image base64 size (9.1MB) exceeds API limit (5MB). Please resize the image before sending.")},
		neg: []Evidence{txt("please resize the window"), txt("image size: 5MB")},
	},
	"anthropic.oauth_revoked.v1": {
		pos: []Evidence{status(403, "OAuth token has been revoked. Please obtain a new token.")},
		neg: []Evidence{txt("oauth token has been refreshed")},
	},
	"anthropic.timeout_error.v1": {
		pos: []Evidence{txt(`RequestTimeoutError: 408 {"type":"error","error":{"type":"timeout_error","message":"Request timeout"}}`)},
		neg: []Evidence{txt("timeout_error_count: 0"), txt(`{"type":"timeout"}`)},
	},
	"anthropic.stream_incomplete.v1": {
		pos: []Evidence{txt("AnthropicError: stream ended without producing a Message with role=assistant")},
		neg: []Evidence{txt("stream ended"), txt("request ended")},
	},
	"acp.error_kind_billing.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"account_on_hold"}`}},
		neg: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"rate_limit"}`}, txt("billing_error")},
	},
	"acp.error_kind_permission.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"verification_required"}`}},
		neg: []Evidence{txt("verification_required")},
	},
	"acp.error_kind_model.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"model_not_found"}`}},
		neg: []Evidence{txt("model_not_found")},
	},
	"acp.error_kind_output_limit.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"max_output_tokens"}`}},
		neg: []Evidence{txt("max_output_tokens: 32000")},
	},
	"acp.error_kind_overloaded.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"overloaded"}`}},
		neg: []Evidence{txt("overloaded")},
	},
	"acp.error_kind_lost.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"worker_shutdown"}`}},
		neg: []Evidence{txt("transport_lost"), txt("no_result")},
	},
	"acp.agent_launch_failed.v1": {
		pos: []Evidence{txt("Failed to spawn Claude Code process: spawn /usr/local/bin/claude EACCES")},
		neg: []Evidence{txt("Failed to spawn Claude Code process: spawn claude ENOMEM"), txt("failed to launch the browser")},
	},
	"aws.iam_not_authorized.v1": {
		pos: []Evidence{txt("User: arn:aws:iam::123456789012:user/dev is not authorized to perform: bedrock:InvokeModel on resource: arn:aws:bedrock:us-west-2::foundation-model/x")},
		neg: []Evidence{txt("the user is not authorized"), txt("authorized to perform maintenance")},
	},
	"aws.signature_expired.v1": {
		pos: []Evidence{txt("InvalidSignatureException: Signature expired: 20260601T115000Z is now earlier than 20260601T115500Z (20260601T120000Z - 5 min.)")},
		neg: []Evidence{txt("the signature expired yesterday"), txt("request expired")},
	},
	"acp.startup_failure.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"startupFailureReason":"proxy_invalid"}`}},
		neg: []Evidence{txt("startup failure reason: none"), txt("startupFailureReason"),
			{HasRPCError: true, RPCCode: -32000, RPCMessage: "Authentication required: sign in to the gateway", RPCData: `{"startupFailureReason":"gateway_signin_required"}`}},
	},
	"claude_code.install_broken.v1": {
		pos: []Evidence{txt("Error: claude native binary not installed.")},
		neg: []Evidence{txt("native binary installed"), txt("platform: linux")},
	},
	"claude_code.windows_shell_missing.v1": {
		pos: []Evidence{txt("Claude Code on Windows requires either Git for Windows (for bash) or PowerShell. Install one of:"),
			txt(`Claude Code was unable to find CLAUDE_CODE_GIT_BASH_PATH path "D:\\tools\\git\\bin\\bash.exe"`)},
		neg: []Evidence{txt("Claude Code on Windows works with Git Bash or PowerShell"),
			txt("CLAUDE_CODE_GIT_BASH_PATH=C:\\Program Files\\Git\\bin\\bash.exe was found")},
	},
	"claude_code.api_retry_event.v1": {
		pos: []Evidence{txt(`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1200,"error_status":503,"error":"server_error"}`)},
		neg: []Evidence{{ExitStatus: "exit status 1", Err: `{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1200}`},
			txt("{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":10}\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"API Error: Repeated 529 Overloaded errors\"}"),
			txt(`"subtype": "api_retries"`)},
	},
	"claude_code.transcript_api_error_retry.v1": {
		pos: []Evidence{txt(`{"type":"system","subtype":"api_error","level":"error","cause":{"code":"ECONNRESET"},"retryInMs":2210.7,"retryAttempt":3,"maxRetries":10}`),
			txt("{\n  \"subtype\": \"api_error\",\n  \"cause\": {\"code\":\"ETIMEDOUT\"},\n  \"retryInMs\": 640,\n  \"retryAttempt\": 1,\n  \"maxRetries\": 10\n}")},
		neg: []Evidence{{ExitStatus: "exit status 1", Err: `{"type":"system","subtype":"api_error","retryInMs":640,"retryAttempt":1,"maxRetries":10}`},
			txt(`{"type":"system","subtype":"api_error","level":"error","error":{"status":401}}`),
			txt(`{"type":"result","subtype":"api_error_status","retryInMs":640}`)},
	},
	"claude_code.enable_extra_usage.v1": {
		pos: []Evidence{txt("Free ultrareviews used. Enable Extra Usage to continue."), txt("Turn on extra usage to continue this review")},
		neg: []Evidence{txt("You're now using extra usage"), txt("5-hour limit reached ∙ continuing with extra usage"), txt("enable extra usage in settings")},
	},
	"claude_code.sandbox_unavailable.v1": {
		pos: []Evidence{txt("Sandbox required but unavailable: bubblewrap (bwrap) is not installed. Set sandbox.failIfUnavailable=false to allow unsandboxed execution.")},
		neg: []Evidence{txt("sandbox unavailable, running unsandboxed"), txt("the sandbox is required")},
	},
	"aws.connection_closed.v1": {
		pos: []Evidence{txt(`botocore.exceptions.ConnectionClosedError: Connection was closed before we received a valid response from endpoint URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse".`)},
		neg: []Evidence{txt("connection was closed by the user"), txt("we received a valid response")},
	},
	"claude_code.bare_api_error.v1": {
		pos: []Evidence{txt("API Error: Please wait a moment and try again.")},
		neg: []Evidence{txt("Please wait a moment and try again."), txt("API Error: 400 please wait")},
	},
	"anthropic.streaming_required.v1": {
		pos: []Evidence{txt("Error: Streaming is required for operations that may take longer than 10 minutes. See https://github.com/anthropics/anthropic-sdk-typescript#long-requests for more details"),
			txt("ValueError: Streaming is strongly recommended for operations that may take longer than 10 minutes. See https://github.com/anthropics/anthropic-sdk-python#streaming-responses for more details")},
		neg: []Evidence{txt("streaming is required"), txt("operations that may take longer than 10 minutes are streamed"),
			txt("streaming is strongly recommended for long answers")},
	},
	"anthropic.billing_error.v1": {
		pos: []Evidence{txt(`{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`)},
		neg: []Evidence{txt("billing_error_count=0"), txt("billing error page")},
	},
	"claude_code.fast_mode_cooldown.v1": {
		pos: []Evidence{txt("Fast mode overloaded and is temporarily unavailable · resets in 4m")},
		neg: []Evidence{txt("Fast limit reached and temporarily disabled · resets in 12m\nAPI Error: Repeated 529 Overloaded errors"),
			{ExitStatus: "exit status 1", Err: "Fast limit reached and temporarily disabled · resets in 12m"}, txt("fast mode is off")},
	},
	"claude_code.usage_access.v1": {
		pos: []Evidence{txt("Your seat type doesn't include usage credits"), txt("Opus 5 runs on usage credits. You have $3.10 in credits."),
			txt("Usage credits are turned off. Re-enable to use Fable 5.1."), txt("You don’t have usage credits yet.")},
		neg: []Evidence{txt("your seat type: premium"), txt("usage credits remaining: 12"),
			txt("You've used your included Fable usage for this week. Continuing on Fable 5.1 uses usage credits"),
			txt("usage credits: off")},
	},
	"claude_code.version_too_old.v1": {
		pos: []Evidence{txt("API Error: 400 Claude Code 2.1.300 does not support this model; version 2.1.330 or newer is required."),
			txt(`{"error":{"type":"invalid_request_error","message":"…","details":{"error_code":"claude_code_version_too_old"}}}`),
			txt("Claude Code 2.1.330 or later is required for your organization")},
		neg: []Evidence{txt("This model does not support this feature; upgrade your plan"), txt("Claude Code 2.1.330 is the newest version"),
			txt("version 2.1.330 or newer is recommended")},
	},
	"claude_code.usage_notice.v1": {
		pos: []Evidence{txt("You've used 90% of your weekly limit · resets Jun 4, 9am (America/New_York)"), txt("Now using usage credits")},
		neg: []Evidence{txt("You've used an unsupported model"), txt("You're now using usage credits\nAPI Error: Repeated 529 Overloaded errors"),
			{ExitStatus: "exit status 1", Err: "Now using credits"}},
	},
	"claude_code.refusal.v1": {
		pos: []Evidence{txt("  ⎿  API Error: Haiku 4.5 can't help with this. Start a new session to\n     continue.\n\n     Learn more: https://www.anthropic.com/legal/aup")},
		neg: []Evidence{txt("I can't help with this until the build is green"), txt("the safeguards flagged nothing"),
			txt("Start a new session to continue where you left off")},
	},
	"claude_code.org_policy.v1": {
		pos: []Evidence{txt("This service is disabled for your org")},
		neg: []Evidence{txt("this service is disabled"), txt("enabled for your org")},
	},
	"acp.error_kind_auth.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"authentication_failed"}`}},
		neg: []Evidence{txt(`{"errorKind":"server_error"}`)},
	},
	"acp.auth_required.v1": {
		pos: []Evidence{txt(`agent new session: acp: {"code":-32000,"message":"Authentication required"}`)},
		neg: []Evidence{{HasRPCError: true, RPCCode: -32000, RPCMessage: "Internal error"}},
	},
	"anthropic.credit_balance.v1": {
		pos: []Evidence{txt("Credit balance is too low"), status(400, `{"error":{"message":"Your credit balance is too low to access the Anthropic API."}}`)},
		neg: []Evidence{txt("credit balance: $12.00")},
	},
	"claude_code.oauth_code_invalid.v1": {
		pos: []Evidence{txt("OAuth error: Invalid code. Please make sure the full code was copied"),
			txt("  Login\n\n   OAuth error: Invalid code. Please make sure the full code was copied\n\n   Press Enter to retry.")},
		neg: []Evidence{txt("OAuth error: invalid_grant - Invalid 'code' in request."), txt("Invalid code block in CLAUDE.md"),
			txt("Please make sure the full path was copied")},
	},
	"claude_code.oauth_exchange_refused.v1": {
		pos: []Evidence{txt("OAuth error: Request failed with status code 400"),
			txt("  Login\n\n   OAuth error: Request failed with status code 401\n\n   Press Enter to retry.")},
		neg: []Evidence{txt("OAuth error: Request failed with status code 500"), txt("OAuth error: Request failed with status code 429"),
			txt("OAuth error: timeout of 15000ms exceeded")},
	},
	"claude_code.not_logged_in.v1": {
		pos: []Evidence{txt("Not logged in · Please run /login"), txt("OAuth token revoked · Please run /login")},
		neg: []Evidence{txt("logged in as alice")},
	},
	"anthropic.disabled_org.v1": {
		pos: []Evidence{txt("Your ANTHROPIC_API_KEY belongs to a disabled organization · Unset the environment variable")},
		neg: []Evidence{txt("organization settings")},
	},
	"anthropic.authentication_error.v1": {
		pos: []Evidence{status(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)},
		neg: []Evidence{txt("authentication_error handling was added to the client")},
	},
	"claude_code.org_disabled_access.v1": {
		pos: []Evidence{txt(`{"is_error":true,"duration_ms":15290,"result":"Your organization has disabled Claude subscription access for Claude Code"}`)},
		neg: []Evidence{txt("organization has 3 members")},
	},
	"anthropic.permission_error.v1": {
		pos: []Evidence{txt(`{"type":"error","error":{"type":"permission_error","message":"no"}}`),
			txt("Error from provider (Console Go): Upstream request failed: [permission_error] API access paused for this organization.")},
		neg: []Evidence{txt("permission_error")},
	},
	"anthropic.oauth_scope.v1": {
		pos: []Evidence{txt("does not meet scope requirement user:profile"),
			txt("OAuth token does not meet scope requirement any_of(user:inference, user:ccr_inference, user:voice, org:service_key_inference)")},
		neg: []Evidence{txt("the token meets the scope requirement user:profile"), txt("scope requirement")},
	},
	"claude_code.model_issue.v1": {
		pos: []Evidence{txt("There's an issue with the selected model (claude-x). It may not exist or you may not have access to it.")},
		neg: []Evidence{txt("the selected model is claude")},
	},
	"anthropic.model_not_found.v1": {
		pos: []Evidence{txt(`{"type":"error","error":{"type":"not_found_error","message":"model: claude-3-5-sonnet-20241022"}}`)},
		neg: []Evidence{txt(`{"type":"error","error":{"type":"not_found_error","message":"file: x"}}`)},
	},
	"anthropic.extra_inputs.v1": {
		pos: []Evidence{txt(`API Error: 400 {"error":{"type":"invalid_request_error","message":"context_management: Extra inputs are not permitted"}}`)},
		neg: []Evidence{txt("extra inputs are permitted")},
	},
	"langchain.api_key_missing.v1": {
		pos: []Evidence{txt("ValueError: Did not find anthropic_api_key, please add an environment variable `ANTHROPIC_API_KEY` which contains it, or pass `anthropic_api_key` as a named parameter.")},
		neg: []Evidence{txt("Did not find serpapi_api_token in the response")},
	},
	"langchain.setting_missing.v1": {
		pos: []Evidence{txt("1 validation error for AzureChatOpenAI\n  Value error, Did not find azure_endpoint, please add an environment variable `AZURE_OPENAI_ENDPOINT` which contains it, or pass `azure_endpoint` as a named parameter.")},
		neg: []Evidence{txt("Did not find azure_endpoint in config.yaml")},
	},
	"anthropic.thinking_temperature.v1": {
		pos: []Evidence{txt("Provider API error: `temperature` may only be set to 1 when thinking is enabled or in adaptive mode."),
			txt(`{"type":"error","error":{"type":"invalid_request_error","message":"` + "`temperature`" + ` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"}}`)},
		// A client's own note that it pins the value is no refusal.
		neg: []Evidence{txt("temperature is set to 1 because thinking is enabled")},
	},
	"anthropic.body_field_string.v1": {
		pos: []Evidence{txt("Received an error from the Anthropic API: tools.3.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
			txt(`{"type":"error","error":{"type":"invalid_request_error","message":"tools.1.name: String should have at most 64 characters"}}`),
			txt("ValidationException: system.0.text: String should have at least 1 character")},
		// pydantic's report of a local settings model: no field path and
		// colon before the message.
		neg: []Evidence{txt("1 validation error for Settings\nmodel\n  String should match pattern '^[a-z]+$' [type=string_pattern_mismatch]"),
			txt("The name string should have at most 64 characters.")},
	},
	"roo.rate_limit_countdown.v1": {
		pos: []Evidence{txt("Rate limiting for 12 seconds..."), txt("Rate limiting for 1 seconds…")},
		neg: []Evidence{txt("Per-account rate limiting for auth endpoints (login, password reset)"),
			txt("Rate limiting for 12 seconds is configured in settings"), txt("rate limiting for all APIs (prevents bans)")},
	},
	"anthropic.body_field_type.v1": {
		pos: []Evidence{txt("An error occurred (ValidationException) when calling the Converse operation: tools.0.name: Input should be a valid string"),
			txt(`{"type":"error","error":{"type":"invalid_request_error","message":"temperature: Input should be a valid number"}}`)},
		// pydantic's report of a local settings model carries no field path
		// before the message.
		neg: []Evidence{txt("1 validation error for Settings\napi_key\n  Input should be a valid string [type=string_type, input_value=None]")},
	},
	"openai.insufficient_quota.v1": {
		pos: []Evidence{status(429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota"}}`),
			status(429, `{"error":{"type":"usage_not_included"}}`)},
		neg: []Evidence{txt("sufficient quota")},
	},
	"openai.invalid_api_key.v1": {
		pos: []Evidence{status(401, `{"error":{"message":"Incorrect API key provided: sk-proj-****Xq7d.","code":"invalid_api_key"}}`)},
		neg: []Evidence{txt("api key provided")},
	},
	"openai.model_not_found.v1": {
		pos: []Evidence{txt(`{"error":{"message":"The model gpt-9 does not exist or you do not have access to it.","code":"model_not_found"}}`)},
		neg: []Evidence{txt("model found")},
	},
	"oauth.refresh_refused.v1": {
		pos: []Evidence{txt(`Gemini CLI OAuth refresh failed (HTTP 400 Bad Request): { "error": "invalid_request", "error_description": "client_secret is missing." }`),
			txt(`Google Gemini CLI OAuth refresh failed: {"error": "invalid_client", "error_description": "Unauthorized"}`)},
		neg: []Evidence{txt(`Gemini CLI OAuth refresh failed (HTTP 503 Service Unavailable): upstream connect error`),
			txt(`invalid_request_error: refresh the page`), txt(`token refresh failed: invalid_request_error`)},
	},
	"openai.plan_and_billing.v1": {
		pos: []Evidence{txt("Quota exceeded. Check your plan and billing details.")},
		neg: []Evidence{txt(`{"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}`)},
	},
	"gemini.api_key_invalid.v1": {
		pos: []Evidence{status(400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`)},
		neg: []Evidence{txt("api key valid")},
	},
	"gemini.location_unsupported.v1": {
		pos: []Evidence{txt("Gemini API free tier is not available in your country. Please enable billing."), txt("User location is not supported for the API use.")},
		neg: []Evidence{txt("available in your region")},
	},
	"vertex.publisher_model.v1": {
		pos: []Evidence{txt("Project `p` is not allowed to use Publisher Model `projects/p/.../claude-3-sonnet@20240229`"),
			txt("models/gemini-9 is not found for API version v1beta"),
			txt("GoogleApiError: Publisher Model\n`projects/p/locations/l/publishers/google/models/gemini-1.0-pro`\nwas not found or your project does not have access to it.")},
		neg: []Evidence{txt("publisher model loaded"), txt("the file was not found; check your project settings")},
	},
	"gemini.ineligible_tier.v1": {
		pos: []Evidence{txt("Failed to login. Message: Your current account is not eligible for Gemini Code Assist for individuals, the free version of Gemini Code Assist.")},
		neg: []Evidence{txt("Your account is eligible for Gemini Code Assist Standard"), txt("ineligible tier list fetched")},
	},
	"gemini.project_required.v1": {
		pos: []Evidence{txt("This account requires setting the GOOGLE_CLOUD_PROJECT or GOOGLE_CLOUD_PROJECT_ID env var.")},
		neg: []Evidence{txt("GOOGLE_CLOUD_PROJECT is set"), txt("invalid google cloud region")},
	},
	"gemini.model_access.v1": {
		pos: []Evidence{txt("It seems like you don't have access to Gemini 3 Pro.\nYour admin might have disabled the access. Contact them to enable the Preview Release Channel.")},
		neg: []Evidence{txt("You now have access to Gemini 3 Pro"), txt("available for all accounts")},
	},
	"google.long_retry_delay.v1": {
		pos: []Evidence{txt("You exceeded your current quota, please check your plan and billing details.\nPlease retry in 3600s.")},
		neg: []Evidence{txt("You exceeded your current quota.\nPlease retry in 40s."),
			txt("Quota exceeded for metric GenerateRequestsPerMinute. Please retry in 3600s."), txt("Please retry in 3600s.")},
	},
	"gemini.turn_limit.v1": {
		pos: []Evidence{txt("Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.")},
		neg: []Evidence{txt("maxSessionTurns is 100"), txt("session turns remaining: 3")},
	},
	"gemini.sign_in_failed.v1": {
		pos: []Evidence{txt("Failed to sign in. Message: request to https://oauth2.googleapis.com/token failed, reason: ECONNRESET"),
			txt("Error authenticating: FatalAuthenticationError: Failed to authenticate with user code."),
			txt("Sign-in failed: The authentication did not complete successfully. Please try again.")},
		neg: []Evidence{txt("Signed in. Message: welcome"), txt("authenticating with cached credentials"), txt("authorized to access your account"),
			txt("The authentication flow has completed successfully. You can close this window")},
	},
	"gemini.permission_denied.v1": {
		pos: []Evidence{txt(`{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}`)},
		neg: []Evidence{txt("PERMISSION_DENIED")},
	},
	"bedrock.on_demand_unsupported.v1": {
		pos: []Evidence{txt("ValidationException: Invocation of model ID x with on-demand throughput isn’t supported. Retry with an inference profile.")},
		neg: []Evidence{txt("ValidationException: messages: field required")},
	},
	"bedrock.access_denied.v1": {
		pos: []Evidence{txt("An error occurred (AccessDeniedException) when calling the InvokeModel operation: You don't have access")},
		neg: []Evidence{txt("access granted")},
	},
	"bedrock.resource_not_found.v1": {
		pos: []Evidence{txt("An error occurred (ResourceNotFoundException) when calling the InvokeModel operation: Could not resolve the foundation model")},
		neg: []Evidence{txt("resource found")},
	},
	"bedrock.credentials.v1": {
		pos: []Evidence{txt("The X.509 certificate or AWS access key ID provided does not exist in our records."),
			txt("An error occurred (UnrecognizedClientException) when calling the InvokeModel operation: The security token included in the request is invalid."),
			txt(`DispatchFailure(DispatchFailure { source: ConnectorError { kind: Other(None), source: CredentialsNotLoaded(CredentialsNotLoaded { source: Some("no providers in chain provided credentials") }), connection: Unknown } })`)},
		neg: []Evidence{txt("security token refreshed"), txt("credentials found in the chain of custody"),
			txt("the access key ID provided in the form")},
	},
	"tls.certificate.v1": {
		pos: []Evidence{txt(`Post "https://api.anthropic.com/v1/messages": tls: failed to verify certificate: x509: certificate signed by unknown authority`),
			txt("Unable to connect to API: SSL certificate verification failed."), txt("Error: unable to get local issuer certificate"),
			txt("javax.net.ssl.SSLHandshakeException: PKIX path building failed: unable to find valid certification path to requested target"),
			txt("error sending request for url (https://x/v1): client error (Connect): invalid peer certificate: UnknownIssuer")},
		neg: []Evidence{txt("certificate renewed"), txt("x509 parsing library"),
			txt("API Error: Unable to connect to API: SSL error (ERR_TLS_HANDSHAKE_TIMEOUT)")},
	},
	"orchestratord.agent_launch.v1": {
		pos: []Evidence{{Phase: PhaseProcessStart, Err: `agent executable "/opt/ghost" not found`},
			{Phase: PhaseProcessStart, Err: `agent working directory "/gone": no such file or directory`},
			{Phase: PhaseProcessStart, Err: `agent profile "ghost" is not configured`}},
		neg: []Evidence{{Phase: PhaseStreaming, Err: `agent executable "/opt/ghost" not found`},
			{Phase: PhaseProcessStart, Err: "fork/exec: resource temporarily unavailable"}},
	},
	"quota.exceeded_named.v1": {
		pos: []Evidence{txt("[Error 429] You have exceeded your Gemini API quota.\nPlease check your usage and billing details at aistudio.google.com."),
			txt("You've exceeded your monthly API quota")},
		neg: []Evidence{txt("You have exceeded your token budget; quota resets daily"),
			txt("exceeded your\nquota"), txt("Request would have exceeded your per-request limit")},
	},
	"exec.not_found.v1": {
		pos: []Evidence{txt(`start agent: exec: "claude-agent-acp": executable file not found in $PATH`), txt("Error: spawn claude ENOENT"),
			{Phase: PhaseProcessStart, ExitStatus: "exit status 127"}, txt("sh: claude: command not found"),
			txt("[acp::start_agent_process] Failed: vim/_system.lua:254: ENOENT: no such file or directory (cmd): 'claude-code-acp'"),
			{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"data":"program not found"}`},
			txt("'codex-acp' is not recognized as an internal or external command,\noperable program or batch file."),
			txt("Error: Claude CLI not found"), txt("CLINotFoundError: Claude Code not found at: /opt/claude"),
			txt("emissary-router: could not find Claude Code command 'claude'")},
		neg: []Evidence{txt("ENOENT: no such file or directory, open 'x'"), {ExitStatus: "exit status 1"},
			txt("session not found"), txt("the CLI found no changes"), txt("Could not find Claude Code commands directory"),
			txt("ENOENT: no such file or directory (cwd): '/gone'")},
	},
	"exec.shared_library_missing.v1": {
		pos: []Evidence{txt("/opt/zed/external_agents/codex/v0.8.0/codex-acp: error while loading shared libraries: libssl.so.3: cannot open shared object file: No such file or directory"),
			{Phase: PhaseProcessStart, StderrTail: "claude: error while loading shared libraries: libstdc++.so.6: cannot open shared object file: No such file or directory"}},
		neg: []Evidence{txt("ENOENT: no such file or directory, open 'libssl.so.3'"), txt("dlopen failed: cannot open shared object file")},
	},
	"zod.invalid_type_issue.v1": {
		pos: []Evidence{txt(`Error handling request { method: 'session/new' } [{"expected":"string","code":"invalid_type","path":["cwd"],"message":"Invalid input: expected string, received undefined"}]`),
			txt(`Error: [{"code":"invalid_type","expected":"array","path":["mcpServers"],"message":"Invalid input: expected array, received undefined"}]`)},
		neg: []Evidence{txt(`AI_TypeValidationError: Type validation failed: Value: {"error":{"message":"upstream error"}}. Error message: [{"code":"invalid_type","expected":"array","received":"undefined","path":["choices"]}]`),
			txt(`{"code":"invalid_type"}`)},
	},
	"exec.npm_launch_failed.v1": {
		pos: []Evidence{txt("ACP process exited unexpectedly. Exit code: 254. Process output:\nnpm error code ENOENT\nnpm error syscall open\nnpm error path /home/u/.npm/_npx/9f1c/package.json\nnpm error errno -2\nnpm error enoent Could not read package.json: Error: ENOENT: no such file or directory, open '/home/u/.npm/_npx/9f1c/package.json'\nnpm error enoent This is related to npm not being able to find a file.\nnpm error enoent"),
			txt("npm ERR! could not determine executable to run")},
		neg: []Evidence{txt("npm error code ECONNRESET\nnpm error network This is a problem related to network connectivity."),
			txt("ACP process exited unexpectedly. Exit code: 1.")},
	},
	"exec.format_error.v1": {
		pos: []Evidence{txt("ERROR server::routes::task_attempts: Failed to start task attempt: Exec format error (os error 8)"),
			txt("fork/exec /usr/local/bin/codex-acp: exec format error"), txt("Bad CPU type in executable (os error 86)")},
		neg: []Evidence{txt("unsupported format: exec output was not JSON"), txt("error: bad CPU usage reported")},
	},
	"exec.outside_agent_session.v1": {
		pos: []Evidence{txt("Error: Could not locate codex process in ancestry. ak must be invoked from inside a codex session.")},
		neg: []Evidence{txt("walked the process ancestry of pid 4120"), txt("ak must be invoked with a task id")},
	},
	"exec.editor_binary_as_agent.v1": {
		pos: []Evidence{txt("Failed to connect to agent: ACP process exited unexpectedly (exit code: 0, signal: null)\nCLI stderr: Warning: 'stdio' is not in the list of known options, but still passed to Electron/Chromium."),
			{Phase: PhaseProcessStart, ExitStatus: "exit status 0", StderrTail: "Warning: 'acp' is not in the list of known options, but still passed to Electron/Chromium."}},
		neg: []Evidence{txt("Warning: 'acp' is not in the list of known options for subcommand 'tunnel'"),
			txt("ACP process exited unexpectedly (exit code: 0, signal: null)"),
			txt("error: unknown option '--acp'"), txt("passed to Electron/Chromium as a switch")},
	},
	"crush.api_key_invalid.v1": {
		pos: []Evidence{txt("Invalid Anthropic API Key. Try again?"), txt("Invalid OpenRouter Key. Try again?")},
		neg: []Evidence{txt("Verifying your Anthropic Key..."), txt("Anthropic Key validated."),
			txt("Failed to generate API key. Try again?"), txt("Invalid request.\nEnter your OpenAI Key. Try again?")},
	},
	"kimi.acp_stdio_mcp_refused.v1": {
		pos: []Evidence{txt(`{"code":-32603,"message":"Internal error","data":{"details":"ACP stdio MCP server idea does not declare a runtime identity"}}`)},
		neg: []Evidence{txt("ACP stdio MCP server idea started"), txt("the MCP server does not declare a version"),
			txt("does not declare a runtime identity")},
	},
	"exec.bun_spawn_denied.v1": {
		pos: []Evidence{txt("EPERM: operation not permitted, uv_spawn 'reg'\npath: \"reg\",\nsyscall: \"uv_spawn\""),
			txt("Error: EPERM: operation not permitted, uv_spawn\n     'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe'"),
			txt("EACCES: permission denied, posix_spawn '/opt/agent/bin/agent'")},
		neg: []Evidence{txt("EPERM: operation not permitted, open 'C:\\Users\\x\\.claude.json'"), txt("ENOENT: no such file or directory, uv_spawn 'git'"),
			txt("EBUSY: resource busy or locked, uv_spawn 'git'"), txt("uv_spawn returned EPERM once, then the retry worked")},
	},
	"exec.spawn_denied.v1": {
		pos: []Evidence{txt("Error: spawn /opt/agents/bin/codex-acp EACCES"), txt("spawn failed: spawn EPERM"),
			txt("Error executing binary: spawn /usr/lib/node_modules/x/bin/x-linux-x64 EACCES")},
		neg: []Evidence{txt("Error: spawn claude EAGAIN"), txt("Error: spawn EMFILE"), txt("Error: EACCES: permission denied, open '/etc/x'"),
			txt("spawn helper started\nError: connect EACCES 104.18.6.192:443"), txt("spawnSync claude ETIMEDOUT"),
			txt("the spawn of agents is documented at EACCES.md"), txt("we spawn a child and it gets eacces on some hosts")},
	},
	"exec.libc_version.v1": {
		pos: []Evidence{txt("./agent: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by ./agent)"),
			txt("x-linux-x64: /lib64/libm.so.6: version `GLIBC_2.29' not found")},
		neg: []Evidence{txt("./agent: /lib64/libc.so.6: weak version `GLIBC_2.34' not found (required by ./agent)"),
			txt("checking for version `GLIBC_2.3' in file /lib64/libc.so.6 [0] required by file ./agent [0]"),
			txt("built against glibc 2.34; version `glibc' pinning\nmodel not found")},
	},
	"exec.shell_syntax.v1": {
		pos: []Evidence{txt("WARN  [agent_servers::acp] agent stderr: /usr/bin/bash: -c: line 1: unexpected EOF while looking for matching `\"'"),
			txt("/bin/sh: 1: Syntax error: Unterminated quoted string"), txt("zsh:1: parse error near `)'"),
			txt("env: -c: line 1: unexpected EOF while looking for matching `''")},
		neg: []Evidence{txt("the heredoc died with unexpected EOF while looking for matching `'`; rewrote it with Write"),
			txt("minishell: syntax error near unexpected token"), txt("stream error: unexpected EOF")},
	},
	"codex.config_load.v1": {
		pos: []Evidence{txt("Error loading config.toml: invalid transport 'streamable-http'"),
			txt("Error: TOML parse error at line 12, column 1\n   |\n12 | [mcp_servers.x]\n   | ^\nunexpected eof")},
		neg: []Evidence{txt("loaded config.toml; stream error: unexpected EOF"), txt("Error loading config")},
	},
	"codex.app_server_invalid_request.v1": {
		pos: []Evidence{txt("Invalid request: unknown variant `thread/goal/set`, expected one of `initialize`, `thread/start`, `thread/resume`"),
			txt("turn/start failed: Invalid request: missing field `threadId` (code -32600)")},
		neg: []Evidence{txt("Error loading config.toml: unknown variant `ultra`, expected one of `none`, `minimal`, `low`, `medium`, `high`"),
			txt("Invalid request"), txt("unknown variant `CommitMessage`, expected `User` or `EditWorkflow`")},
	},
	"codex.mcp_startup_failed.v1": {
		pos: []Evidence{txt("ERROR codex_core::codex: MCP client for `context7` failed to start: request timed out"),
			txt("🖐 Failed to create MCP connection manager: request timed out"),
			txt("⚠ MCP client for `js-reverse-mcp` failed to start: MCP startup failed: handshaking with MCP server failed: connection closed: initialize response"),
			txt("thread/start failed: required MCP servers failed to initialize: docs: connection closed: initialize response (code -32603)"),
			txt("list_mcp_resources failed: MCP startup failed: request timed out")},
		neg: []Evidence{txt("MCP client for `context7` failed to start: request timed out\nstream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)"),
			txt("required MCP servers failed to initialize: docs: request timed out\nReconnecting... 2/5"),
			txt("connection closed: initialize response"),
			txt("container `db` failed to start: port is already allocated"), txt("MCP client for `context7` started"),
			txt("request timed out")},
	},
	"exec.bad_arguments.v1": {
		pos: []Evidence{txt("Error: codex error: exit status 2, stderr: error: unexpected argument 'app-server' found\n\nUsage: codex exec [OPTIONS] [PROMPT] [COMMAND]"),
			txt("error: unknown option '--experimental-acp'"),
			txt("error: invalid value 'fast' for '--sandbox <SANDBOX_MODE>'\n  [possible values: read-only, workspace-write, danger-full-access]\n\nFor more information, try '--help'."),
			txt("error: invalid value 'x' for '<PORT>': invalid digit found in string"),
			txt("error: unrecognized subcommand 'app-server'\n\nUsage: codex [OPTIONS] [PROMPT]")},
		neg: []Evidence{txt("error: unexpected argument in tool call"), txt("unknown option value"),
			txt("Error: invalid value 'abc' for field 'temperature'"), txt("error: invalid value '' in settings.json")},
	},
	"anthropic.overloaded_error.v1": {
		pos: []Evidence{status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			{HTTPStatus: 200, Err: "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\"}}"},
			txt("🚨 Error: {\n  error = {\n    details = vim.NIL,\n    message = \"Overloaded\",\n    type = \"overloaded_error\"\n  },\n  type = \"error\"\n}")},
		neg: []Evidence{txt("returns HTTP 529 with an `overloaded_error` body"), txt(`local kind = type == "overloaded" and "retry" or "fail"`)},
	},
	"anthropic.overloaded.529.v1": {
		pos: []Evidence{txt("API Error: 529 Overloaded. This is a server-side issue, usually temporary"), txt("Repeated 529 Overloaded errors"),
			status(529, ""), txt("Failed to connect to API: 529 <unknown status code> ")},
		neg: []Evidence{txt("took 1529 overloaded cycles"), txt(`{"duration_ms":15290}`), txt("returns HTTP 529 with an `overloaded_error` body")},
	},
	"claude_code.server_limiting.v1": {
		pos: []Evidence{txt("API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited")},
		neg: []Evidence{txt("server is limiting")},
	},
	"claude_code.request_rejected.v1": {
		pos: []Evidence{txt("API Error: Request rejected (429) · this may be a temporary capacity issue.")},
		neg: []Evidence{txt("Request rejected (400)")},
	},
	"anthropic.rate_limit_error.v1": {
		pos: []Evidence{status(429, "retry-after: 27\n\n{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed your organization's rate limit\"}}")},
		neg: []Evidence{txt("rate_limit_error")},
	},
	"openai.engine_overloaded.v1": {
		pos: []Evidence{status(503, `{"error":{"message":"The engine is currently overloaded, please try again later.","type":"server_error"}}`),
			// codex-rs's CodexErr::Stream wraps the server's own message.
			txt("stream disconnected before completion: Our servers are currently overloaded. Please try again later.")},
		neg: []Evidence{txt("I think the engine is currently overloaded, so I waited.")},
	},
	"openai.model_overloaded.v1": {
		pos: []Evidence{txt("The model `gpt-4o` is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.")},
		neg: []Evidence{txt("Our team said the queue is currently overloaded with other requests, so I paused the job.")},
	},
	"openai.rate_limit_exceeded.v1": {
		pos: []Evidence{txt(`{"error":{"message":"Rate limit reached for gpt-4o ... Please try again in 644ms.","code":"rate_limit_exceeded"}}`)},
		neg: []Evidence{txt("rate limit ok")},
	},
	"gemini.model_overloaded.v1": {
		pos: []Evidence{txt(`✕ [API Error: got status: UNAVAILABLE. {"error":{"code":503,"message":"The model is overloaded. Please try again later."}}]`)},
		neg: []Evidence{txt("The model is overloaded with context, so I summarised the file.")},
	},
	"vertex.quota_exceeded.v1": {
		pos: []Evidence{txt(`API Error: 429 {"error":{"code":429,"message":"Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model","status":"RESOURCE_EXHAUSTED"}}`)},
		neg: []Evidence{txt("Quota exceeded for project x")},
	},
	"vertex.resource_exhausted.v1": {
		pos: []Evidence{status(429, `{"error":{"code":429,"message":"Resource exhausted, please try again later.","status":"RESOURCE_EXHAUSTED"}}`)},
		neg: []Evidence{txt("resources exhausted")},
	},
	"gemini.invalid_chunk.v1": {
		pos: []Evidence{txt("✕ [API Error: Model stream ended with an invalid chunk or missing finish reason.]"),
			txt("[API Error: Model stream was invalid or completed without valid content.]")},
		neg: []Evidence{txt("stream ended"), txt("the model stream was valid and completed")},
	},
	"bedrock.throttling.v1": {
		pos: []Evidence{txt("botocore.errorfactory.ThrottlingException: An error occurred (ThrottlingException): Too many tokens, please wait before trying again."),
			txt("Error invoking RetrieveAndGenerateCommand: Your request rate is too high. Reduce the frequency of requests.")},
		neg: []Evidence{txt("throttling is configured"), txt("the request rate is too high for this demo, so we batch")},
	},
	"bedrock.service_unavailable.v1": {
		pos: []Evidence{txt("An error occurred (ServiceUnavailableException) when calling the InvokeModelWithResponseStream operation"),
			txt("Error: Can't invoke. Reason: Bedrock is unable to process your request.")},
		neg: []Evidence{txt("service available"), txt("Bedrock is able to process your request")},
	},
	"bedrock.model_not_ready.v1": {
		pos: []Evidence{txt("An error occurred (ModelNotReadyException) when calling the InvokeModel operation: Model is not ready")},
		neg: []Evidence{txt("model ready")},
	},
	"bedrock.internal.v1": {
		pos: []Evidence{txt("An error occurred (ModelStreamErrorException) when calling the ConverseStream operation"),
			txt("The system encountered an unexpected error during processing. Try your request again."),
			txt("Error: Model has timed out in processing the request. Try your request again.")},
		neg: []Evidence{txt("internal server"), txt("no unexpected error during processing")},
	},
	"aisdk.chunk_without_choices.v1": {
		pos: []Evidence{txt("AI_TypeValidationError: Type validation failed: Value: {\"id\":\"usage-1\",\"usage\":{\"total_tokens\":5}}.\nError message: [{\"code\":\"invalid_union\",\"errors\":[[{\"expected\":\"array\",\"code\":\"invalid_type\",\"path\":[\"choices\"],\"message\":\"Invalid input: expected array, received undefined\"}],[{\"expected\":\"object\",\"code\":\"invalid_type\",\"path\":[\"error\"]}]],\"path\":[],\"message\":\"Invalid input\"}]")},
		neg: []Evidence{txt("AI_TypeValidationError: Type validation failed: Value: {\"error\":{\"message\":\"upstream error\"}}. Error message: [{\"code\":\"invalid_type\",\"expected\":\"array\",\"received\":\"undefined\",\"path\":[\"choices\"],\"message\":\"Required\"}]"),
			txt("AI_TypeValidationError: Type validation failed: Value: {\"choices\":[{\"delta\":1}]}. Error message: [{\"path\":[\"choices\",0,\"delta\"]}]"),
			txt("AI_TypeValidationError: Type validation failed: Value: {}. Error message: [{\"path\":[\"filePath\"]}]")},
	},
	"mcp.client_error.v1": {
		pos: []Evidence{txt("Error: MCP error -32001: Request timed out"), txt("McpError: MCP error -32000: Connection closed"),
			txt(`Call tool failed: McpError: MCP error -32000: invoke app failed: request failed with status code: 502`),
			txt(`{"error": "MCP error -32603: MCP error -32603: Error calling tool x: MCP error -32001: Request timed out "}`)},
		neg: []Evidence{txt("MCP error handling: request timed out"), txt("mcp error -32 is not a code"),
			txt("MCP error -32001: Request timed out\nAPI Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}")},
	},
	"acp.peer_disconnected.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"error":"peer disconnected before response"}`},
			{Err: "peer disconnected before response"}},
		neg: []Evidence{txt("peer connected")},
	},
	"acp.process_exited.v1": {
		pos: []Evidence{txt("Internal error: The Claude Agent process exited unexpectedly. Please start a new session."),
			txt("Error: Claude Code process terminated by signal SIGKILL"), txt("Claude Code process exited with code 143")},
		neg: []Evidence{txt("process exited"), txt("Error: Claude Code process exited with code 1"),
			txt("Claude Code process exited with code 128"), txt("process exited with code 1430")},
	},
	"anthropic.claude_code_only_credential.v1": {
		pos: []Evidence{txt(`API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"This credential is only authorized for use with Claude Code and cannot be used for other API requests."}}`)},
		neg: []Evidence{txt("authorized for use with any client")},
	},
	"bedrock.use_case_form.v1": {
		pos: []Evidence{txt("Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model. If you have already filled out the form, try again in 15 minutes.")},
		neg: []Evidence{txt("use case details were submitted")},
	},
	"claude_code.window_limit.v1": {
		pos: []Evidence{txt("5-hour limit reached"), txt("5 hour limit reached"), txt("Opus limit reached ∙ contact an admin to keep working")},
		neg: []Evidence{txt("5-hour limit reached, now using extra usage"), txt("5-hour limit reached ∙ resets 3pm (Europe/Paris)"),
			txt("5-hour limit resets 3pm"), txt("Claude Opus limit reached, now using Sonnet 4"), txt("Approaching Opus usage limit")},
	},
	"claude_code.daily_limit_reached.v1": {
		pos: []Evidence{txt(`Error: {"data":{"type":"unlock_full_access_notice"},"error_type":"grace_daily_limit_reached"}`)},
		neg: []Evidence{txt("daily limit not reached")},
	},
	"ccswitch.no_providers.v1": {
		pos: []Evidence{{Err: `{"error":{"message":"未配置供应商","type":"proxy_error"}}`, HTTPStatus: 503}},
		neg: []Evidence{txt("已配置供应商"), txt("providers configured: 2")},
	},
	"ccswitch.transform_error.v1": {
		pos: []Evidence{{Err: `{"error":{"message":"格式转换错误: missing field","type":"proxy_error"}}`, HTTPStatus: 422}},
		neg: []Evidence{txt(`{"error":{"message":"配置错误: x","type":"proxy_error"}}`)},
	},
	"aws.region_missing.v1": {
		pos: []Evidence{txt("Error: Region is missing"), txt("AWS region setting is missing. Pass it using the 'region' parameter or the AWS_REGION environment variable."),
			txt("litellm.exceptions.APIError: BedrockException - AWS region not set: set AWS_REGION_NAME or AWS_REGION env variable")},
		neg: []Evidence{txt("region us-east-1 is used"), txt("the missing region was added"), txt("AWS region now set to us-east-1")},
	},
	"network.connection_closed.v1": {
		pos: []Evidence{txt("API Error: Connection closed mid-response. The response above may be incomplete.")},
		neg: []Evidence{txt("connection closed")},
	},
	"claude_code.server_error_mid_response.v1": {
		pos: []Evidence{txt("API Error: Server error mid-response. The response above may be incomplete."),
			txt("Server error mid-response. The response above may be incomplete.")},
		neg: []Evidence{txt("server error"), txt("the server error mid-way through the deploy was logged")},
	},
	"claude_code.response_cut.v1": {
		pos: []Evidence{txt("API Error: The response stopped arriving. The response above may be incomplete."),
			txt("API Error: Your computer went to sleep mid-response. The response above may be incomplete."),
			txt("API Error: Part of the response never arrived and no response was produced. Try again."),
			txt("API Error: The response stalled before a response was produced. Try again."),
			txt("Response stalled mid-stream")},
		neg: []Evidence{txt("the response above is complete"), txt("no response was produced by the test"),
			txt("the response stalled the UI"), txt("stream stalled")},
	},
	"claude_code.request_timed_out.v1": {
		pos: []Evidence{txt("API Error: Request timed out.")},
		neg: []Evidence{txt("request timing")},
	},
	"claude_code.connection_error.v1": {
		pos: []Evidence{txt("claude exited with error: exit status 1: API Error: Connection error."), txt("openai.APIConnectionError: Connection error."),
			txt("API Error: Unable to connect to API (UND_ERR_SOCKET)")},
		neg: []Evidence{txt("connection established")},
	},
	"codex.stream_disconnected.v1": {
		pos: []Evidence{txt("stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)")},
		neg: []Evidence{txt("stream completed")},
	},
	"python.peer_closed.v1": {
		pos: []Evidence{txt("httpx.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)")},
		neg: []Evidence{txt("peer closed the issue")},
	},
	"go.http2_goaway.v1": {
		pos: []Evidence{txt(`http2: server sent GOAWAY and closed the connection; LastStreamID=1999, ErrCode=NO_ERROR, debug=""`)},
		neg: []Evidence{txt("go away")},
	},
	"node.errno.v1": {
		pos: []Evidence{txt("Error: read ECONNRESET\n    at TLSWrap.onStreamRead"), txt("connect ETIMEDOUT 160.79.104.10:443"),
			txt("getaddrinfo EAI_AGAIN api.openai.com"), txt("TypeError: fetch failed\n  code: 'UND_ERR_CONNECT_TIMEOUT'"), txt("Error: write EPIPE"),
			txt("Failed to connect to api.example.com: ERR_SOCKET_CLOSED_BEFORE_CONNECTION")},
		neg: []Evidence{txt("ECONNRESETTING"), txt("ERR_SOCKET_CLOSED_LISTENER_LEAK"), txt("a repipeline step"), txt("EISDIR: illegal operation on a directory"),
			txt("InvalidArgumentError: invalid upgrade header\n  code: 'UND_ERR_INVALID_ARG'")},
	},
	"tgi.validation_length.v1": {
		pos: []Evidence{status(422, "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`\",\"error_type\":\"validation\"}"),
			status(422, "Input validation error: `inputs` must have less than 1024 tokens. Given: 2048")},
		neg: []Evidence{txt("`max_new_tokens` must be <= 4096. Given: 8192"), txt("temperature must be <= 2"), txt("names must have less than 64 characters")},
	},
	"go.dial.v1": {
		pos: []Evidence{txt(`Post "https://api.openai.com/v1/chat/completions": dial tcp: lookup api.openai.com on 127.0.0.11:53: server misbehaving`),
			txt(`rpc error: code = Unknown desc = connection error: desc = "transport: Error while dialing: dial unix /tmp/agent.sock: connect: no such file"`)},
		neg: []Evidence{txt("the dialog closed"), txt("redial tcpdump"), txt("dial-up modem")},
	},
	"net.socket_exception.v1": {
		pos: []Evidence{txt("SocketException: Failed host lookup: 'api.openai.com' (OS Error: No address associated with hostname, errno = 7)"),
			txt("java.net.SocketException: Connection reset")},
		neg: []Evidence{txt("socket exceptions are logged"), txt("the socket was closed by the user")},
	},
	"go.net.v1": {
		pos: []Evidence{txt("read tcp 10.0.3.15:51844->160.79.104.10:443: read: connection reset by peer"), txt("dial tcp: lookup api.anthropic.com: no such host"),
			txt("net/http: TLS handshake timeout")},
		neg: []Evidence{txt("connection pool resized")},
	},
	"connect.code_invalid_argument.v1": {
		pos: []Evidence{txt("ConnectError: [invalid_argument]"), txt("[out_of_range] offset past the end")},
		neg: []Evidence{txt("invalid_argument"), txt("httpx.ConnectError: [Errno -2] Name or service not known")},
	},
	"python.net.v1": {
		pos: []Evidence{txt("httpx.ConnectError: [Errno -2] Name or service not known"), txt("requests.exceptions.ReadTimeout: HTTPSConnectionPool: Read timed out.")},
		neg: []Evidence{txt("the connection was fine")},
	},
	"wrapper.runtime_exception.v1": {
		pos: []Evidence{txt(`Error code: 429 - {'error': {'message': "VertexAIException - 'NoneType' object has no attribute 'start_chat'", 'code': 429}}`),
			status(500, "TypeError: Cannot read properties of undefined (reading 'content')")},
		neg: []Evidence{txt("AttributeError: 'NoneType' object has no attribute 'start_chat'"),
			txt("429 Too Many Requests: the 'bucket' object has no quota left"),
			status(429, "rate limit exceeded, please slow down")},
	},
	"http.rate_limited.429.v1": {
		pos: []Evidence{txt("exceeded retry limit, last status: 429 Too Many Requests, request id: x"), status(429, "calm"),
			txt("WARN llm request failed statusCode=429"), txt("https response error StatusCode: 429, RequestID: 1"),
			txt("ERROR codex_api: error=http 429 Too Many Requests"), txt("Error code:429 {error:{ message: 'busy'}}"),
			txt("✖ OpenAI API request failed. Error 429 - Too Many Requests"),
			status(429, "Free tier: 10 requests per minute. Upgrade your plan for higher limits."),
			status(429, "Your plan allows 60 requests per min (upgrade for more)\nretry-after: 4")},
		neg: []Evidence{status(429, "Monthly token quota exhausted. Upgrade your plan for more."),
			status(429, "Usage cap reached for this billing period."), status(429, "Account suspended due to unpaid invoices."),
			status(429, "Max budget exceeded: your key has a max budget of 10.0 and current spend is 10.2"),
			txt("processed 4291 requests"), txt("HTTP 429 is what we return"), txt("the handler returns status 429 when the bucket is empty"),
			txt("status of 429 requests"), txt("see http://localhost:429/"), txt("code=4291"),
			txt("the handler returned 429 when the bucket was empty"), txt("it responded with 429 requests queued"),
			txt("request failed. Error 429 of 500 rows skipped"), txt("request failed. Error 429 - see the log")},
	},
	"http.auth.401.v1": {
		pos: []Evidence{status(401, "unauthorized"), txt("API error: 401 Unauthorized"),
			txt("Server returned 401 — the LLM endpoint may be temporarily unavailable. Try again in a moment."),
			txt("Failed to connect to Ollama API: 401 Unauthorized unauthorized"),
			txt(`POST "https://api.openai.com/v1/responses": 401 Unauthorized {"error":{"message":"nope"}}`)},
		neg: []Evidence{txt("sent 401 bytes"), txt("the proxy returned 401 times before it gave up"),
			txt("the free API: 401 requests a day, then a key"), txt(`{"max_tokens": 401, "n": 1}`)},
	},
	"codex.status_unauthorized.v1": {
		pos: []Evidence{txt("unexpected status 401 Unauthorized: {\"detail\":\"Unauthorized\"},\n\nstream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)"),
			txt("exceeded retry limit, last status: 401 Unauthorized, request id: 9a1b")},
		neg: []Evidence{txt("expected status 401 when unauthorized"), txt("unexpected status 400 Bad Request")},
	},
	"codex.status_forbidden.v1": {
		pos: []Evidence{txt("unexpected status 403 Forbidden: Unknown error, url: https://chatgpt.com/backend-api/codex/responses\nstream disconnected before completion: error sending request")},
		neg: []Evidence{txt("a 403 forbidden page"), txt("unexpected status 404 Not Found")},
	},
	"net.reqwest_builder.v1": {
		pos: []Evidence{txt("stream disconnected before completion: builder error"), txt("builder error for url (https://api.openai.com/v1/responses)")},
		neg: []Evidence{txt("error sending request for url (https://api.openai.com/v1/responses)"), txt("the query builder failed")},
	},
	"http.billing.402.v1": {
		pos: []Evidence{status(402, "payment required"), txt(`402 "Payment Required"`)},
		neg: []Evidence{txt("402913 tokens used"), txt(`402 "`), txt(`step 402 "done"`)},
	},
	"http.permission.403.v1": {
		pos: []Evidence{status(403, "forbidden"), txt(`{"api_error_status":403}`)},
		neg: []Evidence{txt("403 lines changed")},
	},
	"http.not_found.404.v1": {
		pos: []Evidence{status(404, "not found"), txt("Error: {“error”:{“code”:“404”,“message”:“Not Found”}}")},
		neg: []Evidence{txt("page 404 of the manual"), txt("the “code”: “4040” field"),
			txt("Error POSTing to endpoint (HTTP 404): Session not found")},
	},
	"http.timeout.408.v1": {
		pos: []Evidence{status(408, "")},
		neg: []Evidence{txt("408 ms")},
	},
	"http.proxy_auth.407.v1": {
		pos: []Evidence{status(407, ""), txt("AxiosError: Request failed with status code 407")},
		neg: []Evidence{txt("407 files changed"), txt(`{"code":4070}`)},
	},
	"http.too_large.413.v1": {
		pos: []Evidence{status(413, "payload")},
		neg: []Evidence{txt(`{"code":4130}`)},
	},
	"http.bad_request.4xx.v1": {
		pos: []Evidence{status(400, `{"error":{"message":"messages.3.content.0.text: text content blocks must be non-empty"}}`), status(422, "unprocessable"),
			txt(`POST "https://api.example.com/v1/chat/completions": 400 Bad Request "backend says no"`)},
		neg: []Evidence{txt("400 tests passed"), txt(`{"id": 400 }`)},
	},
	"http.server_error.500.v1": {
		pos: []Evidence{txt(`API Error: 500 {"type":"error","error":{"type":"api_error"}}`), status(500, ""),
			txt("[ERROR] [default] Unhandled status from server:,500,"), txt("unhandled status from server: 500 oops")},
		neg: []Evidence{txt("500 ms later"), txt(`{"code":-32603}`), txt("unhandled status from server:,5000,")},
	},
	"http.unavailable.5xx.v1": {
		pos: []Evidence{status(502, "<title>502 Bad Gateway</title>"), status(503, ""), txt("HTTP/1.1 504 Gateway Timeout")},
		neg: []Evidence{txt("5032 tokens")},
	},
	"http.server_error.5xx.v1": {
		pos: []Evidence{status(505, "")},
		neg: []Evidence{txt("505 files")},
	},
	"http.cloudflare_title.v1": {
		pos: []Evidence{txt("<head>\n<title>api.openai.com | 520: Web server is returning an unknown error</title>"),
			txt("<title>api.anthropic.com | 524: A timeout occurred</title>")},
		neg: []Evidence{txt("<title>Dashboard | 5 projects</title>"), txt("<title>api.openai.com</title> | 520: unknown"),
			txt("<title>Invoices | 404: Not found</title>"), txt("status | 524: A timeout occurred")},
	},
	"http.gateway_text.v1": {
		pos: []Evidence{txt("<html><head><title>502 Bad Gateway</title></head></html>")},
		neg: []Evidence{txt("1502 bad gateway configs")},
	},
	"http.too_many_requests_text.v1": {
		pos: []Evidence{txt("got 429 Too Many Requests from upstream")},
		neg: []Evidence{txt("too many requests in flight")},
	},
	"http.internal_error_text.v1": {
		pos: []Evidence{txt("upstream replied 500 Internal Server Error")},
		neg: []Evidence{txt("internal server error handling")},
	},
	"acp.error_kind_server.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"errorKind":"server_error"}`}},
		neg: []Evidence{txt("errorKind server_error")},
	},
	"anthropic.api_error.v1": {
		pos: []Evidence{txt(`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)},
		neg: []Evidence{txt("api_error"), txt(`{"error":{"message":"Request contains an invalid argument.","type":"api_error"}}`)},
	},
	"anthropic.invalid_request_error.v1": {
		pos: []Evidence{txt(`{"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate"}}`),
			txt("Error from provider (Console Go): Upstream request failed: [invalid_request_error] Invalid value for 'tool_choice'.")},
		neg: []Evidence{txt("invalid_request_error"), txt("Upstream request failed: [400] Provider returned error"),
			txt("the docs list [invalid_request_error] among error types")},
	},
	"openai.server_error.v1": {
		pos: []Evidence{{HTTPStatus: 200, Err: `event: response.failed` + "\n" + `data: {"response":{"error":{"code":"server_error"}}}`}},
		neg: []Evidence{txt("server_error")},
	},
	"gemini.internal.v1": {
		pos: []Evidence{txt(`{"error":{"message":"An internal error has occurred.","status":"INTERNAL"}}`)},
		neg: []Evidence{txt("internal")},
	},
	"gemini.unavailable.v1": {
		pos: []Evidence{txt(`{"error":{"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}`),
			txt("Error: Deadline expired before operation could complete.")},
		neg: []Evidence{txt("unavailable"), txt("the deadline expired yesterday")},
	},
	"bedrock.operation_not_allowed.v1": {
		pos: []Evidence{txt("ValueError: Error raised by bedrock service: An error occurred (ValidationException) when calling the InvokeModel operation: Operation not allowed"),
			txt("ValidationException: Operation not allowed.")},
		neg: []Evidence{txt("ValidationException: Operation not allowed while the stack is updating"), txt("Operation not allowed")},
	},
	"bedrock.validation.v1": {
		pos: []Evidence{txt("An error occurred (ValidationException) when calling the Converse operation: messages.0: field required"),
			txt("Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again."),
			txt("The model returned the following errors: messages.0.content: Field required")},
		neg: []Evidence{txt("validation passed"), txt("The model returned the following errors: Overloaded")},
	},
	"generic.overloaded_text.v2": {
		pos: []Evidence{txt("Error: upstream overloaded"), txt(`{"error":{"message":"Overloaded"}}`),
			txt("The service is currently overloaded. Please try again later."), txt("Anthropic's API is temporarily overloaded."),
			txt("HTTP 200: The service may be temporarily overloaded, please try again later"),
			txt("The service may be temporarily overloaded or down."),
			txt("The engine is overloaded or not ready yet.")},
		neg: []Evidence{txt("I've updated worker.go so that when the queue is overloaded the handler returns HTTP 529 with an `overloaded_error` body."),
			txt("the server was overloaded yesterday\nError: file not found"),
			txt("If the server is overloaded, try again later."), txt("I think the engine is currently overloaded, so I waited."),
			txt("when the API is temporarily overloaded we back off"), txt("the API was temporarily overloaded last night"),
			txt("Tip: the service may be temporarily overloaded at peak hours."),
			txt("Note: the service may be temporarily overloaded or down during maintenance windows."),
			txt("If the server is overloaded or not ready yet, the probe fails.")},
	},
	"google.capacity_short_reset.v1": {
		pos: []Evidence{txt("You have exhausted your capacity on this model. Your quota will reset after 45s."),
			txt("You have exhausted your capacity on this model. Your quota will reset after 0s.")},
		neg: []Evidence{txt("You have exhausted your capacity on this model. Your quota will reset after 19h5m27s."),
			txt("Your quota will reset after midnight.")},
	},
	"omp.stream_watchdog.v1": {
		pos: []Evidence{txt("Provider stream stalled while waiting for the next event (stopReason=error, model=x"),
			txt("OpenAI Codex SSE stream timed out while waiting for the first event")},
		neg: []Evidence{txt("the stream stalled"), txt("waiting for the next event loop tick")},
	},
	"net.subject_timed_out.v1": {
		pos: []Evidence{txt("live upstream timed out"), txt("Cursor transport timed out before first response"),
			txt("Upstream timeout"), txt("codex websocket response prelude timed out"),
			txt("[09:34:21] [STREAM] CODEX | gpt-5.5 | 789865ms | error: stream stall timeout")},
		neg: []Evidence{txt("stream timeout set to 300s"), txt("upstream timeout=60s"), txt("the request timed out"),
			txt("downstream timeout"), txt("responsetimeout: 30"), txt("stream timeouts are configurable")},
	},
	"kun.stream_stalled.v1": {
		pos: []Evidence{txt("model stream stalled for 45000ms without data"), txt("error: model stream stalled for 120000ms without data (stream_idle_timeout)")},
		neg: []Evidence{txt("[kun] event loop stalled for ~5000ms — a synchronous task blocked the loop"), txt("the stream stalled"),
			txt("local Whisper model download stalled for 60 seconds")},
	},
	"claude_code.stream_idle.v1": {
		pos: []Evidence{txt("API Error: Stream idle timeout - no chunks received")},
		neg: []Evidence{txt("set the stream timeout to 30s"), txt("Error: idle timeout reached for the stream")},
	},
	"http.too_many_requests_phrase.v1": {
		pos: []Evidence{txt("Error: Too Many Requests"), txt("Too many requests from this key, please try again in a minute.")},
		neg: []Evidence{txt("Error: Too Many Requests: you have used all requests of your free plan this month"),
			txt("we send too many requests to the index when the cache is cold"),
			txt("If you send too many requests, try again with a smaller batch.")},
	},
	"qwen.free_tier_ended.v1": {
		pos: []Evidence{txt("Qwen OAuth free tier was discontinued on 2026-04-15. Run /auth to switch to Coding Plan, OpenRouter, Fireworks AI, or another provider.")},
		neg: []Evidence{txt("Qwen OAuth free tier quota exceeded.")},
	},
	"axios.timeout.v1": {
		pos: []Evidence{txt("AxiosError: timeout of 60000ms exceeded")},
		neg: []Evidence{txt("a timeout of 5 minutes exceeded my patience"), txt("timeout of ms exceeded")},
	},
	"agent.exited_mid_turn.v1": {
		pos: []Evidence{{Phase: PhaseStreaming, ExitStatus: "signal: killed"}, {Phase: PhasePromptSend, ExitStatus: "exit status 1", StderrTail: "bye"}},
		neg: []Evidence{{Phase: PhaseProcessStart, ExitStatus: "exit status 1"}, {Phase: PhaseStreaming}},
	},
	"copilot.rate_limited_long.v1": {
		pos: []Evidence{txt("Sorry, your request was rate-limited. Please wait 269 hours 20 minutes before trying again.")},
		neg: []Evidence{txt("Sorry, your request was rate-limited. Please wait 39 minutes before trying again."),
			txt("Sorry, your request was rate-limited. Please wait and try sending again later."),
			txt("Please wait 3 hours before trying again.")},
	},
	"copilot.rate_limited.v1": {
		pos: []Evidence{txt("Sorry, your request was speed limited. Please wait 2 minutes before trying again."),
			txt("Sorry, your request was rate-limited. Please wait and try again.")},
		neg: []Evidence{txt("your request was rated highly"), txt("Please wait 2 minutes before trying again.")},
	},
	"copilot.quota.v1": {
		pos: []Evidence{txt("You've reached your monthly chat messages quota."),
			txt("Quota exceeded. Upgrade to increase your limit: https://github.com/features/copilot/plans")},
		neg: []Evidence{txt("Error Code: rate_limited"), txt("premium model selected")},
	},
	"copilot.model_not_for_integrator.v1": {
		pos: []Evidence{txt(`400 The requested model is not available for integrator "opencode". Available models: [gpt-4.1 claude-opus-4.7 gpt-5.5]`),
			txt(`{"error":{"message":"{\"error\":{\"message\":\"The requested model is not\n supported.\",\"code\":\"model_not_supported\"}}"}}`),
			status(400, `{"error":{"message":"model \"gpt-5.4-mini\" is not accessible via the /chat/completions endpoint","code":"unsupported_api_for_model"}}`),
			txt("model gpt-5.1-codex is not accessible via the /chat/completions endpoint"),
			txt(`Request Failed: 400 {"error":{"message":"no endpoints available for this model under your current plan and policies","code":"no_available_model_endpoints"}}`)},
		neg: []Evidence{txt("the integrator is not available today"), txt("model not supported flags are listed in the docs"),
			txt("the dashboard is not accessible via the vpn endpoint"), txt("no endpoints available yet for this service")},
	},
	"copilot.cli_model_unavailable.v1": {
		pos: []Evidence{txt(`Model "sonet" is not supported by Copilot CLI.` + "\n\nSupported models:\n  - \"claude-sonnet-4.5\""),
			txt(`✗ Model "gpt-5" is not available. It may be disabled by your organization's policy.`),
			txt("✗ Error: No supported model available"),
			txt("Execution failed: No model available. Check policy enablement under GitHub Settings > Copilot")},
		neg: []Evidence{txt("this flag is not supported by copilot's older plugin"), txt("no model available offline, downloading"),
			txt("check policy enablement later")},
	},
	"copilot.cli_no_auth.v1": {
		pos: []Evidence{txt("No authentication information available")},
		neg: []Evidence{txt("authentication information is available in the docs"), txt("no information available")},
	},
	"copilot.overage_limit.v1": {
		pos: []Evidence{txt("You cannot accrue additional premium requests at this time.")},
		neg: []Evidence{txt("additional premium requests are enabled")},
	},
	"zhipu.billing.v1": {
		pos: []Evidence{txt(`Error code: 429, with error text {"error":{"code":"1113","message":"Your account is in arrears"}}`),
			txt("您的套餐已到期，请续订"), txt("Your account is in arrears, please recharge and try again")},
		neg: []Evidence{txt(`{"error":{"code":"11130"}}`), txt("error code: 1113 lines")},
	},
	"zhipu.rate_limited.v1": {
		pos: []Evidence{txt("API Error: [1302][您的账户已达到速率限制，请您控制请求频率]"), txt(`{"error":{"code":1303,"message":"x"}}`),
			txt("Error: 当前并发数过高，请降低并发"), txt("请求频率过高")},
		neg: []Evidence{txt("[13020]"), txt(`{"code":"1302x"}`)},
	},
	"zhipu.overloaded.v1": {
		pos: []Evidence{txt(`API Error: 429 {"error":{"code":"1305","message":"该 API 已触发流量限制"}}`),
			txt("已触发流量限制"), txt("当前访问量过大，请稍后再试")},
		neg: []Evidence{txt(`{"code":"13050"}`), txt("ray id 1305")},
	},
	"zhipu.quota.v1": {
		pos: []Evidence{txt(`{"error":{"code":"1304","message":"该 API 已达今日调用次数限额"}}`), txt("已达今日调用次数限额")},
		neg: []Evidence{txt(`{"code":"13080"}`), txt("[1308 items]")},
	},
	"zhipu.prompt_too_long.v1": {
		pos: []Evidence{txt(`Error code: 400 {'code': '1261', 'message': 'Prompt exceeds max length'}`)},
		neg: []Evidence{txt(`{"code":"12610"}`), txt("[1261 files]")},
	},
	"lobechat.server_error_zh.v1": {
		pos: []Evidence{txt("很抱歉，服务器没有等到上游服务器的回应，请稍后再试\n错误详情: {\"error\":{\"message\":\"timeout\"}}")},
		neg: []Evidence{txt("服务器没有等到客户端的请求"), txt("上游服务器的回应很慢，但已完成"), txt("服务器遇到了问题")},
	},
	"lobechat.unavailable_zh.v1": {
		neg: []Evidence{txt("服务器当前无法处理您的请求，因为参数错误"), txt("系统正在进行维护，敬请期待新功能")},
	},
	"lobechat.rate_limited_zh.v1": {
		neg: []Evidence{txt("服务器有点累了"), txt("您的请求太多了吗？")},
	},
	"lobechat.auth_zh.v1": {
		pos: []Evidence{txt("OpenAI API Key 不正确或为空，请添加自定义 OpenAI API Key")},
		neg: []Evidence{txt("API Key 正确，身份验证已通过"), txt("请提供有效的身份证明"), txt("密码不正确")},
	},
	"zhipu.invalid_params.v1": {
		pos: []Evidence{txt("400 - 出错啦\nopenai_protocol: GLM-4.5-Flash\n{\n\"error\": {\n\"message\": \"API 调用参数有误,请检查文档。\",\n\"code\": \"1214\"\n}\n}"),
			txt(`Error code: 400 - {'error': {'code': '1213', 'message': '未正常接收到 prompt 参数'}}`),
			txt("Incorrect API call parameters, please check the documentation"),
			txt(`{"error":{"code":"1214","message":"tools[0].type:type cannot be empty."}}`),
			txt("Provider returned error: {“error”:{“code”:“1215”,“message”:“x and y cannot be set simultaneously”}}")},
		neg: []Evidence{txt(`{"code":"12100"}`), txt(`{"areas":[{"code":"12140"}]}`), txt("[1210 files changed]"),
			txt("the API call parameters look correct"), txt("[1214 lines]"), txt("line 1213 of main.go")},
	},
	"llamacpp.tools_need_jinja.v1": {
		pos: []Evidence{status(500, `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`),
			txt("tools param requires --jinja flag")},
		neg: []Evidence{txt("started llama-server with --jinja"), txt("tools param: none")},
	},
	"zhipu.content_filter.v1": {
		pos: []Evidence{txt(`{"error":{"code":"1301","message":"System detected potentially unsafe or sensitive content in input or generation."}}`)},
		neg: []Evidence{txt(`{"code":"13010"}`), txt(`{"areas":[{"code":"13011"}]}`)},
	},
	"zhipu.model_not_in_plan.v1": {
		pos: []Evidence{txt(`429: {"code":"1311","message":"Your current subscription plan does not yet include access to GLM-5.3-Highspeed"}`),
			txt("Your plan does not include access to GLM-9")},
		neg: []Evidence{txt(`{"code":"13110"}`), txt("room 1311")},
	},
	"zhipu.fair_use.v1": {
		pos: []Evidence{txt("API Error: Request rejected (429) · [1313][Your account's current usage pattern does not comply with the Fair Usage Policy, and your request frequency has been limited.]")},
		neg: []Evidence{txt(`{"code":"13130"}`), txt("the fair usage policy applies to all plans")},
	},
	"generic.input_length_exceeds.v1": {
		pos: []Evidence{txt("Input length 72054 exceeds the maximum length 65536")},
		neg: []Evidence{txt("input length is fine"), txt("the name exceeds the maximum length of 64")},
	},
	"openai.encrypted_content_foreign.v1": {
		pos: []Evidence{txt("Upstream request failed: [invalid_request_error] reasoning `encrypted_content` was not issued to this caller")},
		neg: []Evidence{txt("include reasoning.encrypted_content"), txt("continuation cursor was not issued to this caller")},
	},
	"openai.encrypted_content_invalid.v1": {
		pos: []Evidence{status(400, `{"error":{"message":"The encrypted content for item rs_1 could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`),
			txt("Error 400 The encrypted content gAAA could not be verified. Reason: Encrypted content could not be decrypted or parsed.")},
		neg: []Evidence{txt(`include: ["reasoning.encrypted_content"]`), txt("the encrypted content could not be loaded")},
	},
	"opencode.zen_free_limit_retry.v1": {
		pos: []Evidence{txt("Free limit reached\n\nSubscribe to OpenCode Go for reliable access to the best open-source models, starting at $5/month.")},
		neg: []Evidence{txt("OpenCode Go is a subscription"), {ExitStatus: "exit status 1", Err: "Free usage exceeded, subscribe to Go"},
			txt("Free usage exceeded, subscribe to Go\nError: FreeUsageLimitError")},
	},
	"opencode.zen_usage_limit.v2": {
		pos: []Evidence{status(429, `{"type":"error","error":{"type":"FreeUsageLimitError","message":"Free usage exceeded"}}`)},
		neg: []Evidence{txt("OpenCode Go is a subscription"), txt("free limit of 5 sessions"), txt("usage limit error handling")},
	},
	"opencode.zen_free_tier_only.v1": {
		pos: []Evidence{txt("Error from provider (Console): OpenCode's free tier can only be used from within OpenCode")},
		neg: []Evidence{txt("the free tier can only be used with small models"), txt("used from within OpenCode")},
	},
	"opencode.zen_billing.v1": {
		pos: []Evidence{status(401, `{"type":"error","error":{"type":"CreditsError","message":"No payment method. Add a payment method here: https://opencode.ai/workspace/wrk_01/billing"}}`),
			txt("Error: No payment method. Add a payment method here:\nhttps://opencode.ai/workspace/<redacted>/billing"),
			status(401, `{"type":"error","error":{"type":"MonthlyLimitError","message":"Your workspace has reached its monthly spending limit of $50."}}`),
			txt("Payment failed: no payment method on file for this account")},
		neg: []Evidence{txt("payment method updated; no payment method errors since"), txt("add a payment method to raise your rate limit"),
			txt("the credits error page lists payment methods")},
	},
	"opencode.go_missing_session.v1": {
		pos: []Evidence{status(400, `{"type":"error","error":{"type":"MissingSessionID","message":"Error from provider (Console Go): Request is missing x-opencode-session and cannot be routed efficiently."}}`)},
		neg: []Evidence{txt("set the x-opencode-session header per conversation"), txt("session id missing from the log line")},
	},
	"minimax.invalid_params.v1": {
		pos: []Evidence{txt(`{"type":"error","error":{"type":"bad_request_error","message":"invalid params, glyph definition format error (2013)","http_code":"400"}}`),
			txt(`{"id":"","choices":null,"base_resp":{"status_code":2013,"status_msg":"invalid params"}}`),
			txt("litellm.APIConnectionError: MinimaxException - invalid params (2013)")},
		neg: []Evidence{txt("invalid params, unknown model 'abab5' (2013)"), txt("invalid params were fixed in 2013"),
			txt("usage limit exceeded (2056)")},
	},
	"opencode.zen_subscription_quota.v1": {
		pos: []Evidence{txt("Subscription quota exceeded. Retry in 2h 13m."), txt("Subscription quota exceeded. You can continue using free models.")},
		neg: []Evidence{txt("subscription quota"), txt("quota exceeded for the subscription key")},
	},
	"roo.provider_auth.v1": {
		pos: []Evidence{txt("Couldn't authenticate with provider. Please check your API key configuration.")},
		neg: []Evidence{txt("authenticate with provider settings first")},
	},
	"roo.provider_refused.v1": {
		pos: []Evidence{txt("Unauthorized. Your API key is valid, but the provider refused to complete this request.")},
		neg: []Evidence{txt("the provider refused the offer")},
	},
	"roo.provider_rate_limited.v1": {
		pos: []Evidence{txt("Too many requests. You're being rate-limited by the provider. Please wait a bit before your next API call.")},
		neg: []Evidence{txt("rate-limited requests are queued")},
	},
	"roo.provider_server_error.v1": {
		pos: []Evidence{txt("Provider server error. Something is wrong on the provider side, there's nothing wrong with your request.")},
		neg: []Evidence{txt("something is wrong with your request")},
	},
	"continue.local_server_down.v1": {
		pos: []Evidence{txt("Error: Unable to connect to local Ollama instance. Ollama may not be running."),
			txt("Unable to connect to local Lemonade instance. Lemonade may not be installed or may not be running.")},
		neg: []Evidence{txt("connect to local instance"), txt("Ollama instance is local")},
	},
	"ollama.python_client_unreachable.v1": {
		pos: []Evidence{txt("ConnectionError: Failed to connect to Ollama. Please check that Ollama is downloaded, running and accessible. https://ollama.com/download"),
			txt("❌ Ollama error: Failed to connect to Ollama. Please check that Ollama is downloaded, running and accessible.")},
		neg: []Evidence{txt("Ollama is downloaded and running"), txt("check that the file is downloaded, running and accessible"),
			txt("Failed to connect to Ollama API: 401 Unauthorized unauthorized")},
	},
	"codex.requires_newer_version.v1": {
		pos: []Evidence{txt(`unexpected status 400 Bad Request: {"detail":"The 'gpt-5.5' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again."}`)},
		neg: []Evidence{txt("A newer version of Codex is available: run npm i -g @openai/codex"), txt("requires a newer version of Node.js")},
	},
	"continue.free_trial_cap.v1": {
		pos: []Evidence{txt(`HTTP 429 Too Many Requests from https://proxy.example/stream_chat {"detail":"Too many requests from this client (limit is 1000)"}`),
			txt("Error: You are out of requests for the free trial.")},
		neg: []Evidence{txt("Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-01 have exceeded call rate limit of your current OpenAI S0 pricing tier. Please retry after 20 seconds."),
			txt("429 Too many requests from this client, please retry in 2 seconds"), txt("start your free trial of Plus today")},
	},
	"jsonrpc.invalid_params_text.v1": {
		pos: []Evidence{txt("[acp::handle_rpc_message] Error: {\n  code = -32602,\n  message = \"Invalid params\"\n}"),
			txt("Error handling request { code: -32600, message: 'Invalid Request' }"), txt(`{"code": -32602,"message":"bad"}`)},
		neg: []Evidence{txt("listening on port 32602"), txt("code = -326020"), txt("ids -32602 and up")},
	},
	"zed.provider_unavailable.v1": {
		pos: []Evidence{txt("OpenAI's servers are temporarily unavailable. Zed will retry automatically. If the problem persists, check the provider's status page.")},
		neg: []Evidence{txt("servers are temporarily in maintenance mode on Sundays")},
	},
	"zed.chatgpt_subscription_signin.v1": {
		pos: []Evidence{txt("ERROR [agent] Failed to authenticate provider: ChatGPT Subscription: Sign in with your ChatGPT Plus or Pro subscription to use this provider.")},
		neg: []Evidence{txt("Signed in with your ChatGPT Plus subscription."), txt("ChatGPT Subscription: rate limited, retrying")},
	},
	"zed.agent_version_unsupported.v1": {
		pos: []Evidence{txt("Upgrade Codex to work with Zed\nCurrently using /usr/local/bin/codex-acp, which does not report a valid --version"),
			txt(`Currently using C:\Users\me\AppData\Roaming\npm\gemini.cmd, which does not report a valid --version`)},
		neg: []Evidence{txt("Currently using version 0.2.2 of Gemini CLI"), txt("which is only versioned by date, currently using the nightly"),
			txt("Upgrade Gemini CLI to work with Zed"), txt("Currently using node 18, which is only version-pinned; we need at least 20 elsewhere in the docs, far below this line and well past the callout's reach of a hundred and twenty bytes")},
	},
	"acp.permission_prompt_unavailable.v1": {
		pos: []Evidence{txt("AcpRuntimeError: Permission prompt unavailable in non-interactive mode"),
			{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `{"details":"Permission prompt unavailable in non-interactive mode"}`}},
		neg: []Evidence{txt("Permission denied for fs/write_text_file"), txt("permission prompt shown in interactive mode")},
	},
	"copilot.ls_not_authenticated.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: 1000, RPCMessage: "Not authenticated: NotAuthorized"},
			txt(`{"jsonrpc":"2.0","id":3,"error":{"code":1000,"message":"Not authenticated: HTTP401"}}`)},
		neg: []Evidence{txt(`{"jsonrpc":"2.0","id":3,"error":{"code":1000,"message":"Not authenticated: Exception"}}`),
			txt("not authenticated yet, waiting for the device flow")},
	},
	"kiro.throttled.v1": {
		pos: []Evidence{txt("Internal error (code -32603): Encountered an error in the response stream: The request was throttled by the service (request_id: 671ca98e)")},
		neg: []Evidence{txt("the request was throttled"), txt("throttled by the service mesh config")},
	},
	"kiro.service_failure.v1": {
		pos: []Evidence{txt("The service failed to process the request")},
		neg: []Evidence{txt("the service failed to start"), txt("failed to process the request body")},
	},
	"kiro.stream_timeout.v1": {
		pos: []Evidence{txt("The stream timed out receiving the response after 300000ms")},
		neg: []Evidence{txt("the stream timed out"), txt("receiving the response took 3s")},
	},
	"kiro.context_overflow.v1": {
		pos: []Evidence{txt("The context window overflowed")},
		neg: []Evidence{txt("the context window is large"), txt("buffer overflowed")},
	},
	"kiro.model_busy.v1": {
		pos: []Evidence{txt("The model is temporarily busy. Please try again in a moment. (epRequestId: 64f3a2a3)"),
			txt("The model you've selected is experiencing a high volume of traffic. Try changing the model and re-running your prompt.")},
		neg: []Evidence{txt("the model is busy writing"), txt("temporarily busy signal on line 2"),
			txt("the road you've selected is experiencing light traffic")},
	},
	"kiro.network_error.v1": {
		pos: []Evidence{txt("A network error occurred. Please check your connection and try again.")},
		neg: []Evidence{txt("a network error occurred in the test fixture"), txt("please check your connection settings file")},
	},
	"cursor.provider_unreachable.v1": {
		pos: []Evidence{txt("cursor-agent: CLI failed exit=1 — NonRetriableError: Provider Error We're having trouble connecting to the model provider. This might be temporary - please try again in a moment.")},
		neg: []Evidence{txt("the agent is unable to reach the model registry"), txt("trouble connecting to the database")},
	},
	"kiro.account_limited.v1": {
		pos: []Evidence{txt(`429 Too Many Requests: {"message":"Due to suspicious activity, we are imposing temporary limits on how frequently your account can send a request to Kiro while we investigate.","reason":null}`),
			{HTTPStatus: 429, Err: "Due to suspicious activity, we are imposing temporary limits on how frequently your\naccount can make requests."}},
		neg: []Evidence{txt("we are imposing temporary limits on uploads during maintenance"),
			txt("due to suspicious activity on the test account, the fixture is skipped")},
	},
	"warp.quota_limit.v1": {
		pos: []Evidence{txt("I'm sorry, I couldn't complete that request.\n\nRequest failed with error: QuotaLimit"),
			txt("Request failed due to lack of AI quota.")},
		neg: []Evidence{txt("Request failed with error: ServerOverloaded"), txt("quota limits are documented per plan")},
	},
	"warp.unexpected_eof.v1": {
		pos: []Evidence{txt("Response stream ended unexpectedly before completion.")},
		neg: []Evidence{txt("the response stream ended before completion of the test"), txt("stream ended unexpectedly")},
	},
	"warp.grok_token_refresh.v1": {
		pos: []Evidence{txt("Grok subscription token could not be refreshed. Please try reconnecting your subscription.")},
		neg: []Evidence{txt("grok subscription renewed"), txt("token could not be parsed")},
	},
	"alibaba.token_limit.v1": {
		pos: []Evidence{txt("Error from provider (Alibaba): You exceeded your current quota, please check your plan and billing details. For details, see: https://help.aliyun.com/zh/model-studio/error-code#token-limit")},
		neg: []Evidence{txt("see https://help.aliyun.com/zh/model-studio/error-code#overdue-payment")},
	},
	"bedrock.max_tokens.v1": {
		pos: []Evidence{txt("Error: The maximum tokens you requested exceed the model limit of 4096.")},
		neg: []Evidence{txt("the maximum tokens you may request is 4096")},
	},
	"xai.team_rate_limit.v1": {
		pos: []Evidence{txt(`Error: 429 "Too many requests for team 0000 and model grok-4. Your team's rate limit is — Requests per Minute (actual/limit): 61/60."`)},
		neg: []Evidence{txt("the team has too many tokens to count")},
	},
	"net.exception_class.v1": {
		pos: []Evidence{txt("java.net.UnknownHostException: api.openai.com"),
			txt("java.net.ConnectException: Failed to connect to api.openai.com/104.18.6.192:443"),
			txt("System.Net.Http.HttpRequestException: No connection could be made because the target machine actively refused it. (localhost:11434)"),
			txt("curl: (35) Schannel SSL_connect: Connection was reset in connection to api.anthropic.com:443")},
		neg: []Evidence{txt("Failed to connect to MCP server 'github'"), txt("Failed to connect to the database: check DATABASE_URL"),
			txt("the resolver answered for api.openai.com")},
	},
	"jsonrpc.method_not_found_text.v1": {
		pos: []Evidence{txt(`Agent rejected session/set_config_option for "timeout"="120": "Method not found": session/set_config_option (ACP -32601)`)},
		neg: []Evidence{txt("listening on port 326010"), txt("error -326011 in module"), txt("Method not found")},
	},
	"dashscope.billing.v1": {
		pos: []Evidence{txt(`{"code":"PrepaidBillOverdue","message":"The prepaid bill is overdue.","request_id":"x"}`)},
		neg: []Evidence{txt(`{"code":"PrepaidBillOverdueWarning"}`), txt("the prepaid bill is overdue next week")},
	},
	"dashscope.invalid_api_key.v1": {
		pos: []Evidence{txt(`{"code":"InvalidApiKey","message":"Invalid API-key provided.","request_id":"x"}`)},
		neg: []Evidence{txt(`{"code":"InvalidApiKeyFormat"}`)},
	},
	"dashscope.throttling.v1": {
		pos: []Evidence{txt(`{"code":"Throttling","message":"Requests throttling triggered.","request_id":"x"}`)},
		neg: []Evidence{txt(`{"code":"ThrottlingConfig"}`), txt("throttling is configured per key")},
	},
	"zhipu.account.v1": {
		pos: []Evidence{txt(`{"error":{"code":"1112","message":"当前账号已被锁定，请联系平台客服"}}`), txt("您的账户已被锁定"),
			txt("账户当前处于非活动状态"), txt("Your account has been locked, please contact customer service to unlock"),
			txt("Your account is currently inactive. Please check your account information")},
		neg: []Evidence{txt(`{"error":{"code":"11120"}}`), txt("processed 1112 rows"), txt("your account is currently active"),
			txt("the file has been locked")},
	},
	"net.os_errno.v1": {
		pos: []Evidence{txt("OSError: [WinError 10061] 由于目标计算机积极拒绝，无法连接。"),
			txt("error trying to connect: 由于连接方在一段时间后没有正确答复或连接的主机没有反应，连接尝试失败。 (os error 10060)")},
		neg: []Evidence{txt("FileNotFoundError: [Errno 2] No such file or directory: 'x'"), txt("[WinError 100610]"), txt("(os error 1111)"),
			txt("PermissionError: [WinError 5] 拒绝访问。")},
	},
	"openrouter.mid_stream.v1": {
		pos: []Evidence{txt(`OpenRouter Mid-Stream Error: {"message":"Upstream error","code":502}`)},
		neg: []Evidence{txt("mid-stream errors are retried")},
	},
	"wrapper.retry_wait.v1": {
		pos: []Evidence{txt("Rate limit hit. Waiting 30 seconds before retrying..."),
			txt("Rate limit exceeded. Sleeping before retrying..."),
			txt("⏱️ Provider overloaded. Waiting 60.7s (attempt 6/8)..."),
			txt("🔁 Transient APIConnectionError on openrouter — rebuilt client, waiting 4s before one last primary attempt."),
			txt("Retry attempt 1 after 1000ms delay. Error: 429 Too Many Requests"),
			txt("WARN reqwest_retry::middleware: Retry attempt #0. Sleeping 1.043920291s before the next attempt"),
			txt("Content retry attempt 1 due to NO_RESPONSE_TEXT."),
			txt("WARNING:agent:Starting call to 'agent.call_llm', this is the 3rd time calling it."),
			txt("retry_delay_seconds=<8>, max_attempts=<6>, current_attempt=<2> | ModelThrottledException encountered | delaying before next retry")},
		neg: []Evidence{txt("kotlinx.coroutines.TimeoutCancellationException: Timed out waiting for 60000 ms"),
			txt("Timed out waiting 60s (attempt 1)"),
			txt("⏱️ Provider overloaded. Waiting 60.7s (attempt 8/8)...\n❌ API failed after 8 retries — HTTP 429: The service may be temporarily overloaded"),
			txt("net/http: request canceled while waiting for connection"),
			txt("Call to GPT failed due to rate limit, retry attempt 1 of 5\nRateLimitError: Retry limit exceeded"),
			txt("set the retry attempt count to 3 in config.toml"),
			txt("Rate limited on the OpenAI API, sleeping before retrying...\nopenai.RateLimitError: Error code: 429 - final"),
			txt("Retry attempt 3 failed after 30s"), txt("Retry attempt 1 after 1000ms delay. Error: 503\nFailed to make API call after 3 retries"),
			txt("Retry attempt #1. Sleeping 2s before the next attempt\nRequest failed after 2 retries"),
			txt("Retry attempt #1. Sleeping on it overnight"),
			txt("Starting call to 'agent.call_llm', this is the 1st time calling it."),
			txt("Finished call to 'agent.call_llm' after 2.04(s), this was the 2nd time calling it."),
			txt("WARNING:agent:Starting call to 'agent.call_llm', this is the 3rd time calling it.\ntenacity.RetryError: RetryError[<Future at 0x7f state=finished raised RateLimitError>]"), txt("Retry attempt 2 due to a typo in the config"),
			txt("Content retry attempt 2 due to NO_RESPONSE_TEXT.\nError: Model stream ended with empty response text."),
			txt("we are delaying before next retry"),
			txt("retry_delay_seconds=<8>, max_attempts=<6>, current_attempt=<5> | throttling exception encountered | delaying before next retry\nstrands.types.exceptions.ModelThrottledException: An error occurred (ThrottlingException)")},
	},
	"litellm.no_deployments.v1": {
		pos: []Evidence{txt("litellm.RateLimitError: No deployments available for selected model, Try again in 5 seconds. Passed model=gpt-4o")},
		neg: []Evidence{txt("3 deployments available for the selected model group")},
	},
	"azure.invalid_subscription_key.v1": {
		pos: []Evidence{txt("Access denied due to invalid subscription key or wrong API endpoint.")},
		neg: []Evidence{txt("Access denied due to Virtual Network/Firewall rules.")},
	},
	"codex.cyber_policy.v1": {
		pos: []Evidence{txt("This request has been flagged for possible cybersecurity risk.")},
		neg: []Evidence{txt("⚠ Your conversations have multiple flags for possible cybersecurity risk. Responses may take longer because extra safety checks are on.")},
	},
	"codex.cloudflare_challenge.v1": {
		pos: []Evidence{txt("unexpected status 403 Forbidden: <html><head><title>Just a moment...</title></head>")},
		neg: []Evidence{txt(`{"error":"Post \"https://chat.openai.com/cdn-cgi/challenge-platform/h/b/jsd/r/df7c\": net/http: TLS handshake timeout"}`),
			txt("just a moment... reconnecting")},
	},
	"relay.upstream_idle_timeout.v1": {
		pos: []Evidence{txt("Error: upstream response idle timeout after 5m0s: context deadline exceeded")},
		neg: []Evidence{txt("idle timeout for upstream responses is 600s")},
	},
	"github_actions.oidc_token_unavailable.v1": {
		pos: []Evidence{txt("error: Error message: Unable to get ACTIONS_ID_TOKEN_REQUEST_TOKEN env variable"),
			txt("Attempt 3 failed: Could not fetch an OIDC token. Did you remember to add `id-token: write` to your workflow permissions?")},
		neg: []Evidence{txt("ACTIONS_ID_TOKEN_REQUEST_URL env variable is set by the runner"),
			txt("Could not fetch an OIDC token from the identity provider: connection reset")},
	},
	"relay.no_available_accounts.v1": {
		pos: []Evidence{status(424, `{"error":{"message":"No available accounts: no available accounts","type":"api_error"},"type":"error"}`)},
		neg: []Evidence{txt(`No available accounts: this group only allows Claude Code clients`),
			txt("no available accounts found in the picker")},
	},
	"net.websocket_closed.v1": {
		pos: []Evidence{txt("Error: WebSocket is not open: readyState 3 (CLOSED)"),
			txt("websockets.exceptions.ConnectionClosedError: sent 1011 (internal error) keepalive ping timeout; no close frame received"),
			txt("Upstream stream closed before terminal event: WebSocket closed before terminal event: code=1006")},
		neg: []Evidence{txt("Error: WebSocket is not open: readyState 0 (CONNECTING)"), txt("the websocket is closed by the client after each turn, by design")},
	},
	"relay.crs_no_accounts_for_model.v1": {
		pos: []Evidence{status(500, `{"error":"Relay service error","message":"No available Claude accounts support the requested model: claude-sonnet-4-6"}`)},
		neg: []Evidence{txt("No available accounts: no available accounts supporting model: claude-opus-4-6"),
			txt("the Claude accounts support the requested model list")},
	},
	"relay.do_request_failed.v1": {
		pos: []Evidence{txt("upstream error: do request failed (request id: 20251207194529177348791uKF8XPa7)"),
			txt(`{"error":{"message":"upstream error: do request failed","type":"new_api_error","code":"do_request_failed"}}`)},
		// The wording of other tools' own clients, not new-api's hidden cause.
		neg: []Evidence{txt("do request failed: invalid character '<' looking for beginning of value"), txt("upstream error: bad response")},
	},
	"volcengine.per_minute_limit.v1": {
		pos: []Evidence{txt(`{"error":{"code":"ModelAccountTpmRateLimitExceeded","message":"TPM (Tokens Per Minute) limit of the model doubao-1-5-pro-32k is exceeded. Please try again later Request id: 02176"}}`),
			txt("RPM (Requests Per Minute) limit of the model doubao-seed-1-6-vision is exceeded. Please try again later"),
			txt("The Requests Per Minute (RPM) limit of the associated endpoint for your account has been exceeded. Request ID: 0217")},
		neg: []Evidence{txt("TPM (Tokens Per Minute) limit of the model doubao-1-5-pro-32k: 800000"), txt("RPM limit of the associated endpoint: 30000")},
	},
	"relay.no_channel.v1": {
		pos: []Evidence{txt("当前分组 default 下对于模型 gpt-4o 无可用渠道 (request id: 2025)")},
		neg: []Evidence{txt("channel available for model gpt-4o: 3")},
	},
	"vllm.prompt_too_long.v1": {
		pos: []Evidence{txt("ValueError: The decoder prompt (length 40001) is longer than the maximum model length of 32768.")},
		neg: []Evidence{txt("max_model_len is longer than the model's maximum context")},
	},
	"azure.principal_no_access.v1": {
		pos: []Evidence{txt(`{"error":{"code":"PermissionDenied","message":"Principal does not have access to API/Operation."}}`)},
		neg: []Evidence{txt("principal access to the API was granted")},
	},
	"litellm.unsupported_params.v1": {
		pos: []Evidence{txt("litellm.UnsupportedParamsError: bedrock does not support parameters: {'reasoning_effort': 'high'}, for model=us.amazon.nova-pro-v1:0. To drop these, set `litellm.drop_params=True` or for proxy:")},
		neg: []Evidence{txt("litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call."), txt("unsupported params dropped: reasoning_effort"),
			txt("add a dummy tool to the request if the provider needs one")},
	},
	"litellm.virtual_key_expected.v1": {
		pos: []Evidence{txt("Authentication Error, LiteLLM Virtual Key expected. Received=${LM****KEY}, expected to start with 'sk-'.")},
		neg: []Evidence{txt("LiteLLM virtual keys are expected to be rotated monthly")},
	},
	"codex.spend_cap.v1": {
		pos: []Evidence{txt("You hit your spend cap set by the owner of your workspace. Ask an owner to increase your spend cap to continue.")},
		neg: []Evidence{txt("set a spend cap for your workspace in settings"), txt("x-codex-rate-limit-reached-type: rate_limit_reached")},
	},
	"codex.invalid_image.v1": {
		pos: []Evidence{txt("■ Image poisoning")},
		neg: []Evidence{txt("image poison detection is enabled")},
	},
	"codex.app_cli_unavailable.v1": {
		pos: []Evidence{txt("Codex CLI on this environment is out of date. Update to 0.121.0 or newer. Current version: 0.114.0")},
		neg: []Evidence{txt("Your Codex CLI is out of date; run npm i -g @openai/codex to update"), txt("unable to locate the config file")},
	},
	"openai.cyber_access_limited.v1": {
		pos: []Evidence{txt("ERROR: stream disconnected before completion: This user's access to gpt-5.3-codex has been temporarily limited for potentially suspicious activity related to cybersecurity.")},
		neg: []Evidence{txt("Your account was flagged for potentially high-risk cyber activity. Requests may be slower while additional verification is applied."),
			txt("access temporarily limited: too many requests")},
	},
	"codex.recovery_notice.v1": {
		pos: []Evidence{txt("Previous response was not found. Retrying the full request."),
			txt("Falling back from WebSockets to HTTPS transport. unexpected status 401 Unauthorized: , url: wss://chatgpt.com/backend-api/codex/responses"),
			txt("failed to connect to websocket: HTTP error: 426 Upgrade Required, url: wss://example.test/v1/responses")},
		neg: []Evidence{txt("failed to connect to websocket: HTTP error: 404 Not Found, url: wss://example.test/v1/responses"),
			txt("Previous response was not found. Retrying the full request.\nYou've hit your usage limit. Try again later."),
			txt("Falling back from WebSockets to HTTPS transport. unexpected status 403 Forbidden: Country, region, or territory not supported, url: wss://chatgpt.com/backend-api/codex/responses"),
			{ExitStatus: "exit status 1", Err: "stream connection failed; waiting to retry"}, txt("waiting to retry the build")},
	},
	"codex.turn_aborted.v1": {
		pos: []Evidence{txt("turn aborted. Something went wrong? Hit `/feedback` to report the issue.")},
		neg: []Evidence{txt("the turn aborted cleanly"), txt("interrupted by a newer request")},
	},
	"openai.policy_refusal.v1": {
		pos: []Evidence{txt("This request has been flagged for possible biological risk.")},
		neg: []Evidence{txt("the content policy allows this"), txt("invalid prompt template")},
	},
	"openai.output_limit.v1": {
		pos: []Evidence{txt("stream disconnected before completion: Incomplete response returned, reason: max_output_tokens")},
		neg: []Evidence{txt("max_output_tokens: 4096"), txt("the length limit was raised")},
	},
	"codex.workspace_gate.v1": {
		pos: []Evidence{txt("Your workspace inference hook blocked this request.")},
		neg: []Evidence{txt("inference hook configured"), txt("access program enabled")},
	},
	"codex.access_program_model.v1": {
		pos: []Evidence{txt("The requested access program cannot be used with this model.")},
		neg: []Evidence{txt("the access program can be used with this model")},
	},
	"azure.operation_not_supported.v1": {
		pos: []Evidence{txt("The chatCompletion operation does not work with the specified model, gpt-5.2-codex. Please choose different model and try again."),
			status(400, `{"error":{"code":"OperationNotSupported","message":"The embeddings operation does not work with the specified model, gpt-4o."}}`)},
		neg: []Evidence{txt("the specified model works with chat completions"), txt("operation not supported on socket")},
	},
	"anthropic.max_tokens_over_model.v1": {
		pos: []Evidence{txt("max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku-20240307")},
		neg: []Evidence{txt("the maximum allowed number of tokens is 4096"), txt("max_tokens: 8192")},
	},
	"generic.request_body_too_large.v1": {
		pos: []Evidence{txt("http: request body too large"), txt(`{"error":{"message":"Request body is too large","type":"invalid_request_error"}}`)},
		neg: []Evidence{txt("the request body was large but accepted"), txt("response body too large to log")},
	},
	"anthropic.param_not_supported_for_model.v1": {
		pos: []Evidence{txt("API Error: 400 `output_config.effort` is not supported for this model."), txt(`{"type":"error","error":{"type":"invalid_request_error","message":"thinking.type.enabled is not supported for this model"}}`)},
		neg: []Evidence{txt("claude-3-haiku is not supported for this model"), txt("model_name is not supported for this model family")},
	},
	"http.too_large_page.v1": {
		pos: []Evidence{txt("<html><head><title>413 Request Entity Too Large</title></head><body></body></html>")},
		neg: []Evidence{txt("<title>413 files</title>"), txt("entity too large to render")},
	},
	"openai.function_schema_invalid.v1": {
		pos: []Evidence{txt("Invalid schema for function 'list_items': In context=(), object schema missing properties."),
			txt(`Invalid schema for function 'notify': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`),
			status(400, `{"error":{"message":"bad tool","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}}`)},
		neg: []Evidence{txt("the model returned an invalid schema for function calls"), txt("function parameters are invalid, retrying"),
			txt("object schema has properties")},
	},
	"openai.unsupported_param_message.v1": {
		pos: []Evidence{txt("Error: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
			txt("Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported."),
			txt("Unsupported value: 'minimal' is not supported with the 'gpt-5.5' model. Supported values are: 'none', 'low', 'medium', 'high', and 'xhigh'."),
			txt("Unsupported parameter: 'reasoning.summary' is not supported with the 'gpt-5.3-codex-spark' model.")},
		neg: []Evidence{txt("Unsupported parameter: previous_response_id"), txt("this model supports the parameter; unsupported value: none"),
			txt("Unsupported value: 'none' is not supported with the current plan; upgrade to use this model"),
			txt("unsupported value: 'x'\nis not supported with the 'gpt-5' model")},
	},
	"codex.try_again_at_date.v1": {
		pos: []Evidence{txt("try again at Jun 3rd, 2026 9:00 AM."), txt("try again at Sep 2, 2026, 7:23 AM"),
			txt("Codex says: try again at September 14, 2026 10:00 PM")},
		neg: []Evidence{txt("try again at 3:32 PM"), txt("please try again at a later time"), txt("try again at Jun 3rd 9:00 AM"),
			txt("try again at may 12345")},
	},
	"codex.budget.v1": {
		pos: []Evidence{txt("Goal budget reached - the turn was stopped."), txt("■ budget reached"), txt("shared rollout token budget exhausted")},
		neg: []Evidence{txt("goal budget: 40% used"), txt("session budget set to $5"), txt("monthly budget reached for the project"),
			txt("rollout token budget: 60% left")},
	},
	"codex.not_signed_in.v1": {
		pos: []Evidence{txt("Not signed in. Please run 'codex login' to sign in with ChatGPT, then re-run 'codex cloud'.")},
		neg: []Evidence{txt("Signed in. Run codex login to switch accounts.")},
	},
	"codex.windows_sandbox.v1": {
		pos: []Evidence{txt("windows sandbox: runner error: CreateProcessAsUserW failed: 5"),
			txt("Error: helper_sandbox_lock_failed\nDetails: SetNamedSecurityInfoW sandbox dir failed: 5"),
			txt("setup refresh: failed to spawn codex-windows-sandbox-setup.exe: The requested operation requires elevation. (os error 740)")},
		neg: []Evidence{txt("running commands without a sandbox on Windows"), txt("setup refreshed; helper started")},
	},
	"sandbox.bwrap_denied.v1": {
		pos: []Evidence{txt("bwrap: setting up uid map: Permission denied")},
		neg: []Evidence{txt("bwrap: setting up uid map"), txt("open /tmp/x: permission denied")},
	},
	"sandbox.bwrap_read_only.v1": {
		pos: []Evidence{txt("bwrap: Can't create file at /home/u/.claude/x: Read-only file system")},
		neg: []Evidence{txt("write /srv/x: read-only file system")},
	},
	"sandbox.bwrap_exec_missing.v1": {
		pos: []Evidence{txt("bwrap: execvp /bin/zsh: No such file or directory")},
		neg: []Evidence{txt("bwrap: execvp /bin/zsh"), txt("open /bin/zsh: no such file or directory")},
	},
	"codex.remote_compaction_empty.v1": {
		pos: []Evidence{txt("Error running remote compact task: Fatal error: remote compaction v2 expected exactly one compaction output item, got 0 from 3 output items")},
		neg: []Evidence{txt("remote compaction v2 returned one compaction output item")},
	},
	"claude_ai.mcp_unreachable.v1": {
		pos: []Evidence{txt("Couldn't reach the MCP server. You can check the server URL and verify the server is running.")},
		neg: []Evidence{txt("reached the MCP server")},
	},
	"claude_ai.mcp_authorization.v1": {
		pos: []Evidence{txt("Authorization with the MCP server failed. You can check your credentials and permissions.")},
		neg: []Evidence{txt("authorization with the MCP server succeeded")},
	},
	"codex.sandbox_setup.v1": {
		pos: []Evidence{txt("codex-linux-sandbox was required but not provided"),
			txt(`error running landlock: Io(Os { code: 1, kind: PermissionDenied, message: "Operation not permitted" })`),
			txt("sandbox error: Landlock was not able to fully enforce all sandbox rules")},
		neg: []Evidence{txt("codex-linux-sandbox was provided"), txt("landlock is running; all sandbox rules enforced")},
	},
	"openai.api_key_env_unset.v1": {
		pos: []Evidence{{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: `"CODEX_API_KEY is not set"`}},
		neg: []Evidence{txt("OPENAI_API_KEY is set"), txt("api key is not settled")},
	},
	"sdk.base_url_unset.v1": {
		pos: []Evidence{txt("requestconfig: base url is not set"),
			txt("Error: Failed to process events: request config: base url is not set"), txt("OPENAI_BASE_URL is not set")},
		neg: []Evidence{txt("base url is set to https://api.openai.com/v1"), txt("OPENAI_BASE_URL is not settled yet")},
	},
	"openai.oauth_error.v1": {
		pos: []Evidence{txt("401 OAuth2 authentication error")},
		neg: []Evidence{txt("OAuth authentication succeeded")},
	},
	"openai.undici_dispatcher.v1": {
		pos: []Evidence{txt("Connection error. This may be caused by passing an undici dispatcher, such as ProxyAgent, that is incompatible with the fetch implementation.")},
		neg: []Evidence{txt("Connection error."), txt("undici dispatcher configured")},
	},
	"codex.capacity_unavailable.v1": {
		pos: []Evidence{txt("Flex capacity unavailable.")},
		neg: []Evidence{txt("capacity available"), txt("capacity planning is unavailable today")},
	},
	"codex.response_failed.v1": {
		pos: []Evidence{txt("stream disconnected before completion: response.failed event received")},
		neg: []Evidence{txt("response.failed"), txt("response.failed event handler")},
	},
	"codex.session_storage.v1": {
		pos: []Evidence{txt("Fatal error: Session storage missing at /home/dev/.codex/sessions. Create the directory or choose a different Codex home.")},
		neg: []Evidence{txt("session files saved"), txt("session storage ready")},
	},
	"codex.provider_policy.v1": {
		pos: []Evidence{txt("Model provider blocked by policy")},
		neg: []Evidence{txt("provider policy loaded")},
	},
	"codex.workspace_access.v1": {
		pos: []Evidence{txt("Codex is not enabled for your workspace. Contact your workspace administrator to request access to Codex.")},
		neg: []Evidence{txt("Codex is enabled for your workspace"), txt("you have access to Codex")},
	},
	"codex.credentials.v1": {
		pos: []Evidence{txt("Your ChatGPT credential expired. Reopen Codex to reconnect.")},
		neg: []Evidence{txt("credential refreshed"), txt("AWS credentials found")},
	},
	"codex.token_data_unavailable.v1": {
		pos: []Evidence{txt("Token data is not available."), txt("codex error: stream error: Token data is not available")},
		neg: []Evidence{txt("Detailed per-message token data is not available in the current build."), txt("token data is available")},
	},
	"codex.ts_network_notice.v1": {
		pos: []Evidence{txt("⚠️  Network error while contacting OpenAI. Please check your connection and try again."),
			txt("Network error while contacting OpenAI OAuth endpoint.")},
		neg: []Evidence{txt("network errors while contacting OpenAI are retried"), txt("the network was slow while contacting OpenAI")},
	},
	"codex.ts_premature_close.v1": {
		pos: []Evidence{txt("⚠️  Connection closed prematurely while waiting for the model. Please try again.")},
		neg: []Evidence{txt("connection closed after the model finished"), txt("waiting for the model")},
	},
	"openai.insufficient_permissions.v1": {
		pos: []Evidence{status(401, "You have insufficient permissions for this operation. Missing scopes: api.model.read.")},
		neg: []Evidence{txt("permissions for this operation are sufficient"), txt("no scopes missing")},
	},
	"codex.local_setup.v1": {
		pos: []Evidence{txt("LM Studio not found. Please install LM Studio from https://lmstudio.ai/"),
			txt("Error: OSS setup failed: Pull stream ended unexpectedly without success.")},
		neg: []Evidence{txt("Ollama server running"), txt("inside a trusted directory"), txt("pull stream ended with success")},
	},
	"ollama.server_busy.v1": {
		pos: []Evidence{txt(`Provider Ollama failed: {"error":"server busy, please try again.  maximum pending requests exceeded"}`),
			txt("Error: unexpected server status: llm busy - no slots available"),
			txt("ollama._types.ResponseError: no slots available after 10 retries")},
		neg: []Evidence{txt("pending requests: 3 of 512"), txt("llm busy"), txt("slots available: 4")},
	},
	"local.model_load_failed.v1": {
		pos: []Evidence{txt("llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'qwen35'"),
			txt("error: failed to load model 'models/7B/ggml-model-q4_0.gguf'"),
			txt("🥲 Failed to load the model\n\nError loading model.")},
		neg: []Evidence{txt("loading model llama3 (42%)"), txt("failed to load models list: fetch failed"), txt("model loaded")},
	},
	"codex.account_feature.v1": {
		pos: []Evidence{txt("Daybreak is not available for this account. Apply at https://openai.com/form/enterprise-trusted-access-for-cyber/.")},
		neg: []Evidence{txt("The model gpt-6 is not available for this account."), txt("available for this account")},
	},
	"openai.sdk_stream_cut.v1": {
		pos: []Evidence{txt("SyntaxError: Error reading response: malformed server-sent event JSON.")},
		neg: []Evidence{txt("server-sent event JSON parsed"), txt("stream ended")},
	},
	"copilot.capi_rate_limit_long.v1": {
		pos: []Evidence{txt("Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period. Please try again in 3 hours.")},
		neg: []Evidence{txt("Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period. Please try again in 5 seconds."),
			txt("Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period.")},
	},
	"copilot.response_length.v1": {
		pos: []Evidence{txt("Sorry, the response hit the length limit. Please rephrase your prompt.")},
		neg: []Evidence{txt("the response length limit is 4096 tokens")},
	},
	"copilot.stream_terminated.v1": {
		pos: []Evidence{txt("Sorry, your request failed. Please try again.\n\nReason: Server error. Stream terminated"),
			txt("Reason: Server error. Stream terminated")},
		neg: []Evidence{txt("Stream terminated by user"), txt("Server error: 400 stream options are not supported")},
	},
	"copilot.request_too_large.v1": {
		pos: []Evidence{txt(`[error] Request Failed: 413 {"statusCode":413,"message":"request entity too large"}`)},
		neg: []Evidence{txt("<html><head><title>413 Request Entity Too Large</title></head><body><center>nginx</center></body></html>"),
			txt(`Request Failed: 400 {"error":{"message":"The requested model is not supported."}}`)},
	},
	"dashscope.invalid_parameter.v1": {
		pos: []Evidence{txt(`Error calling LLM: litellm.BadRequestError: DashscopeException - <400> InternalError.Algo.InvalidParameter: The "function.arguments" parameter of the code model must be in JSON format.`),
			txt(`{"type":"error.provider_unavailable","httpStatus":502,"message":"Upstream error from Alibaba: <400> InternalError.Algo.InvalidParameter: The tool call is not supported."}`),
			txt(`{"code":"InvalidParameter","message":"This model only support stream mode, please enable the stream parameter to access the model."}`)},
		neg: []Evidence{txt(`{"code":"InvalidParameter","message":"Model not exist."}`),
			txt("400 <400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]"),
			txt("the request had an invalid parameter"), txt(`{"code":"InvalidApiKey","message":"Invalid API-key provided."}`)},
	},
}

func TestEveryRuleHasFixtures(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	for _, r := range ruleTable {
		ids[r.id] = true
		f, ok := ruleFixtures[r.id]
		// Positives may come from the catalogue alone (TestCatalogue fails
		// when no row is decided by the rule); near misses must be written.
		if !ok || len(f.neg) == 0 {
			t.Errorf("rule %s needs negative fixtures", r.id)
		}
	}
	for id := range ruleFixtures {
		if !ids[id] {
			t.Errorf("fixtures for unknown rule %s", id)
		}
	}
}

func TestRuleFixtures(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for i := range ruleTable {
		r := &ruleTable[i]
		f := ruleFixtures[r.id]
		t.Run(r.id, func(t *testing.T) {
			t.Parallel()
			for _, ev := range f.pos {
				c := Classify(ev, now)
				if c.RuleID != r.id || c.Code != r.code || c.Class != r.class {
					t.Errorf("positive %+v\n  got %s (%s/%s), want %s", ev, c.RuleID, c.Code, c.Class, r.id)
				}
			}
			for _, ev := range f.neg {
				if pos := r.eval(newScan(&ev, now)); pos >= 0 {
					t.Errorf("negative %+v matched at %d", ev, pos)
				}
			}
		})
	}
}

func TestOccurrences(t *testing.T) {
	t.Parallel()
	var got []int
	for i := range occurrences("aXaXa", "a", 2) {
		got = append(got, i)
	}
	if !slices.Equal(got, []int{0, 2}) {
		t.Errorf("occurrences with a limit of 2 = %v", got)
	}
	got = got[:0]
	for i := range occurrences("aaaa", "aa", 0) {
		got = append(got, i)
	}
	if !slices.Equal(got, []int{0, 2}) {
		t.Errorf("occurrences do not overlap: %v", got)
	}
}
