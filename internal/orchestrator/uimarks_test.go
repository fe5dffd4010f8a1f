package orchestrator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// A banner's details show the error as reported: code, message and the
// data indented, never a planted secret, and a long one cut at a line.
func TestErrorDetail(t *testing.T) {
	data, err := json.Marshal(map[string]any{"details": "API Error: 529 overloaded", "leaked": mockagent.FakeSecrets})
	if err != nil {
		t.Fatal(err)
	}
	got := errorDetail(routingerr.Evidence{HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error: " + strings.Join(mockagent.FakeSecrets, " "),
		RPCData: string(data), ExitStatus: "exit status 1"})
	if !strings.HasPrefix(got, "JSON-RPC error -32603: Internal error: ") || !strings.Contains(got, "\ndata: {\n  \"details\": \"API Error: 529 overloaded\"") ||
		!strings.HasSuffix(got, "\nagent process: exit status 1") {
		t.Errorf("errorDetail:\n%s", got)
	}
	for _, secret := range []string{"AKIAQ7CHAOSFAKEKEY42", "wJalrXUtnFEMI", "ghp_chaosFAKE", "xoxb-123456789012", "sk_live_chaosFAKE", "hunter2", "chaosFAKEtoken"} {
		if strings.Contains(got, secret) {
			t.Errorf("errorDetail shows the secret %q:\n%s", secret, got)
		}
	}

	long := errorDetail(routingerr.Evidence{HasRPCError: true, RPCCode: -32000, RPCMessage: "boom",
		RPCData: `{"lines": [` + strings.Repeat(`"a line of the agent's error output",`, 400) + `"end"]}`})
	if len(long) > maxErrorDetail+64 || !strings.HasSuffix(long, "\n… (cut: the rest is in the daemon's log)") {
		t.Fatalf("a long error: %d bytes, ends %q", len(long), long[max(0, len(long)-80):])
	}
	body := strings.TrimSuffix(long, "\n… (cut: the rest is in the daemon's log)")
	if last := body[strings.LastIndexByte(body, '\n')+1:]; last != `    "a line of the agent's error output",` {
		t.Errorf("cut mid-line: last line %q", last)
	}
}
