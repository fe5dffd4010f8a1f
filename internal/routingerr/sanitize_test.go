package routingerr

import (
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"no secrets here", "no secrets here"},
		{"Incorrect API key provided: sk-proj-abcDEF123456789xyz.", "Incorrect API key provided: sk-[REDACTED]."},
		{"key sk-ant-api03-AbC_dEf-123456789 end", "key sk-[REDACTED] end"},
		{"masked sk-proj-********************Xq7d", "masked sk-[REDACTED]"},
		{"short sk-abc stays", "short sk-abc stays"},
		{"risk-free disk-usage", "risk-free disk-usage"},
		{"Authorization: Bearer eyJhbGciOi.J9abc.def {\"x\":1}", "Authorization: [REDACTED] {\"x\":1}"},
		{"authorization: Basic dXNlcjpwYXNz", "authorization: [REDACTED]"},
		{"x-api-key: abcdef123456\nnext line", "x-api-key: [REDACTED]\nnext line"},
		{`{"x-api-key": "abcdef123456", "model": "m"}`, `{"x-api-key": "[REDACTED]", "model": "m"}`},
		{"ANTHROPIC_API_KEY=abcdef123456 claude", "ANTHROPIC_API_KEY=[REDACTED] claude"},
		{"invalid x-api-key", "invalid x-api-key"},
		{`{"message":"invalid x-api-key"}`, `{"message":"invalid x-api-key"}`},
		{"curl -H 'Authorization: Bearer abcdefgh12345'", "curl -H 'Authorization: [REDACTED]'"},
		{"sent bearer abcdefghijklmnop to x", "sent bearer [REDACTED] to x"},
		{"https://x/?key=AIzaSyA1234567890abcdefghijklmnopqrstuv&alt=sse", "https://x/?key=[REDACTED]&alt=sse"},
		{"open /home/alice/src/app.go: EISDIR", "open ~/src/app.go: EISDIR"},
		{"at file:///Users/bob/project/x.js:1", "at file://~/project/x.js:1"},
		{"cd /root && ls /root/.claude", "cd ~ && ls ~/.claude"},
		{"/rootfs/data /srv/home/x /opt/Users/y", "/rootfs/data /srv/home/x /opt/Users/y"},
		{"(/home/carol)", "(~)"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestSanitizeNoAllocWhenClean(t *testing.T) {
	s := strings.Repeat(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} `, 5)
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocates %v times", n)
	}
}
