package routingerr

// Volcengine Ark (火山方舟, Doubao models), which Chinese users put behind
// Claude Code and the OpenAI-compatible agents: its public error codes
// (volcengine.com/docs/82379/1299023) come in the OpenAI shape,
// {"error":{"code":"AccountOverdueError","message":…,"type":"Forbidden"}}, and
// relays often drop the status. The code says what the status would.
var volcengineRules = []rule{
	// 403 AccountOverdueError, "The request failed because your account has
	// an overdue balance." (当前账号欠费): the account must be topped up.
	{id: "volcengine.account_overdue.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.9,
		any: []string{"accountoverdueerror", "your account has an overdue balance", "当前账号欠费"}},
	// 404 ModelNotOpen, "Your account %s has not activated the model %s.":
	// the model must be activated in the console first.
	{id: "volcengine.model_not_open.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{"modelnotopen", "has not activated the model"}},
	// 400 InvalidEndpoint.ClosedEndpoint, "The request targeted an endpoint
	// that is currently closed or temporarily unavailable." (推理接入点处于已被
	// 关闭或暂时不可用, 请稍后重试): the endpoint is away, not the request
	// wrong; its 400 says nothing about the body.
	{id: "volcengine.closed_endpoint.v1", band: bandTransient, code: "unavailable", class: ClassTransient, conf: 0.75,
		any: []string{"invalidendpoint.closedendpoint", "endpoint that is currently closed or temporarily unavailable",
			"推理接入点处于已被关闭或暂时不可用"}},
	// 400 OutofContextError, "Total tokens of image and text exceed max
	// message tokens." (the text and image tokens together are over the
	// model's context length): the same request is over it again.
	{id: "volcengine.out_of_context.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		any: []string{"outofcontexterror", "exceed max message tokens"}},
	// 429 TooManyRequests, a per-minute limit: the endpoint's
	// RateLimitExceeded.EndpointRPMExceeded / EndpointTPMExceeded ("The
	// Requests Per Minute (RPM) limit of the associated endpoint for your
	// account has been exceeded.", 请求所关联的推理接入点已超过 RPM 限制,
	// 请稍后重试) and the account's per-model ModelAccountRpmRateLimitExceeded
	// / ModelAccountTpmRateLimitExceeded ("TPM (Tokens Per Minute) limit of
	// the model %s is exceeded. Please try again later"), which relays pass
	// on without the code or the status. The minute passes; a retry after it
	// is served.
	// "exceeded" is required: a limit stated ("TPM (Tokens Per Minute)
	// limit of the model …: 800000") is no refusal.
	{id: "volcengine.per_minute_limit.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		all: []string{"exceeded"},
		any: []string{"endpointrpmexceeded", "endpointtpmexceeded", "modelaccountrpmratelimitexceeded", "modelaccounttpmratelimitexceeded",
			"(rpm) limit of the associated endpoint", "(tpm) limit of the associated endpoint",
			"(requests per minute) limit of the model", "(tokens per minute) limit of the model"}},
}
