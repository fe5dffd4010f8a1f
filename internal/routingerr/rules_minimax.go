package routingerr

// MiniMax (platform.minimax.io, api.minimaxi.com) business codes, from the
// error-code table (platform.minimax.io/docs/api-reference/errorcode):
// the Anthropic- and OpenAI-compatible endpoints put the code after the
// message, "invalid params, invalid chat setting (2013)", inside whatever
// body the endpoint wraps it in ("type":"bad_request_error", "api_error",
// litellm's "MinimaxException - {…}"); the native endpoints put it in
// "base_resp":{"status_code":2013,"status_msg":"invalid params, …"}.

var minimaxRules = []rule{
	// 2013 "invalid params": "Please check the request parameters." The
	// request itself is wrong — a message role the model does not take, a
	// tool without parameters, a tool call whose arguments are not JSON —
	// and a replay sends it again, whatever the status around it (a
	// library may call it a connection error: litellm's
	// "APIConnectionError: MinimaxException - {…(2013)…}"). "unknown model"
	// is left to the model rules: a model to change, not a request to fix.
	// Catalogue minimax.jsonl minimax-2013-*.
	{id: "minimax.invalid_params.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		all:  []string{"invalid params"},
		any:  []string{"(2013)", `"status_code":2013`, `"status_code": 2013`},
		none: []string{"unknown model"}},
}
