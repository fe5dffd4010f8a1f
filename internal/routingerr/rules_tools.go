package routingerr

// Errors of the other coding tools and gateways, read from their sources
// (testdata/catalogue/opencode.jsonl, kiro.jsonl).
var toolRules = []rule{
	// OpenCode Zen's limit errors (opencode, session/retry.ts:
	// FreeUsageLimitError is shown as "Free limit reached" with "Subscribe
	// to OpenCode Go…"; GoUsageLimitError as "… usage limit reached. It
	// will reset in …"): the free or Go allowance, until it resets.
	{id: "opencode.zen_usage_limit.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		any: []string{"freeusagelimiterror", "gousagelimiterror", "subscribe to opencode go"}},
	// Zen's FreeTierError: "OpenCode's free tier can only be used from
	// within OpenCode" (a call that is not OpenCode's own).
	{id: "opencode.zen_free_tier_only.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.9,
		any: []string{"free tier can only be used from within opencode", "freetiererror"}},

	// Kiro CLI's stream errors (its agent crate, StreamErrorKind's Display).
	{id: "kiro.throttled.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.85,
		any: []string{"request was throttled by the service"}},
	{id: "kiro.service_failure.v1", band: bandTransient, code: "server_error", class: ClassTransient, conf: 0.8,
		any: []string{"service failed to process the request"}},
	{id: "kiro.stream_timeout.v1", band: bandTransport, code: "network", class: ClassTransient, conf: 0.8,
		any: []string{"stream timed out receiving the response"}},
	{id: "kiro.context_overflow.v1", band: bandTerminal, code: "context_overflow", class: ClassTerminal, conf: 0.85,
		any: []string{"the context window overflowed"}},
	// The Kiro service's own busy message ("The model is temporarily busy.
	// Please try again in a moment. (epRequestId: …)").
	{id: "kiro.model_busy.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.8,
		any: []string{"model is temporarily busy"}},
}
