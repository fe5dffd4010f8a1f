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

func TestSanitizeProviderTokens(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"aws AKIAIOSFODNN7EXAMPLE here", "aws [REDACTED] here"},
		{"sts ASIAY34FZKBOKMUTVV7A,", "sts [REDACTED],"},
		{"AKIA is a prefix", "AKIA is a prefix"},
		{"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{`aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, `aws_secret_access_key = [REDACTED]`},
		{"gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok", "gh [REDACTED] ok"},
		{"oauth gho_16C7e42F292c6912E7710c838347Ae178B4a!", "oauth [REDACTED]!"},
		{"pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF end", "pat [REDACTED] end"},
		{"slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx.", "slack [REDACTED]."},
		{"xoxp-1234-5678-abcdefghij", "[REDACTED]"},
		{"stripe sk_live_51HxYzAbCdEfGhIjKlMn and rk_live_51HxYzAbCdEfGhIjKlMn", "stripe [REDACTED] and [REDACTED]"},
		{"upper SK-ANT-API03-ABCDEFGHIJKLMNOP", "upper SK-[REDACTED]"},
		{"git clone https://alice:hunter2hunter2@github.com/x/y.git", "git clone https://alice:[REDACTED]@github.com/x/y.git"},
		{"postgres://app:s3cr3t@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"},
		{"https://github.com/x/y and a@b.c", "https://github.com/x/y and a@b.c"},
		{"https://user@host/x", "https://user@host/x"},
		{"GET /cb?token=abcdef123456&x=1", "GET /cb?token=[REDACTED]&x=1"},
		{"api_key=abcdef123456", "api_key=[REDACTED]"},
		{"password=hunter2 rest", "password=[REDACTED] rest"},
		{`{"token":"abcdef123456"}`, `{"token":"[REDACTED]"}`},
		{"max_tokens=4096 tokens: 12", "max_tokens=4096 tokens: 12"},
		{"Authorization: Bearer abcdefgh12345", "Authorization: [REDACTED]"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U x",
			"jwt [REDACTED] x"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----\nafter",
			"-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----\nafter"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]"},
		{"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"---- a list -----", "---- a list -----"},
	}
	for _, tt := range tests {
		// The excerpt skips Sanitize when the automaton saw no secret
		// trigger (mayHoldSecret): every secret here must be seen.
		if c := Classify(Evidence{Err: tt.in}, testNow); c.Excerpt != Sanitize(c.Excerpt) {
			t.Errorf("excerpt of %q not sanitised: %q", tt.in, c.Excerpt)
		}
		got := Sanitize(tt.in)
		if got != tt.want {
			t.Errorf("Sanitize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if again := Sanitize(got); again != got {
			t.Errorf("Sanitize is not idempotent on %q: %q", got, again)
		}
		if ContainsSecret(got) {
			t.Errorf("ContainsSecret(%q) after Sanitize", got)
		}
		if changed := tt.in != tt.want; ContainsSecret(tt.in) != changed {
			t.Errorf("ContainsSecret(%q) = %v", tt.in, !changed)
		}
	}
}

func TestContainsSecretIgnoresPaths(t *testing.T) {
	t.Parallel()
	if ContainsSecret("open /home/alice/x: EISDIR") {
		t.Error("a home path is not a secret")
	}
	if !ContainsSecret("key sk-ant-api03-AbC_dEf-123456789") {
		t.Error("an API key is a secret")
	}
}

func TestRegisterSecret(t *testing.T) {
	t.Parallel()
	const tok = "daemon-token-5f3c9a7e1b"
	RegisterSecret(tok)
	RegisterSecret(tok) // twice is once
	RegisterSecret("short")
	in := "ws://127.0.0.1:7420/?tok " + tok + " and again" + tok
	got := Sanitize(in)
	if strings.Contains(got, tok) || !strings.Contains(got, "and again[REDACTED]") {
		t.Errorf("Sanitize(%q) = %q", in, got)
	}
	if !ContainsSecret("x" + tok) {
		t.Error("a registered secret is a secret")
	}
	if Sanitize("short words stay") != "short words stay" {
		t.Error("a short registered string must be ignored")
	}
}

// TestSanitizeGrowingText: a text that grows (a streamed reply) never has a
// sanitised form that un-redacts what an earlier, shorter form had hidden.
func TestSanitizeGrowingText(t *testing.T) {
	t.Parallel()
	full := "here -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\nxyz\n-----END EC PRIVATE KEY----- and Authorization: Bearer abcdefghijk12 done"
	for n := 1; n <= len(full); n++ {
		got := Sanitize(full[:n])
		for _, leak := range []string{"MHcCAQEEIB", "abcdefghijk12"} {
			if strings.Contains(got, leak) {
				t.Fatalf("prefix %d leaks %q: %q", n, leak, got)
			}
		}
	}
}
