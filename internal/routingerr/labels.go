package routingerr

// Human copy for notices and banners. Codes are the corpus families.

var familyLabels = map[string]string{
	"overloaded":       "Provider overloaded",
	"capacity":         "Model at capacity",
	"unavailable":      "Provider unavailable",
	"server_error":     "Provider error",
	"network":          "Connection to the provider dropped",
	"transport_lost":   "Connection lost",
	"rate_limited":     "Rate limited by the provider",
	"in_progress":      "Agent is retrying",
	"quota":            "Usage limit reached",
	"billing":          "Billing problem",
	"auth":             "Not signed in",
	"permission":       "Permission denied",
	"model":            "Model not available",
	"config":           "Setup problem",
	"context_overflow": "Prompt too long",
	"invalid_request":  "Request rejected",
	"resume_corrupted": "Conversation history broken",
	"cancelled":        "Cancelled",
	"turn_limit":       "Turn or budget limit reached",
	"unknown":          "Agent error",
}

// FamilyLabel is a short title for a code, e.g. "Provider overloaded".
func FamilyLabel(code string) string {
	if l, ok := familyLabels[code]; ok {
		return l
	}
	return "Agent error"
}

var descriptions = map[string]string{
	"overloaded":       "The provider is overloaded right now.",
	"capacity":         "The model is at capacity right now.",
	"unavailable":      "The provider is temporarily unavailable.",
	"server_error":     "The provider had an internal error.",
	"network":          "The connection to the provider dropped.",
	"transport_lost":   "The connection was lost before the turn finished.",
	"rate_limited":     "The provider is rate limiting requests.",
	"in_progress":      "The agent was still retrying on its own.",
	"quota":            "You've hit your usage limit.",
	"billing":          "The provider account is out of credit or its billing needs attention.",
	"auth":             "The agent is not logged in or its API key was rejected.",
	"permission":       "The account is not allowed to use this model or feature.",
	"model":            "The selected model does not exist or this account cannot use it.",
	"config":           "The agent's setup needs fixing (installation, network certificates, region or options).",
	"context_overflow": "The prompt is too long for the model.",
	"invalid_request":  "The provider rejected this request as invalid.",
	"resume_corrupted": "The conversation history is inconsistent, so the provider rejects it.",
	"cancelled":        "The turn was cancelled.",
	"turn_limit":       "The agent stopped at the turn or spending limit it was given.",
	"unknown":          "The agent failed with an error that was not recognised.",
}

// Describe says in one plain sentence why a turn failed, for the recovery
// banner.
func Describe(c Classification) string {
	if d, ok := descriptions[c.Code]; ok {
		return d
	}
	return descriptions["unknown"]
}
