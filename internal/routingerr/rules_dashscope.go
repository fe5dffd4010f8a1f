package routingerr

import "strings"

// Alibaba Model Studio (DashScope, Bailian) error codes
// (help.aliyun.com/zh/model-studio/error-code): the body's "code" (and, in
// the OpenAI-compatible mode, "type") names the failure, in any wrapper:
// {"code":"Arrearage","message":"Access denied, please make sure your
// account is in good standing."}, a Python repr {'code': 'Arrearage', …}.
// The HTTP status around them (400 for an overdue bill, 429 for every
// throttle) says less than the code.

// dashscopeCode lists the forms a code appears in.
func dashscopeCode(codes ...string) []string {
	var out []string
	for _, c := range codes {
		c = strings.ToLower(c)
		out = append(out, `"code":"`+c+`"`, `"code": "`+c+`"`, `'code': '`+c+`'`, `"type":"`+c+`"`, `"type": "`+c+`"`)
	}
	return out
}

var dashscopeBillingMessages = []string{"prepaid bill is overdue", "postpaid bill is overdue", "commodity has not purchased",
	"free tier of the model has been exhausted", "make sure your account is in good standing"}

var dashscopeRules = []rule{
	// The account cannot pay: an overdue bill (Arrearage,
	// PrepaidBillOverdue, PostpaidBillOverdue), a model not bought
	// (CommodityNotPurchased), a free tier used up with "use free tier
	// only" set (AllocationQuota.FreeTierOnly). Catalogue alibaba.jsonl
	// dashscope-*-billing.
	{id: "dashscope.billing.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.9,
		any: dashscopeCode("Arrearage", "PrepaidBillOverdue", "PostpaidBillOverdue", "CommodityNotPurchased",
			"AllocationQuota.FreeTierOnly")},
	// The same errors' messages, for a relay that keeps only the message
	// (opencode, the AI SDK, openai-node's "400 <message>"), as an error's
	// own text rather than words in prose.
	{id: "dashscope.billing_message.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.8,
		gate:  dashscopeBillingMessages,
		check: checkErrorText,
		match: func(s *scan) int {
			if i := s.errorText(dashscopeBillingMessages...); i >= 0 {
				return i
			}
			// FreeTierOnly's message goes on to say what to do, so it is no
			// prose about a free tier: "… has been exhausted. If you wish to
			// continue access the model on a paid basis, please disable …".
			if i := strings.Index(s.low, "free tier of the model has been exhausted"); i >= 0 &&
				strings.Contains(lineOf(s.low, i), "on a paid basis") {
				return i
			}
			return -1
		}},
	// InvalidParameter (400): "Use the error message to check the specified
	// parameters, request format, and API requirements" (the error-code
	// page): the request itself is wrong — a tool call's arguments that are
	// not JSON, incremental_output or enable_thinking set against what the
	// model supports, a required parameter missing — and is rejected again
	// on a replay, whatever status a relay wraps it in (OpenRouter's 502
	// "error.provider_unavailable" around "Upstream error from Alibaba:
	// <400> InternalError.Algo.InvalidParameter: …"). In the code's own
	// forms only: the native "code":"InvalidParameter" and the
	// compatible-mode "InternalError.Algo.InvalidParameter". Its messages
	// that other rules read better are left to them: "Range of input
	// length" (generic.context_overflow, later in the table), inappropriate
	// content (generic.content_policy), tool_calls without tool messages
	// (resume, earlier); "Model not exist." is a model to change. Catalogue
	// alibaba.jsonl dashscope-invalid-parameter-*.
	{id: "dashscope.invalid_parameter.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any:  append(dashscopeCode("InvalidParameter"), "internalerror.algo.invalidparameter"),
		none: []string{"model not exist", "range of input length", "inappropriate content"}},
	// InvalidApiKey: "Invalid API-key provided." (401).
	{id: "dashscope.invalid_api_key.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: append(dashscopeCode("InvalidApiKey"), "invalid api-key provided")},
	// The throttles, all 429 and all cleared by waiting: Throttling
	// ("Requests throttling triggered."), Throttling.RateQuota (the RPM),
	// Throttling.BurstRate (a ramp too steep), Throttling.AllocationQuota
	// (the TPM allocation).
	{id: "dashscope.throttling.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: append(dashscopeCode("Throttling", "Throttling.RateQuota", "Throttling.BurstRate", "Throttling.AllocationQuota"),
			"requests throttling triggered", "request rate increased too quickly",
			"allocated quota exceeded, please increase your quota limit")},
	// Qwen Code's own OAuth (packages/core/src/qwen/qwenOAuth2.ts): the
	// device flow failing ("Device authorization failed: …", "Device token
	// poll failed: access_denied - …"), the refresh token refused ("Refresh
	// token expired or invalid. Please use '/auth' to re-authenticate.",
	// "Qwen OAuth credentials expired. …", "No refresh token available").
	{id: "qwen.oauth_failed.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"device authorization failed", "device token poll failed", "refresh token expired or invalid",
			"oauth credentials expired", "no refresh token available",
			// The auth dialog's own endings (i18n/locales/en.js): "Qwen OAuth
			// authentication timed out. Please try again.", "… cancelled.",
			// "Authentication timed out. Please try again.", "OpenAI API key is
			// required to use OpenAI authentication."
			"authentication timed out", "oauth authentication cancelled", "api key is required to use"}},
	// A quota that names its own reset (Bailian's token plan: "Your
	// token-plan 1-week quota has been exhausted. The quota will reset at
	// 07-27 09:25:00 UTC."; Qwen Code surfaces it as "Quota exhausted: …
	// Please retry after the reset time …", retry.ts isQuotaExhaustedError):
	// the words Qwen Code itself tests, a quota exhausted or exceeded that
	// will reset.
	{id: "qwen.quota_reset.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.8,
		gate:  []string{"will reset", "reset at"},
		none:  []string{"per minute", "perminute", "per_minute"},
		check: "the text also says a quota was exhausted or exceeded",
		match: func(s *scan) int {
			q := strings.Index(s.low, "quota")
			if q < 0 || !(strings.Contains(s.low, "exhausted") || strings.Contains(s.low, "exceeded")) {
				return -1
			}
			return q
		}},
}
