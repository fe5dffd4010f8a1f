package routingerr

// LobeChat (lobehub/lobe-chat) shows a failed request as its own sentence
// for the HTTP status, from its locale files (src/locales/default/error.ts,
// "response": {500: "很抱歉，服务器似乎遇到了一些困难…", 504: "很抱歉，服务器
// 没有等到上游服务器的回应…", …}); a Chinese user pastes that sentence, with
// or without the provider's body under it, and relays' FAQ pages quote it.
// Only the statuses whose reading is plain are read: the server's trouble,
// its unavailability, its rate limit, and a key or login refused.

var lobechatRules = []rule{
	// 500 "服务器似乎遇到了一些困难", 502 "服务器似乎迷失了方向", 504 "服务器
	// 没有等到上游服务器的回应": the server or the gateway before it failed
	// this time; the request may succeed again. Catalogue lobechat-zh-50x.
	{id: "lobechat.server_error_zh.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.75,
		any: []string{"服务器似乎遇到了一些困难", "服务器似乎迷失了方向", "服务器没有等到上游服务器的回应"}},
	// 503 "服务器当前无法处理您的请求，可能是由于过载或正在进行维护".
	{id: "lobechat.unavailable_zh.v1", band: bandTransient, code: "unavailable", class: ClassTransient, conf: 0.75,
		all: []string{"服务器当前无法处理您的请求", "过载或正在进行维护"}},
	// 429 "您的请求太多，服务器有点累了，请稍后再试".
	{id: "lobechat.rate_limited_zh.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.75,
		any: []string{"您的请求太多，服务器有点累了"}},
	// 401 "服务器拒绝了您的请求，可能是因为您的权限不足或未提供有效的身份验证";
	// InvalidProviderAPIKey "{{provider}} API Key 不正确或为空", NoOpenAIAPIKey
	// "OpenAI API Key 不正确或为空": a key to set, not a wait.
	{id: "lobechat.auth_zh.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		any: []string{"未提供有效的身份验证", "api key 不正确或为空"}},
}
