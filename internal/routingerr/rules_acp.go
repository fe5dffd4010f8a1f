package routingerr

import "strings"

// Agent Client Protocol: JSON-RPC errors from agents and their adapters, and
// the transport between us and the agent.
var acpRules = []rule{
	// ACP's "request cancelled" (-32800): the client, i.e. we on a user's
	// behalf, cancelled the turn.
	{id: "acp.request_cancelled.v1", band: bandCancel, code: "cancelled", class: ClassTerminal, conf: 0.95,
		evidence: func(ev *Evidence) bool { return ev.HasRPCError && ev.RPCCode == -32800 },
		gate:     acpCancelWords,
		none:     []string{"client.timeout", "while waiting for connection"},
		match:    func(s *scan) int { return anyBounded(s.low, acpCancelWords...) }},
	{id: "acp.error_kind_auth.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{`"errorkind":"authentication_failed"`, `"errorkind": "authentication_failed"`}},
	// ACP's auth_required (-32000). Other agents use -32000 for anything, so
	// the message decides, not the code.
	{id: "acp.auth_required.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"authentication required"}},
	// The ACP adapter lost its agent process ("The Claude Agent process
	// exited unexpectedly"); the acp-go-sdk's "peer disconnected before
	// response" when the adapter itself went away.
	{id: "acp.peer_disconnected.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.9,
		any: []string{"peer disconnected", "connection to agent closed", "query closed before response"}},
	// The Agent SDK's getProcessExitError: "Claude Code process terminated
	// by signal SIGKILL" (killed: an OOM, a reaper) is the process lost;
	// "Claude Code process exited with code 1" is the CLI failing on its own
	// (a bad setup, unsupported auth) with its reason on a stream the SDK
	// dropped, so nothing says a replay would fare better. A shell's exit
	// status 128+n for signal n still counts as killed.
	{id: "acp.process_exited.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.85,
		gate: []string{"process exited unexpectedly", "process exited with code ", "process terminated by signal"},
		match: func(s *scan) int {
			if i := anyBounded(s.low, "process exited unexpectedly", "process terminated by signal"); i >= 0 {
				return i
			}
			return exitedBySignal(s.low)
		}},
	// claude-agent-acp's data.errorKind convention, used when the message
	// itself says nothing more specific.
	{id: "acp.error_kind_server.v1", band: bandGeneric, code: "server_error", class: ClassTransient, conf: 0.7,
		any: []string{`"errorkind":"server_error"`, `"errorkind": "server_error"`}},
}

var acpCancelWords = []string{`"code":-32800`, `"code": -32800`, "request cancelled", "request canceled"}

// exitedBySignal finds "process exited with code N" with N a shell's
// killed-by-signal status (128+n, n < 32), or -1.
func exitedBySignal(low string) int {
	const k = "process exited with code "
	for off := 0; ; {
		i := strings.Index(low[off:], k)
		if i < 0 {
			return -1
		}
		i += off
		off = i + len(k)
		n, digits := 0, 0
		for j := off; j < len(low) && isDigit(low[j]) && digits < 4; j++ {
			n = n*10 + int(low[j]-'0')
			digits++
		}
		if digits > 0 && n > 128 && n < 160 {
			return i
		}
	}
}
