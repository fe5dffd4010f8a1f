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
	// claude-agent-acp's data.errorKind: the Agent SDK's
	// SDKAssistantMessageError for the turn's last assistant error
	// (claude-agent-sdk 0.3.334 sdk.d.ts) or the adapter's own kinds. A
	// client with AIR session failures gets only "Internal error" and the
	// kind. "rate_limit" (a usage window and a per-minute 429 alike),
	// "invalid_request", "unknown" and "incomplete_tool_call" say too
	// little to decide alone; the message does.
	{id: "acp.error_kind_auth.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{`"errorkind":"authentication_failed"`, `"errorkind": "authentication_failed"`,
			`"errorkind":"oauth_org_not_allowed"`, `"errorkind":"cloud_credential_error"`}},
	{id: "acp.error_kind_billing.v1", band: bandUser, code: "billing", class: ClassUserAction, conf: 0.85,
		any: []string{`"errorkind":"billing_error"`, `"errorkind":"account_on_hold"`}},
	// 403 permission_error with error_code verification_required: the
	// organization must verify at the console.
	{id: "acp.error_kind_permission.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.85,
		any: []string{`"errorkind":"verification_required"`}},
	{id: "acp.error_kind_model.v1", band: bandUser, code: "model", class: ClassUserAction, conf: 0.85,
		any: []string{`"errorkind":"model_not_found"`}},
	// The response hit the output-token maximum: the same request stops
	// at the same place.
	{id: "acp.error_kind_output_limit.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{`"errorkind":"max_output_tokens"`}},
	{id: "acp.error_kind_overloaded.v1", band: bandTransient, code: "overloaded", class: ClassTransient, conf: 0.85,
		any: []string{`"errorkind":"overloaded"`}},
	// The adapter's own: the turn went idle without a result (the model
	// stream dropped), the query stream failed, the worker shut down.
	{id: "acp.error_kind_lost.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.8,
		any: []string{`"errorkind":"no_result"`, `"errorkind":"transport_lost"`, `"errorkind":"worker_shutdown"`}},
	// The Agent SDK could not start the CLI (sdk.mjs: "Claude Code native
	// binary at … exists but failed to launch. This usually means the
	// binary does not match this system's libc …", "… The spawn failed
	// (ENOENT) because its working directory does not exist", "Failed to
	// spawn Claude Code process: spawn … EACCES"): the install or cwd.
	{id: "acp.agent_launch_failed.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"exists but failed to launch", "failed to spawn claude code process",
			// claude-agent-acp 0.101.0 claude-cli.js: "The Claude CLI is
			// missing: expected …/claude. Keep claude from the release archive
			// …".
			"the claude cli is missing",
			// acpx's AgentSpawnError (src/errors.ts: "Failed to spawn agent
			// command: <command>", the ENOENT detail after it in later
			// releases; catalogue launchers acpx-agent-spawn-error).
			"failed to spawn agent command"},
		none: []string{"enomem", "eagain"}},
	// claude-agent-acp 0.101.0 (startup-failure.js): a CLI that refused to
	// start for a known cause says so in data.startupFailureReason
	// ("proxy_invalid": "Invalid proxy URL in HTTPS_PROXY: … Fix or unset
	// HTTPS_PROXY and restart Claude Code."). The reasons sign-in fixes come
	// as auth_required (-32000) and are acp.auth_required.v1's; any other
	// is the setup.
	{id: "acp.startup_failure.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any:   []string{`"startupfailurereason":`},
		check: "the error is not auth_required (-32000)",
		match: func(s *scan) int {
			if s.ev.HasRPCError && s.ev.RPCCode == -32000 {
				return -1
			}
			return s.locate(`"startupfailurereason":`)
		}},
	// acpx's PermissionPromptUnavailableError (src/errors.ts: "Permission
	// prompt unavailable in non-interactive mode"; OpenClaw prints it as
	// "AcpRuntimeError: …"): the agent asked for a permission and the
	// session's nonInteractivePermissions=fail refuses to ask; the
	// permission mode is the setting to change, a replay asks again.
	{id: "acp.permission_prompt_unavailable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"permission prompt unavailable in non-interactive mode"}},
	// Kimi Code's ACP server (0.37.0 to 0.38.x) refuses the stdio MCP
	// servers a client passes in session/new or session/load: its
	// acpMcpServersToConfigRecord throws "ACP stdio MCP server <name> does
	// not declare a runtime identity" for any entry without a type
	// (MoonshotAI/kimi-code packages/acp-server/src/convert.ts at d723cc47),
	// which reaches the client as -32603 with the words in data.details.
	// The client's MCP list or the agent's version is the thing to change;
	// the same session/new fails again (catalogue agents-more
	// kimi-acp-stdio-mcp-runtime-identity).
	{id: "kimi.acp_stdio_mcp_refused.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		all: []string{"acp stdio mcp server ", "does not declare a runtime identity"}},
	// ACP's auth_required (-32000). Other agents use -32000 for anything, so
	// the message decides, not the code.
	{id: "acp.auth_required.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.9,
		any: []string{"authentication required"}},
	// The ACP adapter lost its agent process ("The Claude Agent process
	// exited unexpectedly"); the acp-go-sdk's "peer disconnected before
	// response" when the adapter itself went away.
	{id: "acp.peer_disconnected.v1", band: bandTransport, code: "transport_lost", class: ClassTransient, conf: 0.9,
		any: []string{"peer disconnected", "connection to agent closed", "query closed before response",
			// The Agent SDK's transport to the CLI gone (claude-agent-sdk
			// 0.3.334 sdk.mjs: "Transport is closed", "ProcessTransport is not
			// ready for writing"), and a CLI that never answered initialize
			// ("… the prompt was not sent. Start a new session.").
			"transport is closed", "processtransport is not ready", "did not answer initialize"}},
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
	// An MCP client's McpError for a call to an MCP server (the TypeScript
	// SDK, @modelcontextprotocol/sdk 1.30.0 src/types.ts: "MCP error
	// ${code}: ${message}"; src/shared/protocol.ts raises -32001 "Request
	// timed out" on its own per-request timer and -32000 "Connection
	// closed" when the server goes away; a server's own failure arrives as
	// -32603 or -326xx with its message). It is a tool's failure, not the
	// model provider's: a timeout, a closed pipe or a 500 inside it is the
	// MCP server's, and replaying the turn as if the provider were
	// overloaded does not help. Unclassified, in the transient band so the
	// transport and status readings of its message do not decide; a
	// terminal or user reading (a bad tool argument, a schema the provider
	// refused) still does, and so does a provider error the agent printed
	// beside it (catalogue jsonrpc-acp mcp-sdk-*).
	{id: "mcp.client_error.v1", band: bandTransient, code: "unknown", class: ClassUnclassified, conf: 0.5,
		gate: []string{"mcp error -32"},
		none: []string{"api error", "error when talking to", "generatecontent", `"type":"error"`, "unexpected status",
			"stream disconnected", "overloaded_error", "rate_limit_error"},
		check: "the MCP error code is a number",
		match: func(s *scan) int {
			i := strings.Index(s.low, "mcp error -32")
			if i < 0 {
				return -1
			}
			j := i + len("mcp error -32")
			k := j
			for k < len(s.low) && k < j+4 && s.low[k] >= '0' && s.low[k] <= '9' {
				k++
			}
			if k == j || k >= len(s.low) || s.low[k] != ':' {
				return -1
			}
			return i
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
