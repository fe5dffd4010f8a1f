package mockagent

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseScenario(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in          string
		ok          bool
		name        string
		n, secs, ms int
	}{
		{"/overloaded", true, scOverloaded, 1, 0, 0},
		{"/overloaded:3 do the thing", true, scOverloaded, 3, 0, 0},
		{"  \n/Overloaded:2\nmore", true, scOverloaded, 2, 0, 0},
		{"/overloaded:x", true, scOverloaded, 1, 0, 0},
		{"/conn-closed", true, scConnClosed, 1, 0, 0},
		{"/rate-limit", true, scRateLimit, 1, 2, 0},
		{"/rate-limit:2:9", true, scRateLimit, 2, 9, 0},
		{"/usage-limit", true, scUsageLimit, always, 0, 0},
		{"/usage-limit:1:3", true, scUsageLimit, 1, 3, 0},
		{"/auth", true, scAuth, always, 0, 0},
		{"/auth:1", true, scAuth, 1, 0, 0},
		{"/too-long", true, scTooLong, always, 0, 0},
		{"/crash", true, scCrash, 1, 0, 0},
		{"/slow", true, scSlow, 0, 0, 3000},
		{"/slow:250", true, scSlow, 0, 0, 250},
		{"/tool", true, scTool, 0, 0, 0},
		{"/unknown", false, "", 0, 0, 0},
		{"please /overloaded", false, "", 0, 0, 0},
		{"", false, "", 0, 0, 0},
	} {
		s, ok := parseScenario(tc.in)
		assert.Equal(t, tc.ok, ok, "%q", tc.in)
		if !ok {
			continue
		}
		assert.Equal(t, tc.name, s.name, "%q", tc.in)
		assert.Equal(t, tc.n, s.n, "%q n", tc.in)
		assert.Equal(t, tc.secs, s.secs, "%q secs", tc.in)
		assert.Equal(t, tc.ms, s.ms, "%q ms", tc.in)
	}
}

func TestInheritScenario(t *testing.T) {
	t.Parallel()
	hist := []message{
		{Role: roleUser, Text: "/overloaded:2", Scenario: "/overloaded:2"},
		{Role: roleAgent, Text: "Echo"},
		{Role: roleUser, Text: "plain"},
	}
	s, ok := inheritScenario(hist)
	assert.True(t, ok && s.name == scOverloaded && s.n == 2, "%+v", s)

	// A later non-failing scenario ends the inheritance.
	hist = append(hist, message{Role: roleUser, Text: "/tool", Scenario: "/tool"})
	_, ok = inheritScenario(hist)
	assert.True(t, !ok)
	_, ok = inheritScenario(nil)
	assert.True(t, !ok)
}

func TestScenarioErrorShapes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 14, 25, 0, 0, time.UTC)
	for _, tc := range []struct {
		token    string
		code     int
		contains string
	}{
		{"/overloaded", -32603, `Internal error: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_`},
		{"/conn-closed", -32603, "Internal error: API Error: Connection closed mid-response."},
		{"/rate-limit:1:5", -32603, "Please try again in 5s."},
		{"/rate-limit:1:5", -32603, "retry-after: 5"},
		{"/usage-limit", -32603, "Claude AI usage limit reached|" + strconv.FormatInt(now.Add(35*time.Minute).Unix(), 10)},
		{"/usage-limit:1:90", -32603, "Claude AI usage limit reached|" + strconv.FormatInt(now.Add(90*time.Second).Unix(), 10)},
		{"/auth", -32000, "Authentication required"},
		{"/too-long", -32603, "prompt is too long: 212345 tokens > 200000 maximum"},
	} {
		s, ok := parseScenario(tc.token)
		require.True(t, ok)
		e := scenarioError(s, now)
		assert.Equal(t, tc.code, e.Code, tc.token)
		msgAndData := e.Message + " " + e.Data.(map[string]any)["details"].(string)
		assert.Contains(t, msgAndData, tc.contains, tc.token)
	}
}

func TestChunks(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"Echo: hello world", "Echo: x", "abc", "Echo: one two three four"} {
		c := chunks(s, 3)
		assert.True(t, len(c) >= 3, "%q → %q", s, c)
		assert.Equal(t, s, strings.Join(c, ""))
	}
}

func TestScenarioNamesAModel(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 25, 0, 0, time.UTC)
	for _, tc := range []struct{ in, name, model string }{
		{"/overloaded@gpt-4o:2 hi", scOverloaded, "gpt-4o"},
		{"/wall@o3 job", scWall, "o3"},
		{"/wall@claude-3-sonnet@20240229:50", scWall, "claude-3-sonnet@20240229"},
		{"/overloaded hi", scOverloaded, ""},
	} {
		s, ok := parseScenario(tc.in)
		require.True(t, ok, tc.in)
		assert.Equal(t, tc.name, s.name, tc.in)
		assert.Equal(t, tc.model, s.model, tc.in)
		data := scenarioError(s, now).Data.(map[string]any)
		if tc.model == "" {
			assert.NotContains(t, data, "model", tc.in)
			continue
		}
		assert.Equal(t, tc.model, data["model"], tc.in)
	}
	s, _ := parseScenario("/overloaded@gpt-4o:2")
	assert.Equal(t, 2, s.n)
}
