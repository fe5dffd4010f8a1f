package mockagent

import (
	"crypto/rand"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Scenario names, written as the first word of a prompt: "/overloaded:2 hi".
const (
	scOverloaded = "overloaded"
	scConnClosed = "conn-closed"
	scRateLimit  = "rate-limit"
	scUsageLimit = "usage-limit"
	scAuth       = "auth"
	scTooLong    = "too-long"
	scCrash      = "crash"
	scSlow       = "slow"
	scTool       = "tool"
	// scToolOverloaded runs a tool, then fails with a 529: a turn that must
	// not be replayed blindly because it already acted.
	scToolOverloaded = "tool-overloaded"
	// scEchoOverloaded streams its 529 line as reply text, then fails with
	// it, as claude-agent-acp does.
	scEchoOverloaded = "echo-overloaded"
	// scWall fails with a 529 while the shared wall (wall.go) is up;
	// "/wall:MS" then streams its reply and takes MS more to end the turn.
	scWall = "wall"
	// scLeak fails like scEchoOverloaded with planted secrets in its
	// error line, stderr and error data (leak.go).
	scLeak = "leak"
	// scHang answers nothing at all until cancelled, the first N prompts
	// ("/hang:N", default 1), then replies: an agent retrying in silence.
	scHang = "hang"
	// scSilent sends nothing for MS ("/silent:MS"), then replies.
	scSilent = "silent"
	// scTokens replies and reports usage (usage.go): "/tokens:IN:OUT:MICROS".
	scTokens = "tokens"
)

// always is N for scenarios that never recover by themselves.
const always = math.MaxInt32

// failDefaults lists the failing scenarios and their default N.
var failDefaults = map[string]int{
	scOverloaded:     1,
	scConnClosed:     1,
	scRateLimit:      1,
	scUsageLimit:     always,
	scAuth:           always,
	scTooLong:        always,
	scCrash:          1,
	scToolOverloaded: 1,
	scEchoOverloaded: 1,
	scLeak:           1,
	scHang:           1,
}

const (
	defaultRetryAfterSecs = 2
	defaultSlowMS         = 3000
)

// scenario is a parsed "/name[:a[:b]]" token.
type scenario struct {
	name  string
	token string // as written, e.g. "/rate-limit:2:5"; kept in history
	n     int    // failing scenarios: how many prompts fail before recovery
	secs  int    // rate-limit: retry hint; usage-limit: seconds until the reset (0: the next full hour)
	ms    int    // slow: total duration; wall: how long the reply after the wall lingers
	size  int    // stream: bytes of the reply
	model string // "/name@MODEL": the model its errors name; "" when none
	// tokens: the usage it reports (input, output tokens; cost in millionths)
	in, out, micros int
}

func (s scenario) fails() bool {
	if s.name == scWall {
		return true
	}
	_, ok := failDefaults[s.name]
	return ok
}

// parseScenario reads the first word of the first line. Unknown "/words"
// are not scenarios (they echo); malformed numbers fall back to defaults.
func parseScenario(text string) (scenario, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	fields := strings.Fields(line)
	if len(fields) == 0 || !strings.HasPrefix(fields[0], "/") {
		return scenario{}, false
	}
	token := fields[0]
	parts := strings.Split(strings.TrimPrefix(token, "/"), ":")
	name, model, _ := strings.Cut(parts[0], "@")
	s := scenario{name: strings.ToLower(name), token: token, model: model}
	num := func(i, def int) int {
		if i >= len(parts) {
			return def
		}
		v, err := strconv.Atoi(parts[i])
		if err != nil || v < 0 {
			return def
		}
		return v
	}
	switch s.name {
	case scSlow:
		s.ms = num(1, defaultSlowMS)
	case scTool:
	case scModel:
		if s.model == "" {
			return scenario{}, false
		}
	case scTokens:
		s.in, s.out, s.micros = num(1, defaultTokensIn), num(2, defaultTokensOut), num(3, defaultTokensMicros)
	case scWall, scSilent:
		s.ms = num(1, 0)
	case scStream:
		parseStream(&s, num)
	case scRateLimit:
		s.n = num(1, failDefaults[s.name])
		s.secs = num(2, defaultRetryAfterSecs)
	case scUsageLimit:
		s.n = num(1, failDefaults[s.name])
		s.secs = num(2, 0) // 0: the reset is the next full hour
	default:
		def, ok := failDefaults[s.name]
		if !ok {
			return scenario{}, false
		}
		s.n = num(1, def)
	}
	return s, true
}

// inheritScenario: a prompt that is not a scenario continues the failing
// scenario of the last user prompt that had one, so "continue" after a
// resumed session hits the same failure counter.
func inheritScenario(history []message) (scenario, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != roleUser || m.Scenario == "" {
			continue
		}
		if s, ok := parseScenario(m.Scenario); ok && s.fails() {
			return s, true
		}
		return scenario{}, false
	}
	return scenario{}, false
}

// apiError has the shape Claude Code ACP adapters produce for provider errors.
func apiError(detail string) *acp.RequestError {
	return &acp.RequestError{Code: -32603, Message: "Internal error: " + detail, Data: map[string]any{"details": detail}}
}

// echoedOverload is Claude Code's 529 line, streamed and then returned.
const echoedOverload = "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."

// scenarioError is the JSON-RPC error a failing scenario answers with;
// "/name@MODEL" adds "model": MODEL to its data, as provider error bodies
// that name the model do.
func scenarioError(s scenario, now time.Time) *acp.RequestError {
	e := scenarioErrorOf(s, now)
	if data, ok := e.Data.(map[string]any); ok && s.model != "" {
		data["model"] = s.model
	}
	return e
}

func scenarioErrorOf(s scenario, now time.Time) *acp.RequestError {
	switch s.name {
	case scOverloaded, scToolOverloaded, scWall:
		return apiError(`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"` + requestID() + `"}`)
	case scEchoOverloaded:
		return &acp.RequestError{Code: -32603, Message: "Internal error: " + echoedOverload, Data: map[string]any{"errorKind": "server_error"}}
	case scConnClosed:
		return apiError("API Error: Connection closed mid-response. The response above may be incomplete.")
	case scRateLimit:
		detail := fmt.Sprintf(`API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization. Please try again in %ds."},"request_id":"%s"} retry-after: %d`,
			s.secs, requestID(), s.secs)
		return &acp.RequestError{Code: -32603, Message: "Internal error: " + detail, Data: map[string]any{
			"details": detail, "headers": map[string]any{"retry-after": strconv.Itoa(s.secs)},
		}}
	case scUsageLimit:
		reset := now.Add(time.Hour).Truncate(time.Hour).Unix()
		if s.secs > 0 {
			reset = now.Add(time.Duration(s.secs) * time.Second).Unix()
		}
		return apiError(fmt.Sprintf("Claude AI usage limit reached|%d", reset))
	case scAuth:
		return &acp.RequestError{Code: -32000, Message: "Authentication required",
			Data: map[string]any{"details": "Invalid API key · Please run /login"}}
	case scTooLong:
		return apiError(`API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 212345 tokens > 200000 maximum"},"request_id":"` + requestID() + `"}`)
	}
	return apiError("API Error: 500 mock scenario " + s.name)
}

func requestID() string { return "req_011C" + randomID(10) }

func randomID(nbytes int) string {
	b := make([]byte, nbytes)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}

// chunks splits a reply into at least n pieces (word boundaries when there
// are enough words) so clients see real streaming.
func chunks(text string, n int) []string {
	words := strings.SplitAfter(text, " ")
	if len(words) >= n {
		return words
	}
	r := []rune(text)
	if len(r) < n {
		return []string{text}
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}
