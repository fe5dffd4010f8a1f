package routingerr

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the host's zoneinfo
)

var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// The traps named in DESIGN §3 and issue 3.
func TestTraps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ev        Evidence
		wantCode  string
		wantClass Class
	}{
		{"digits inside a duration are not a 529",
			txt(`{"type":"result","is_error":true,"duration_ms":15290,"num_turns":1,"result":"done"}`), "unknown", ClassUnclassified},
		{"digits inside a token count are not a 402",
			txt("prompt used 402913 tokens and 4290 ms"), "unknown", ClassUnclassified},
		{"a JSON-RPC code is not an HTTP status",
			txt(`{"code":-32603,"message":"Internal error"}`), "unknown", ClassUnclassified},
		{"a port ending in 529 is not a status",
			txt("dial 127.0.0.1:18529 ok; Internal error"), "unknown", ClassUnclassified},
		{"agent prose about overload is not an overload",
			txt("I've updated `internal/queue/worker.go` so that when the queue is overloaded the handler returns HTTP 529 with an `overloaded_error` body instead of blocking."),
			"unknown", ClassUnclassified},
		{"prose in stderr before an unrelated error",
			Evidence{StderrTail: "note: the build farm is overloaded today\nError: EISDIR: illegal operation on a directory"}, "unknown", ClassUnclassified},
		{"context canceled is a cancel, not a failure",
			txt("agent prompt: context canceled"), "cancelled", ClassTerminal},
		{"the cancel flag wins over any provider text",
			Evidence{Cancelled: true, Err: `API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}`}, "cancelled", ClassTerminal},
		{"structured status outranks a status in text",
			status(503, "upstream said: status: 401"), "unavailable", ClassTransient},
		{"structured status outranks a 529 in text",
			status(401, "API Error: 400 bad key"), "auth", ClassUserAction},
		{"a 200 stream error still reads the text status",
			status(200, "API Error: 500 boom"), "server_error", ClassTransient},
		{"insufficient_quota on a 429 is billing, not a rate limit",
			status(429, `{"error":{"type":"insufficient_quota","code":"insufficient_quota"}}`), "billing", ClassUserAction},
		{"request too large per minute on a 429 is terminal",
			status(429, `{"error":{"message":"Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 31538.","code":"rate_limit_exceeded"}}`),
			"context_overflow", ClassTerminal},
		{"the last error after the agent's own retries counts",
			txt("API Error (529 {}) · Retrying in 38 seconds… (attempt 10/10)\nAPI Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}"),
			"overloaded", ClassTransient},
		{"in-progress markers of an exited agent are not in progress",
			Evidence{ExitStatus: "exit status 1", Err: `API Error (529 {"type":"error","error":{"type":"overloaded_error"}}) · Retrying in 4 seconds… (attempt 4/10)`},
			"overloaded", ClassTransient},
		{"wrapped several times",
			txt(`claude exited with error: exit status 1: Internal error: API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`),
			"rate_limited", ClassTransient},
		{"empty evidence", Evidence{}, "unknown", ClassUnclassified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Classify(tt.ev, testNow)
			if c.Code != tt.wantCode || c.Class != tt.wantClass {
				t.Errorf("got %s/%s (rule %s), want %s/%s", c.Code, c.Class, c.RuleID, tt.wantCode, tt.wantClass)
			}
		})
	}
}

func TestHints(t *testing.T) {
	t.Parallel()
	ms := func(n int64) *time.Duration { d := time.Duration(n) * time.Millisecond; return &d }
	at := func(s string) *time.Time { t, _ := time.Parse(time.RFC3339, s); return &t }
	tests := []struct {
		name  string
		ev    Evidence
		now   time.Time
		retry *time.Duration
		reset *time.Time
	}{
		{"retry-after header seconds", status(429, "retry-after: 27\n{\"type\":\"rate_limit_error\"}"), testNow, ms(27000), nil},
		{"retry-after-ms wins", status(429, "retry-after: 27\nretry-after-ms: 26500\n"), testNow, ms(26500), nil},
		{"retry-after as JSON header", status(429, `{"headers":{"retry-after":"3"}}`), testNow, ms(3000), nil},
		{"try again in ms", txt(`{"code":"rate_limit_exceeded","message":"Please try again in 644ms."}`), testNow, ms(644), nil},
		{"try again in compound", txt(`{"code":"rate_limit_exceeded","message":"Please try again in 7m12.5s."}`), testNow, ms(432500), nil},
		{"try again in words", txt(`rate_limit_exceeded: try again in 20 seconds`), testNow, ms(20000), nil},
		{"try again in, wrapped with an indent", txt("Rate limit reached for organization org-x on tokens per min (TPM): Limit 250000, Used 250000, Requested 1. Please try\n    again in 35.883s."), testNow, ms(35883), nil},
		{"try again in, wrapped before in", txt("Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM). Please try again\n      in 1.2s."), testNow, ms(1200), nil},
		{"retryDelay", status(429, `{"status":"RESOURCE_EXHAUSTED","details":[{"quotaId":"PerMinute"},{"retryDelay":"1.5s"}]}`), testNow, ms(1500), nil},
		{"try again in a moment is no hint", txt("API Error: 529 Overloaded. try again in a moment."), testNow, nil, nil},
		{"retrying in seconds (in progress)", txt("API Error (x) · Retrying in 19 seconds… (attempt 8/10)"), testNow, ms(19000), nil},
		{"retry n/m after a cause, waiting", txt("[warning] [req-3] ⟳ Retry 1/10 after UND_ERR_SOCKET: fetch failed, waiting 930ms"), testNow, ms(930), nil},
		{"retrying after a unit with an article", txt("http2: server sent GOAWAY and closed the connection\nretrying fetch QmX after a second..."), testNow, ms(1000), nil},
		{"retrying now, no delay", txt("Retry attempt 2\nRetrying now..."), testNow, nil, nil},
		{"retry n/m with no wait stated", txt("[retry 1/3] 503 Service Unavailable"), testNow, nil, nil},
		{"the last retry, its wait stated", txt("⟳ Retry 3/3 after HTTP 502, waiting 1s"), testNow, ms(1000), nil},
		{"epoch after the pipe", txt("Claude AI usage limit reached|1751385600"), testNow, nil, at("2025-07-01T16:00:00Z")},
		{"resets_at and resets_in_seconds", txt(`{"error":{"type":"usage_limit_reached","resets_at":1775317531,"resets_in_seconds":602705}}`), testNow,
			ms(602705000), at("2026-04-04T15:45:31Z")},
		{"a relay's cooldown reset_seconds", status(429, `{"error":{"code":"model_cooldown","message":"All credentials for model m are cooling down","reset_seconds":90,"reset_time":"1m30s"}}`), testNow,
			ms(90000), nil},
		{"reset_seconds inside another key is no hint", status(503, `{"circuit_reset_seconds": 30, "error": "upstream unavailable"}`), testNow, nil, nil},
		{"unified reset header", status(429, "anthropic-ratelimit-unified-status: rejected\nanthropic-ratelimit-unified-reset: 1764525600"), testNow,
			nil, at("2025-11-30T18:00:00Z")},
		{"unified reset RFC 3339", status(429, "anthropic-ratelimit-unified-status: rejected\nanthropic-ratelimit-unified-reset: 2026-06-01T17:00:00Z"), testNow,
			nil, at("2026-06-01T17:00:00Z")},
		{"regain access on", txt("You will regain access on 2026-09-01 at 00:00 UTC."), testNow, nil, at("2026-09-01T00:00:00Z")},
		{"resets at, the sentence's stop after it", txt("Usage limit reached. Your quota resets at 2026-12-05T00:00:00Z."), testNow, nil, at("2026-12-05T00:00:00Z")},
		{"resets at, fractional and an offset", txt("Usage limit reached, resets at 2026-12-05T01:00:00.000+01:00."), testNow, nil, at("2026-12-05T00:00:00Z")},
		{"resets at a date and time in UTC", txt("Daily quota exhausted, resets at 2026-12-05 00:00 UTC"), testNow, nil, at("2026-12-05T00:00:00Z")},
		{"resets at with seconds, GMT", txt("Daily quota exhausted, resets at 2026-12-05 00:00:30 GMT."), testNow, nil, at("2026-12-05T00:00:30Z")},
		{"resets at a local time, no reset", txt("Daily quota exhausted, resets at 2026-12-05 01:00 CET"), testNow, nil, nil},
		{"resets 3pm in a named zone, later today", txt("You've hit your limit · resets 3pm (Europe/Paris)"), testNow, nil, at("2026-06-01T13:00:00Z")},
		{"resets 9:30am in a named zone, tomorrow", txt("You've hit your limit · resets 9:30am (Europe/Paris)"), testNow, nil, at("2026-06-02T07:30:00Z")},
		{"resets in winter time", txt("You've hit your limit · resets 3pm (Europe/Paris)"), time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC), nil, at("2026-01-10T14:00:00Z")},
		{"resets in New York", txt("You've hit your weekly limit · resets 12am (America/New_York)"), testNow, nil, at("2026-06-02T04:00:00Z")},
		{"resets on a date", txt("You've hit your weekly limit · resets Oct 9, 10am (Europe/Paris)"), testNow, nil, at("2026-10-09T08:00:00Z")},
		{"resets on a date next year", txt("You've hit your weekly limit · resets Jan 2 at 9am (UTC)"), time.Date(2026, 12, 30, 0, 0, 0, 0, time.UTC),
			nil, at("2027-01-02T09:00:00Z")},
		{"no zone, no reset", txt("You've hit your session limit · resets 3:45pm"), testNow, nil, nil},
		{"unknown zone, no reset", txt("You've hit your session limit · resets 3pm (Mars/Olympus)"), testNow, nil, nil},
		{"no clock, no reset", txt("You've hit your session limit · resets 3pm (Europe/Paris)"), time.Time{}, nil, nil},
		{"hints only for retryable classes", status(400, "prompt is too long; retry-after: 5"), testNow, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Classify(tt.ev, tt.now)
			if !equalPtr(c.RetryAfter, tt.retry) {
				t.Errorf("retry_after = %v, want %v (rule %s)", str(c.RetryAfter), str(tt.retry), c.RuleID)
			}
			if (c.ResetAt == nil) != (tt.reset == nil) || c.ResetAt != nil && !c.ResetAt.Equal(*tt.reset) {
				t.Errorf("reset_at = %v, want %v (rule %s)", str(c.ResetAt), str(tt.reset), c.RuleID)
			}
		})
	}
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func str[T any](p *T) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestParseHumanDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"644ms.", 644 * time.Millisecond, true},
		{"22s", 22 * time.Second, true},
		{"1.5s", 1500 * time.Millisecond, true},
		{"7m12s", 7*time.Minute + 12*time.Second, true},
		{"1h2m3s", time.Hour + 2*time.Minute + 3*time.Second, true},
		{"4 seconds…", 4 * time.Second, true},
		{"2 minutes", 2 * time.Minute, true},
		{"a moment", 0, false},
		{"5 apples", 0, false},
		{"99999999999999h", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, _, ok := parseHumanDuration(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseHumanDuration(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestResumeSafe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ev   Evidence
		want bool
	}{
		{txt("read tcp 1.2.3.4:5->6.7.8.9:443: read: connection reset by peer"), true},
		{txt("API Error: Connection closed mid-response."), true},
		{status(200, "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\"}}"), true},
		{status(529, `{"type":"error","error":{"type":"overloaded_error"}}`), false},
		{txt("API Error: 400 due to tool use concurrency issues. Run /rewind"), false},
		{txt("Credit balance is too low"), false},
	}
	for _, tt := range tests {
		if got := Classify(tt.ev, testNow).ResumeSafe; got != tt.want {
			t.Errorf("ResumeSafe(%q) = %v, want %v", tt.ev.Err, got, tt.want)
		}
	}
}

func TestEvidenceFields(t *testing.T) {
	t.Parallel()
	// Lifecycle's shape: the RPC error, the Go error around it and stderr.
	ev := Evidence{
		Agent: "claude", Phase: PhaseStreaming, HasRPCError: true, RPCCode: -32603,
		RPCMessage: "Internal error", RPCData: `{"errorKind":"server_error"}`,
		Err:        "agent prompt: acp: Internal error",
		StderrTail: strings.Repeat("[debug] chunk\n", 2000) + "API Error: 529 Overloaded. This is a server-side issue\n",
	}
	c := Classify(ev, testNow)
	if c.Code != "overloaded" || c.RuleID != "anthropic.overloaded.529.v1" {
		t.Fatalf("got %s (%s), want overloaded from stderr", c.Code, c.RuleID)
	}
	if !strings.Contains(c.Excerpt, "529 Overloaded") {
		t.Errorf("excerpt %q does not show the error", c.Excerpt)
	}
	// Only the tail of a long stderr is read: an early error line has been
	// superseded by what followed.
	ev = Evidence{StderrTail: "Credit balance is too low\n" + strings.Repeat("x", 3*maxStderrBytes)}
	if c := Classify(ev, testNow); c.Class != ClassUnclassified {
		t.Errorf("head of a long stderr was read: %s", c.RuleID)
	}
	// A long message keeps its head (the wrapper's cause) and its tail (a
	// pasted log's final error); the middle is skipped.
	for _, tt := range []struct{ err, want string }{
		{"Credit balance is too low\n" + strings.Repeat("x\n", maxFieldBytes), "billing"},
		{strings.Repeat("x\n", maxFieldBytes) + "connect ETIMEDOUT 1.2.3.4:443", "network"},
		{strings.Repeat("x\n", maxFieldBytes) + "Credit balance is too low\n" + strings.Repeat("x\n", maxFieldBytes), "unknown"},
	} {
		if c := Classify(txt(tt.err), testNow); c.Code != tt.want {
			t.Errorf("long message: got %s, want %s", c.Code, tt.want)
		}
	}
}

func TestClassifyExplain(t *testing.T) {
	t.Parallel()
	ev := txt("API Error: Request timed out.")
	c, trace := ClassifyExplain(ev, testNow)
	if !sameClassification(c, Classify(ev, testNow)) {
		t.Fatalf("ClassifyExplain and Classify disagree")
	}
	last := trace[len(trace)-1]
	if !last.Matched || last.RuleID != c.RuleID {
		t.Fatalf("trace ends with %+v, want the matched rule %s", last, c.RuleID)
	}
	for _, tr := range trace[:len(trace)-1] {
		if tr.Matched {
			t.Fatalf("rule %s matched before the winner", tr.RuleID)
		}
	}
	_, trace = ClassifyExplain(txt("nothing to see"), testNow)
	if len(trace) != len(Rules()) {
		t.Errorf("unmatched trace has %d rules, want all %d", len(trace), len(Rules()))
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	key := "sk-ant-api03-" + strings.Repeat("A", 90)
	long := strings.Repeat("lorem ipsum ", 100) + "Authorization: Bearer " + key + " " + key +
		` {"type":"error","error":{"type":"overloaded_error"}} /home/alice/project ` + strings.Repeat("dolor ", 200)
	c := Classify(txt(long), testNow)
	if len(c.Excerpt) > ExcerptMax {
		t.Errorf("excerpt is %d bytes, cap %d", len(c.Excerpt), ExcerptMax)
	}
	for _, leak := range []string{"AAAAAAAA", "alice"} {
		if strings.Contains(c.Excerpt, leak) {
			t.Errorf("excerpt leaks %q: %s", leak, c.Excerpt)
		}
	}
	if !strings.Contains(c.Excerpt, "overloaded_error") {
		t.Errorf("excerpt misses the match: %s", c.Excerpt)
	}
	if got := ExcerptOf(txt("Error: x at /Users/bob/code")); got != "Error: x at ~/code" {
		t.Errorf("ExcerptOf = %q", got)
	}
	if got := ExcerptOf(Evidence{StderrTail: strings.Repeat("a", 2000) + "\nlast words"}); !strings.HasSuffix(got, "last words") {
		t.Errorf("unmatched stderr excerpt should show the end, got %q", got)
	}
}

// Scans are pooled: concurrent classifications must not see each other.
func TestClassifyConcurrent(t *testing.T) {
	t.Parallel()
	var evs []Evidence
	for _, f := range ruleFixtures {
		evs = append(evs, f.pos...)
	}
	want := make([]Classification, len(evs))
	for i, ev := range evs {
		want[i] = Classify(ev, testNow)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 20 {
				for i := range evs {
					j := (i + g*7 + round) % len(evs)
					if got := Classify(evs[j], testNow); !sameClassification(got, want[j]) {
						t.Errorf("concurrent Classify differs for %+v", evs[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func sameClassification(a, b Classification) bool {
	return a.Code == b.Code && a.Class == b.Class && a.RuleID == b.RuleID && a.Excerpt == b.Excerpt &&
		a.ResumeSafe == b.ResumeSafe && equalPtr(a.RetryAfter, b.RetryAfter) &&
		(a.ResetAt == nil) == (b.ResetAt == nil) && (a.ResetAt == nil || a.ResetAt.Equal(*b.ResetAt))
}

func TestRuleIDsAreVersioned(t *testing.T) {
	t.Parallel()
	for _, r := range Rules() {
		i := strings.LastIndex(r.ID, ".v")
		if i < 0 || i == len(r.ID)-2 || strings.Count(r.ID, ".") < 2 || strings.ToLower(r.ID) != r.ID {
			t.Errorf("rule id %q is not <provider>.<name>.v<N>", r.ID)
		}
	}
}

func TestEveryCodeHasCopy(t *testing.T) {
	t.Parallel()
	codes := map[string]bool{"unknown": true}
	for _, r := range Rules() {
		codes[r.Code] = true
	}
	for code := range codes {
		if _, ok := familyLabels[code]; !ok {
			t.Errorf("FamilyLabel has no copy for %q", code)
		}
		if _, ok := descriptions[code]; !ok {
			t.Errorf("Describe has no copy for %q", code)
		}
	}
	if got := FamilyLabel("overloaded"); got != "Provider overloaded" {
		t.Errorf("FamilyLabel(overloaded) = %q", got)
	}
	if got := Describe(Classification{Code: "auth"}); got != "The agent is not logged in or its API key was rejected." {
		t.Errorf("Describe(auth) = %q", got)
	}
	if FamilyLabel("nope") == "" || Describe(Classification{Code: "nope"}) == "" {
		t.Error("unknown codes need fallback copy")
	}
}

// TestStructureAtAnyDepth: structure is read through every wrapping — a
// body escaped inside a JSON string (twice), a Python repr, a JSON-RPC code
// that is an HTTP status, headers inside data.
func TestStructureAtAnyDepth(t *testing.T) {
	t.Parallel()
	inner := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	once, _ := json.Marshal(map[string]string{"message": "upstream said " + inner})
	twice, _ := json.Marshal(map[string]string{"details": string(once)})
	cases := []struct {
		name string
		ev   Evidence
		rule string
		ra   time.Duration
	}{
		{"escaped once", Evidence{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: string(once)}, "anthropic.overloaded_error.v1", 0},
		{"escaped twice", Evidence{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error", RPCData: string(twice)}, "anthropic.overloaded_error.v1", 0},
		{"python repr", txt(`Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}`), "anthropic.overloaded_error.v1", 0},
		{"rpc code is the status", Evidence{HasRPCError: true, RPCCode: 503, RPCMessage: "Service Unavailable"}, "http.unavailable.5xx.v1", 0},
		{"rpc code 429 with hint", Evidence{HasRPCError: true, RPCCode: 429, RPCMessage: "slow", RPCData: `{"headers":"retry-after: 7"}`}, "http.rate_limited.429.v1", 7 * time.Second},
		{"escaped retryDelay", Evidence{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error",
			RPCData: `{"details":"{\"error\":{\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"quotaId\":\"GenerateRequestsPerMinutePerProject\"},{\"retryDelay\": \"12s\"}]}}"}`}, "quota.per_minute.v1", 12 * time.Second},
		{"escaped status code", Evidence{Err: `{"message":"{\"code\": 529}"}`}, "anthropic.overloaded.529.v1", 0},
		{"openai reset header", Evidence{HTTPStatus: 429, Err: "x-ratelimit-reset-requests: 640ms\n\n{\"error\":{\"code\":\"rate_limit_exceeded\"}}"}, "openai.rate_limit_exceeded.v1", 640 * time.Millisecond},
		{"anthropic reset header", Evidence{HTTPStatus: 429, Err: "anthropic-ratelimit-requests-reset: 2026-06-01T12:00:09Z\n\n{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}"}, "anthropic.rate_limit_error.v1", 9 * time.Second},
	}
	for _, tc := range cases {
		c := Classify(tc.ev, testNow)
		if c.RuleID != tc.rule {
			t.Errorf("%s: rule %s, want %s (%s)", tc.name, c.RuleID, tc.rule, c.Excerpt)
		}
		if tc.ra != 0 && (c.RetryAfter == nil || *c.RetryAfter != tc.ra) {
			t.Errorf("%s: retry_after %v, want %v", tc.name, c.RetryAfter, tc.ra)
		}
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	ev := Evidence{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error",
		RPCData: `{"message":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}"}`}
	c, x := Explain(ev, testNow)
	if !sameClassification(c, Classify(ev, testNow)) || x.RuleID != c.RuleID {
		t.Fatalf("Explain and Classify disagree: %s vs %s", x.RuleID, c.RuleID)
	}
	if x.Span == nil || !strings.Contains(x.Text[x.Span[0]:x.Span[1]], "overloaded_error") {
		t.Errorf("span %v does not cover the escaped type in %q", x.Span, x.Text)
	}
	_, x = Explain(txt("the worker returns 529 when overloaded"), testNow)
	if len(x.NearMisses) != 1 || x.NearMisses[0].RuleID != "generic.overloaded_text.v2" {
		t.Errorf("near misses %+v, want the prose overload rule", x.NearMisses)
	}
	if x.Silent+len(x.NearMisses) != len(Rules()) {
		t.Errorf("silent %d + near %d != %d rules", x.Silent, len(x.NearMisses), len(Rules()))
	}
	// A 429 left unread says why.
	_, x = Explain(status(429, "Usage cap reached for this billing period."), testNow)
	said := false
	for _, m := range x.NearMisses {
		said = said || m.RuleID == "http.rate_limited.429.v1" && strings.Contains(m.Reason, "longer window")
	}
	if !said {
		t.Errorf("near misses %+v do not say why the 429 is no rate limit", x.NearMisses)
	}
}

// classCase is a text and the class it must get.
type classCase struct {
	text  string
	class Class
}

func assertClasses(t *testing.T, cases []classCase) {
	t.Helper()
	for _, tc := range cases {
		if c := Classify(Evidence{Err: tc.text}, testNow); c.Class != tc.class {
			t.Errorf("%q: %s (%s), want %s", tc.text, c.Class, c.RuleID, tc.class)
		}
	}
}

// TestTransportEnvelope: a transport failure whose text goes on to a cause
// no replay fixes is that cause's envelope; a later transient cause, or a
// stop before the transport failure, leaves the transport reading.
func TestTransportEnvelope(t *testing.T) {
	t.Parallel()
	assertClasses(t, []classCase{
		{`stream disconnected before completion: unexpected status 400 Bad Request: {"error":{"type":"invalid_request_error","message":"bad"}}`, ClassTerminal},
		{"TypeError: fetch failed\nAPI Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\"}}", ClassUserAction},
		{"stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)", ClassTransient},
		{"stream disconnected before completion: 503 Service Unavailable", ClassTransient},
		{"API Error: 401 earlier\nTypeError: fetch failed", ClassTransient},
	})
	_, x := Explain(Evidence{Err: "TypeError: fetch failed\nAPI Error: 401 {}"}, testNow)
	if !strings.Contains(x.Why, "envelope") {
		t.Errorf("explanation %q does not name the envelope", x.Why)
	}
}

// TestRenderedText: a terminal's colour codes, JSON's escaped newlines, a
// Markdown quote's "> " and a log line's time and level do not change what
// a text says: a coloured or quoted retry line is still the agent's own
// retry, a logged bare status word is still that status, a colour inside a
// marker still names the status, and a tail of lines quoted in a JSON
// string still ends in its last error.
func TestRenderedText(t *testing.T) {
	t.Parallel()
	assertClasses(t, []classCase{
		{"\x1b[33m  ⎿  API Error (Connection error.) · Retrying in 12 seconds… (attempt 5/10)\x1b[0m", ClassInProgress},
		{"\x1b[31mAPI Error\x1b[0m: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\"}}", ClassUserAction},
		{`\u001b[33mRetry in 1.5 seconds.\u001b[0m`, ClassInProgress},
		{`{"details":"Reconnecting... 5/5\nYou've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 3:05 PM."}`, ClassWaitForReset},
		{"\x1b[", ClassUnclassified},
		{"> ⎿  API Error (Connection error.) · Retrying in 12 seconds… (attempt 5/10)\n>     ⎿  TypeError (fetch failed)", ClassInProgress},
		{"> Reconnecting... 2/5\n> stream disconnected before completion: stream closed before response.completed", ClassInProgress},
		{"  ⎿  API Error (Connection error.) · Retrying in 12\n     seconds… (attempt 5/10)", ClassInProgress},
		{"2026-11-30T10:00:00.123Z ERROR Too Many Requests", ClassTransient},
		{"2026-11-30 10:00:00,123 - WARNING - Unauthorized", ClassUserAction},
		{"2026-11-30 build 42: Unauthorized", ClassUnclassified},
	})
	// A Windows path's "\npm" is a folder, not an escaped newline.
	s := newScan(&Evidence{Err: `spawn C:\Users\me\AppData\Roaming\npm\node_modules\x.js ENOENT {"details":"a\nb"}`}, testNow)
	if strings.Count(s.low, "\n") != 1 {
		t.Errorf("lines of %q: %q", s.raw, s.low)
	}
	s.release()
	if got := renderedText("a\x1b[1;31mb\x1b[0mc\x1b[ d"); got != "abc[ d" {
		t.Errorf("renderedText = %q", got)
	}
	// Go's encoding/json escapes of <, >, & and ' read as the characters.
	if got := renderedText(`{"error":"504 \u003chtml\u003e n_keep \u003E= n_ctx \u0026 it\u0027s \u0041"}`); got != `{"error":"504 <html> n_keep >= n_ctx & it's \u0041"}` {
		t.Errorf("renderedText = %q", got)
	}
	if c := Classify(Evidence{Err: `{"error":"504 \u003chtml\u003e\n\u003chead\u003e\u003ctitle\u003e504 Gateway Time-out\u003c/title\u003e\u003c/head\u003e"}`}, testNow); c.Class != ClassTransient {
		t.Errorf("a Go tool's JSON of a 504 page: %s (%s)", c.Class, c.RuleID)
	}
	if c := Classify(Evidence{Err: "\x1b[31mAPI Error: 529 Overloaded\x1b[0m"}, testNow); strings.Contains(c.Excerpt, "\x1b") {
		t.Errorf("excerpt keeps the colour codes: %q", c.Excerpt)
	}
}

// TestLeadingStatus: the SDKs' `${status} ${message}` at the start of a line
// is a status; a number that starts prose or a log line is not.
func TestLeadingStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want int
	}{
		{"401 Your authentication token has been invalidated. Please try signing in again.", 401},
		{"404 NOT_FOUND. {'error': {'code': 404}}", 404},
		{"400\n400 {\"type\":\"error\"}", 400},
		{"  ⎿  429 Too many tokens, please wait before trying again.", 429},
		{"(429 Too many tokens, please wait before trying again.)", 429},
		{"Error: 429 Free allocated quota exceeded.", 429},
		{"401 Unauthorized\nMissing scopes: api.responses.write", 401},
		{"first line\n503 Service Unavailable", 503},
		{"404 lines changed", 0},
		{"500 files indexed in 3s", 0},
		{"4001 Something", 0},
		{"[2026-06-01T12:00:00Z] 429 Too many", 0},
		{"the 429 Too many", 0},
		{"200 OK", 0},
		{"HTTP 503: Inference is temporarily unavailable", 503},
		{"HTTP 429 Too Many Requests from https://proxy.example/stream_chat", 429},
		{"API Error 429", 429},
		{"503: Service Unavailable", 0},
		{"HTTP 500 files", 0},
		{"HTTP 404:foo", 0},
	} {
		if got, _ := leadingStatus(tc.text); got != tc.want {
			t.Errorf("leadingStatus(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
	// A marker's status outranks a leading one.
	s := newScan(&Evidence{Err: "500 Internal\nAPI Error: 429 {}"}, testNow)
	defer s.release()
	if st, _ := s.httpStatus(); st != 429 {
		t.Errorf("marker status lost to the leading one: %d", st)
	}
}

// TestCandidatesChangeNothing: Classify tries only the rules a found keyword
// lets through (scan.candidates); ClassifyExplain tries every rule in order.
// On every text we hold they must agree.
func TestCandidatesChangeNothing(t *testing.T) {
	t.Parallel()
	var evs []Evidence
	for text := range corpusTexts(t) {
		evs = append(evs, Evidence{Err: text})
	}
	for _, l := range loadCatalogue(t) {
		evs = append(evs, l.evidence())
	}
	for _, d := range []string{"wild", "heldout", "heldout2", "heldout3"} {
		for _, r := range loadRealRows(t, d, map[string]string{}) {
			evs = append(evs, Evidence{Err: r.Text})
		}
	}
	for _, ev := range evs {
		got := Classify(ev, testNow)
		want, _ := ClassifyExplain(ev, testNow)
		if got.RuleID != want.RuleID || got.Excerpt != want.Excerpt {
			t.Errorf("%.120q: Classify %s, every rule in order %s", ev.Err, got.RuleID, want.RuleID)
		}
	}
}

// TestRenderedTextCopiesNoEscape: upper-case hex in Go-style JSON escapes
// costs no copy per escape.
func TestRenderedTextCopiesNoEscape(t *testing.T) {
	upper := strings.Repeat(`\u003C\u003E`, 16)
	if n := testing.AllocsPerRun(20, func() { _ = renderedText(upper) }); n > 2 {
		t.Errorf("renderedText of 32 upper-case escapes allocates %v times, want at most 2", n)
	}
}
