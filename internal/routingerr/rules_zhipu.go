package routingerr

// Zhipu (bigmodel.cn) and Z.ai business codes, the inner half of their
// errors (docs.bigmodel.cn/cn/api/api-code, docs.z.ai/api-reference/api-code):
// {"error":{"code":"1302","message":"…"}} in the body, "[1302][…]" in
// Claude Code's API Error line. The HTTP status around them is 429 for most
// of them, a balance as much as a rate, so the code decides, not the status.
// Cloudflare's own 10xx codes share the digits: only 11xx–13xx are read.

// zhipuCode lists the forms a code appears in, the body's quotes typographic
// too where a forum rendered the paste ({“error”:{“code”:“1214”,…}}, see
// curlyQuoteAt).
func zhipuCode(codes ...string) []string {
	var out []string
	for _, c := range codes {
		out = append(out, `"code":"`+c+`"`, `"code":`+c+`,`, `"code":`+c+`}`, "["+c+"]", "“code”:“"+c+"”")
	}
	return out
}

var zhipuRules = []rule{
	// 1113 "您的账户已欠费" / "Insufficient balance or no resource package.
	// Please recharge."; 1309 the GLM Coding Plan expired.
	{id: "zhipu.billing.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.9,
		// And the words without the code (a wrapper that prints only the
		// message): a package expired, "套餐已到期"; Z.ai's English 1113
		// "Your account is in arrears, please recharge and try again" and
		// its zh "您的账户已欠费".
		any: append(zhipuCode("1113", "1309"), "套餐已到期", "your account is in arrears", "您的账户已欠费")},
	// 1110 the account is inactive, 1111 it does not exist, 1112 it is
	// locked ("当前账号已被锁定"), 1120 it cannot be accessed: support, not a
	// retry, must act.
	{id: "zhipu.account.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		// Without the code: an account locked (账号/账户已被锁定) or
		// inactive (处于非活动状态); Z.ai's English 1110 "Your account is
		// currently inactive. …", 1112 "Your account has been locked, please
		// contact customer service to unlock" and 1121 "Account has irregular
		// activities and has been locked".
		any: append(zhipuCode("1110", "1111", "1112", "1120"), "账号已被锁定", "账户已被锁定", "处于非活动状态",
			"your account is currently inactive", "your account has been locked", "irregular activities and has been locked")},
	// 1001 "Authentication parameter not received in Header, unable to
	// authenticate" (Header中未收到Authentication参数，无法进行身份验证): the
	// key was not sent. The 10xx codes are Cloudflare's too, so only the
	// words are read, not the code.
	{id: "zhipu.auth_header_missing.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.85,
		any: []string{"authentication parameter not received in header", "header中未收到authentication参数"}},
	// 1302 too many concurrent requests, 1303 too frequent; the account's
	// rate, cleared by waiting.
	{id: "zhipu.rate_limited.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		// Without the code: concurrency or frequency too high (并发数过高,
		// 频率过高), whatever precedes it.
		// Z.ai's English messages, which relays and agents print without
		// the code ("High concurrency usage of this API, please reduce
		// concurrency …", "High frequency usage of this API, …").
		any: append(zhipuCode("1302", "1303"), "并发数过高", "频率过高",
			"high concurrency usage of this api", "high frequency usage of this api")},
	// 1305 the API's traffic limit fired, 1312 "该模型当前访问量过大": the
	// model is busy, not the account.
	{id: "zhipu.overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.85,
		// Without the code: a traffic limit triggered (触发流量限制), the
		// model's traffic too high (访问量过大).
		any: append(zhipuCode("1305", "1312"), "触发流量限制", "访问量过大")},
	// 1261 "Prompt exceeds max length" (bigmodel.cn: "Prompt 超长"): the
	// same prompt is refused again.
	{id: "zhipu.prompt_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.9,
		any: zhipuCode("1261")},
	// 1210 "API 调用参数有误，请检查文档" / "Incorrect API call parameters,
	// please check the documentation"; 1213 a parameter not received, 1214
	// "${field} 参数非法。请检查文档" / "Invalid ${field} parameter", 1215 two
	// parameters that cannot be set together: the request body is wrong,
	// and the same body is refused again.
	{id: "zhipu.invalid_params.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.85,
		// Without the code: the 1210 and 1214 wordings, as relays and
		// clients print the message alone.
		any: append(zhipuCode("1210", "1213", "1214", "1215"), "api 调用参数有误", "参数非法。请检查文档",
			"incorrect api call parameters, please check the documentation")},
	// 1301 "System detected potentially unsafe or sensitive content in
	// input or generation": the content filter refuses this prompt.
	{id: "zhipu.content_filter.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.9,
		any: zhipuCode("1301")},
	// 1311 "Your current subscription plan does not yet include access to
	// GLM-5.3-Highspeed" / "当前订阅套餐暂未开放…权限", under a 429 or a 403:
	// another model or another plan, not a wait.
	{id: "zhipu.model_not_in_plan.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.9,
		// Without the code: the plan does not include the model yet
		// ("does not yet include access to GLM-…").
		any: append(zhipuCode("1311"), "plan does not yet include access to", "plan does not include access to")},
	// 1313 "Your account's current usage pattern does not comply with the
	// Fair Usage Policy, and your request frequency has been limited … To
	// restore access, please submit a request.": a human must ask.
	{id: "zhipu.fair_use.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: append(zhipuCode("1313"), "does not comply with the fair usage policy")},
	// 1304 the API's daily call limit, 1308 "Usage limit reached for 5
	// hour. Your limit will reset at …", 1310 the weekly / monthly limit.
	{id: "zhipu.quota.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.9,
		// Without the code: today's call limit reached (已达今日…限额), in
		// English "Daily call limit for this API reached."
		any: append(zhipuCode("1304", "1308", "1310"), "已达今日", "daily call limit for this api")},
}
