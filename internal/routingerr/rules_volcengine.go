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
}
