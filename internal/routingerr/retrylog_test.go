package routingerr

import (
	"testing"
	"time"
)

// The Stainless SDKs' debug log says whether the SDK retries ("retrying, 2
// attempts remaining") or gave up ("error; no more retries left"); a
// wrapper's "; retrying in 251 ms" states its delay with a blank before the
// unit.
func TestRetryLogLines(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		text  string
		class Class
		code  string
		after time.Duration
	}{
		{"[log_1] post https://api.anthropic.com/v1/messages failed with status 529 in 412ms - retrying, 2 attempts remaining", ClassInProgress, "in_progress", 0},
		{"[log_1] post https://api.anthropic.com/v1/messages failed with status 529 in 412ms - retrying, 0 attempts remaining", ClassTransient, "overloaded", 0},
		{"[log_1] post https://api.anthropic.com/v1/messages failed with status 429 in 179ms - error; no more retries left", ClassTransient, "rate_limited", 0},
		{"[log_1] get https://api.example.com/health failed with status of the check", ClassUnclassified, "unknown", 0},
		{"Head \"https://cache.example/x.narinfo\": http2: server sent GOAWAY and closed the connection; LastStreamID=1045, ErrCode=PROTOCOL_ERROR, debug=\"\"; retrying in 251 ms", ClassInProgress, "in_progress", 251 * time.Millisecond},
	} {
		c := Classify(Evidence{Err: tc.text}, now)
		if c.Class != tc.class || c.Code != tc.code {
			t.Errorf("%q: got %s/%s (%s), want %s/%s", tc.text, c.Class, c.Code, c.RuleID, tc.class, tc.code)
		}
		if tc.after > 0 && (c.RetryAfter == nil || *c.RetryAfter != tc.after) {
			t.Errorf("%q: retry_after %v, want %v", tc.text, c.RetryAfter, tc.after)
		}
	}
}
