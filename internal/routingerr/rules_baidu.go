package routingerr

// Baidu's platforms (千帆 ModelBuilder / AppBuilder, and the AI Open
// Platform's legacy {"error_code": N, "error_msg": …} bodies), which relays
// and Chinese agents sit in front of. The codes say which limit was hit.
var baiduRules = []rule{
	// Per-second limits: the legacy 18 "Open api qps request limit reached";
	// AppBuilder's 429 RATE_LIMIT_TOTAL_QPS, RATE_LIMIT_SEARCH_TOTAL_QPS,
	// RATE_LIMIT_SEARCH_QPS ("… QPS limit exceeded", 降低调用频率).
	{id: "baidu.qps_limit.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: []string{"open api qps request limit reached", "rate_limit_total_qps", "rate_limit_search_total_qps", "rate_limit_search_qps"}},
	// 429 QUOTA_USER_DAILY_REQUEST: the day's requests are used up.
	{id: "baidu.daily_quota.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		any: []string{"quota_user_daily_request", "daily request quota per user"}},
	// 429 QUOTA_USER_DAILY_FREE: the free calls are used up and pay-as-you-go
	// is not enabled (未开通后付费功能) — a setting, not a wait.
	{id: "baidu.free_quota_used.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{"quota_user_daily_free", "daily free quota per user"}},
	// ModelBuilder's 400 tokens_too_long / characters_too_long: the input is
	// over the model's limit.
	{id: "baidu.input_too_long.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		any: []string{`"tokens_too_long"`, `"characters_too_long"`, "'tokens_too_long'", "'characters_too_long'",
			// The messages without their codes.
			"max input characters is"}},
}
