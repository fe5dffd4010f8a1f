package routingerr

// Fixtures for the word-family rules (rules_families.go): positives they
// must win on through the whole table, near misses they must not match.
func init() {
	for id, f := range familyFixtures {
		ruleFixtures[id] = f
	}
}

var familyFixtures = map[string]struct{ pos, neg []Evidence }{
	"generic.retry_notice.v2": {
		pos: []Evidence{
			txt("Retrying langchain_openai.chat_models.base._create_retry_decorator.<locals>._completion_with_retry in 8.0 seconds as it raised APIConnectionError: Connection error.."),
			txt("⚠️  API call failed (attempt 2/3): APIConnectionError\n   📝 Error: Connection error."),
			txt("Request failed with status 503, retrying (1/3)"), txt("retry 2/5 after error: connection reset by peer"),
			txt("[retry 1/3] 503 Service Unavailable"), txt("Will retry in 10 seconds..."), txt("Retrying... (1/3)"),
			txt("⟳ Retry 3/3 after HTTP 502, waiting 1s"),
			txt("529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\nRetry attempt 2\nRetrying now..."),
			txt("http2: server sent GOAWAY and closed the connection; LastStreamID=139, ErrCode=NO_ERROR\nretrying fetch QmX after a second..."),
			txt("Roo tried to use an unknown tool: \"foo\". Retrying..."), txt("Connection lost. Retrying…"),
			txt("The server is overloaded or not ready yet.\nRetry in 2.0 seconds."),
			txt("Retrying after rate limit · attempt 2/3 · 4s"),
			txt("Retrying LLM API call (attempt 1/3) after 1000ms delay. Error: 429 Rate limit exceeded"),
			txt(`[DEBUG] retrying request: request="POST https://api.openai.com/v1/chat/completions (status: 503)" timeout=4s remaining=2`),
			txt("INFO goose::providers::retry: Backing off for 1.634s before retry"),
			txt("Model returned an empty response; retrying"),
			txt("Network retry attempt 2/3 for gemini-2.5-pro. Delay: 2000ms. Error type: ECONNRESET"),
			txt("Loop detection has been disabled for this session. Retrying request..."),
			txt("DEBUG:httpx_retries.transport:_retry_operation retrying request=<Request('POST', 'https://api.openai.com/v1/chat/completions')> response=<Response [429 Too Many Requests]> retry=<Retry(total=3, attempts_made=0)>\nDEBUG:httpx_retries.retry:sleep seconds=1.5"),
			txt("Retrying LM query: attempt 1 (slept for 10.53s) due to RateLimitError: litellm.RateLimitError: rate limit"),
			txt("DEBUG:aiohttp_retry:Retrying after response code: 429"), txt("DEBUG:aiohttp_retry:Attempt 2 out of 3"),
			txt("Error: 429 Too Many Requests\nAttempt 2 failed. 4 retries left. 1 retries consumed."),
			txt("info: System.ClientModel.Primitives.ClientRetryPolicy[10]\n      Request [5d8a3f0e] attempt number 2 took 01.3s"),
			txt("DEBUG:google.api_core.retry:Retrying due to 429 Resource has been exhausted (e.g. check quota)., sleeping 2.6s ..."),
			txt("litellm.acompletion(model=openai/gpt-4o) Exception litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached\n00:07:32 - LiteLLM Router:INFO: router.py:3557 - Retrying request with num_retries: 3"),
			txt(`API error (attempt 3/11): 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		},
		neg: []Evidence{
			txt(`API error (attempt 1/11): 404 {"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`),
			txt("Retrying after rate limit · attempt 3/3 · 4s\nError code: 429 - rate limit exceeded"),
			txt("Retrying LLM API call (attempt 3/3) after 4000ms delay. Error: 429\nLLM API call failed after 4 attempts. Last error: 429"),
			txt(`msg="retrying request" request="POST https://api.openai.com/v1/chat/completions (status: 503)" timeout=4s remaining=1` + "\nPOST https://api.openai.com/v1/chat/completions giving up after 2 attempt(s): 503"),
			txt("Retrying openai.create in 4.0 seconds as it raised RateLimitError\nError: RateLimitError: Error code: 429"),
			{ExitStatus: "exit status 1", Err: "Retrying fn in 2.0 seconds as it raised TimeoutError"},
			txt("API call failed (attempt 3/3): RateLimitError"),
			txt("Request failed after retrying 3 times in 30 seconds"),
			txt("Please retry in 39.8s."), txt("Rate limit exceeded.\nRetry in 20 seconds or contact support."),
			txt("stopped retrying in 5 minutes as it kept failing"),
			txt("Error: All providers failed. Attempts:\ngemini attempt 1/3: Gemini API error (400 Bad Request): API key not valid."),
			txt("Overloaded · Retrying in 24s · attempt 10/10\n   API Error: 529 Overloaded."),
			txt("INFO goose::providers::retry: Backing off for 1.912s before retry\nError: Rate limit exceeded: 429 Too Many Requests"),
			txt("Model returned an empty response; retrying\nError: Invalid response from model: empty response"),
			txt("DEBUG:httpx_retries.transport:_retry_operation retrying request=<Request('POST', 'https://x/v1')> response=<Response [503 Service Unavailable]> retry=<Retry(total=3, attempts_made=2)>\nhttpx.HTTPStatusError: Server error '503 Service Unavailable' for url 'https://x/v1'"),
			txt("Retrying request failed: 500 Internal Server Error"), txt("Retrying request."),
			txt("Retrying LM query: attempt 1 (slept for 1.00s) due to Timeout\nlitellm.Timeout: APITimeoutError - Request timed out"),
			txt("Retrying: attempt 2 (slept for a while, then gave up)"),
			txt("DEBUG:aiohttp_retry:Attempt 1 out of 3"), txt("Attempt 2 out of 3 was the charm"),
			txt("Retrying after response code: 429\nRetryError: 429 final"),
			txt("Attempt 3 failed. There are 0 retries left."), txt("Attempt 3 failed. 0 retries left. 2 retries consumed.\nError: 429 Too Many Requests"),
			txt("Request [abc] attempt number 1 took too long"), txt("the attempt number 2 took 3s"),
			txt("Request [abc] attempt number 1 took 00.4s\nSystem.ClientModel.ClientResultException: Service request failed.\nStatus: 429 (Too Many Requests)"),
			txt("Retrying due to a bug, sleeping on it"), txt("Retrying due to 503, sleeping 1.3s is not enough"),
			txt("Retrying due to 503 Service Unavailable, sleeping 1.3s ...\ngoogle.api_core.exceptions.RetryError: Timeout of 120.0s exceeded, last exception: 503 Service Unavailable"),
			txt("Retrying request with num_retries: 0"), txt("Retrying request with num_retries: 3 made no difference"),
			txt("Retrying request with num_retries: 2\nlitellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached. LiteLLM Retried: 2 times, LiteLLM Max Retries: 2"),
			txt("Backing off for now before retrying the deploy"), txt("We are backing off for 2 weeks"),
			txt("We are backing off the rollout for now"), txt("Backing off chat(...) for good"),
			txt("Please retry in 39.8s."), txt("You can retry your request, or contact us through our help center"),
			txt("All retries failed, retrying now is pointless"), txt("It keeps retrying."), txt("Gave up retrying..."),
			txt("Request failed due to a transient API error. Retrying....\n\nFailed to get response from the AI model; retried 5 times."), txt("Retrying in a few seconds\nError: 503 Service Unavailable"),
			txt("retry 5/3 items"), txt("[retry 3/3] 503 Service Unavailable"), txt("retrying 0/3"), txt("Retrying 1/2 of the files\nError: 401 Unauthorized"),
			// A Claude Code paste that lost its first "  ⎿  ": the "⎿"
			// line two blanks deep is the next message, and it is final.
			txt("API Error (Request timed out.) · Retrying in 1 seconds… (attempt 1/10)\n  ⎿  API Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"OAuth token has expired.\"}} · Please run /login"),
		},
	},
	"generic.context_family.v1": {
		pos: []Evidence{txt("Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"), txt("Error: Input length 6491 exceeds context length 1500"),
			txt("Prompt tokens too long for this model"), txt("The request exceeds the model's maximum input length.")},
		neg: []Evidence{txt("the context window is 200k tokens"), txt("Rate limit exceeded: 30000 input tokens per minute; maximum context 128k"),
			txt("context length: 4096"), txt("prompt tokens: 1024"), txt("Rate limit exceeded: 9000 prompt tokens per minute")},
	},
	"local.insufficient_memory.v1": {
		pos: []Evidence{status(500, `{"error":"model requires more system memory (2.7 GiB) than is available (2.3 GiB)"}`)},
		neg: []Evidence{txt("the memory tool is not enabled"), txt("system memory: 16 GiB")},
	},
	"generic.funds_family.v2": {
		pos: []Evidence{txt("preConsumeQuota failed: {Error:{Message:token quota is not enough Type:new_api_error Code:pre_consume_token_quota_failed} StatusCode:403}"),
			txt("cause: 用户额度不足, 剩余额度: ＄-0.000002"),
			txt("There is an issue with the billing of your organization."), txt("Error: billing hard limit reached"), txt("Billing error"),
			txt("Error: billing account not active"),
			txt("You've reached your monthly spend limit."), txt("Credit limit exceeded for this key")},
		neg: []Evidence{txt("the quota is enough for today"), txt("insufficient permissions to read the balance sheet file, see the quota docs later on this page"),
			txt("the billing page is under settings"), status(402, "There is an issue with your account's billing."),
			txt(`{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`),
			txt("You have reached your spending limit. Access resets on July 1."), txt("the spend limit is $100")},
	},
	"generic.model_family.v1": {
		pos: []Evidence{txt(`{"error":"model 'tinyllama' not found, try pulling it first"}`), txt("You don't have access to this model or the model name is invalid"),
			txt("400 The model `gpt-4o` is not allowed with your current plan"), txt("You are not allowed to use model claude-opus-4"),
			txt("The model `gpt-3.5-turbo-0301` has been deprecated."), txt("Your organization does not have access to this model."),
			txt("This model has been retired."), txt("The model name is not valid."), txt("You are not authorized to use this model.")},
		neg: []Evidence{txt("Unsupported parameter: 'temperature' is not supported with this model."),
			txt("The model is currently overloaded, try again later"), txt("model output is invalid json"), txt("deployment finished"),
			txt("The model is not allowed to invent a service, so prices are re-read."), txt("'temperature' is not allowed with this model")},
	},
	"generic.rate_limit_family.v2": {
		pos: []Evidence{txt("Error: API error from mistral (model: mistral-vibe-cli-latest): Ratelimit exceeded. Please wait a moment before trying again."),
			txt("Search QPS limit exceeded"), txt("Error: concurrency limit exceeded for this key")},
		neg: []Evidence{txt("x-ratelimit-remaining-requests: 7, exceeded nothing"), txt("Approaching the rate limit: 90% reached"),
			txt("the rate limit is 60 requests per minute"), txt("the QPS limit is 50")},
	},
	"generic.load_family.v1": {
		pos: []Evidence{txt("litellm.RateLimitError: RateLimitError: CerebrasException - We're experiencing high traffic right now! Please try again soon.")},
		neg: []Evidence{txt("the payload load is high"), txt("traffic was high yesterday in the report"), txt("download the high resolution file")},
	},
	"generic.access_denied_family.v1": {
		pos: []Evidence{txt(`HTTP 403: {"code":"permission-denied","error":"Access to the chat endpoint is denied."}`),
			txt("Permission denied: Consumer 'projects/123' has been suspended."),
			txt("Your account has been disabled."), txt("This account is deactivated")},
		neg: []Evidence{txt("access temporarily denied: too many requests"), txt("access token revoked"), txt("read access granted"),
			txt("consumer 'orders' registered"), txt("account is temporarily suspended, try again later"), txt("account has been created")},
	},
	"generic.max_tokens_param.v1": {
		pos: []Evidence{txt("400 max_tokens must be less than or equal to 16384, the maximum value for max_tokens is less than the context_window for this model")},
		neg: []Evidence{txt("input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000"), txt("max_tokens: 4096")},
	},
	"node.undici_terminated.v1": {
		pos: []Evidence{txt("[error] (chat_stream_handlers) Error calling LLM: TypeError: terminated\n    at Fetch.onAborted (node:internal/deps/undici/undici:11124:53)")},
		neg: []Evidence{txt("the process terminated normally"), txt("TypeError: terminal is not a function")},
	},
	"generic.server_error_code.v1": {
		pos: []Evidence{txt("completion request failed. request_id: 1, code: internal_server_error, message: boom")},
		neg: []Evidence{txt("not_internal_server_error_count: 0"), txt("internal server errors are retried")},
	},
}
