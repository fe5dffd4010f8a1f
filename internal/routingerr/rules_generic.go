package routingerr

import "strings"

// Provider-neutral rules: cancellation, usage-limit wording shared by the
// coding CLIs, local configuration problems, HTTP statuses and the weak
// fallbacks.

// cancelRules come first of all: a user's (or the daemon's) cancel is not a
// provider failure, whatever error text it left behind.
var cancelRules = []rule{
	{id: "generic.cancelled_flag.v1", band: bandCancel, code: "cancelled", class: ClassTerminal, conf: 1,
		evidence: func(ev *Evidence) bool { return ev.Cancelled }},
	{id: "go.context_canceled.v1", band: bandCancel, code: "cancelled", class: ClassTerminal, conf: 0.9,
		any: []string{"context canceled", "context cancelled"}},
}

var genericRules = []rule{
	// A server refusing a body over its size limit in words rather than a
	// 413 page: Go's http.MaxBytesReader ("http: request body too large",
	// net/http request.go), gateways' "The request body (or file) is too
	// large, please reduce the request body (or file) size and try again"
	// (wcode.net/api-error-reference). A replay sends the same body.
	// (Catalogue transport go-net-http-request-body-too-large, relays
	// wcode-request-body-too-large.)
	{id: "generic.request_body_too_large.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{"request body too large", "request body is too large", "request body (or file) is too large"}},
	// A web server's own 413 page with no status beside it (nginx's
	// client_max_body_size: "<title>413 Request Entity Too Large</title>"),
	// as a client prints the body it got: the body is over the server's
	// limit and a replay sends the same body.
	// With the status known, http.too_large.413.v1 decides it.
	{id: "http.too_large_page.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		gate:  []string{"<title>413 request entity too large</title>", "<h1>413 request entity too large</h1>"},
		check: "no HTTP status 413 is given beside the page",
		match: func(s *scan) int {
			if st, _ := s.httpStatus(); st == 413 {
				return -1
			}
			for _, k := range []string{"<title>413 request entity too large</title>", "<h1>413 request entity too large</h1>"} {
				if i := s.index(k, true); i >= 0 {
					return i
				}
			}
			return -1
		}},
	// Connect-RPC's ConnectError puts its code in front of the message:
	// "[invalid_argument] sentence cannot be empty", or the bare
	// "[invalid_argument]" when the message is empty (connectrpc/connect-es
	// packages/connect/src/connect-error.ts createMessage, the code as
	// codeToString's snake_case, protocol-connect/code-string.ts). Agents
	// built on Connect (Cursor's CLI, Windsurf's language server) show it as
	// "ConnectError: [invalid_argument]". The code is the server's verdict
	// on this request, so the bracketed code decides, before
	// python.net.v1 reads "ConnectError" as httpx's failed connection
	// (catalogue connect-rpc.jsonl). "[unauthenticated]" and
	// "[permission_denied]" need no rule of their own: the generic auth and
	// permission words already read them.
	{id: "connect.code_invalid_argument.v1", band: bandTerminal, code: "invalid_request", class: ClassTerminal, conf: 0.8,
		any: []string{"[invalid_argument]", "[out_of_range]"}},
	// "You've hit your session limit · resets 3:45pm" (Claude Code),
	// "You've hit your usage limit … try again at 3:32 PM" (Codex), "You've
	// reached your usage limit. Upgrade your plan or add credits to continue"
	// (the Codex app), and the Codex backend's usage_limit_reached message
	// when a wrapper keeps it but drops the type ("HTTP 429: The usage limit
	// has been reached"): a usage limit said to be reached, in either order.
	{id: "cli.usage_limit.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.9,
		gate: []string{"hit your ", "reached your usage limit", "usage limit", "limit will reset at", "out of extra usage", "out of codex messages",
			"weekly rate limit", "session rate limit"},
		match: func(s *scan) int {
			// Ollama Cloud names the window: "you (user) have reached your
			// session usage limit, upgrade for higher limits" (the 5-hour
			// session) and its weekly one (ollama.com/cloud plans); its
			// earlier plans' hourly one said "you've reached your hourly
			// usage limit, please wait or upgrade to continue".
			// The Copilot API names its windows too: "You've reached your
			// weekly rate limit. Please wait for your limit to reset on …"
			// (Copilot CLI), "Sorry, you've exceeded your weekly rate limit."
			// (user_weekly_rate_limited, Copilot Chat).
			for _, k := range []string{"reached your usage limit", "reached your session usage limit", "reached your weekly usage limit",
				"reached your hourly usage limit",
				"reached your weekly rate limit", "reached your session rate limit", "exceeded your weekly rate limit"} {
				if i := strings.Index(s.low, k); i >= 0 {
					return i
				}
			}
			if i := strings.Index(s.low, "hit your "); i >= 0 {
				rest := s.low[i+len("hit your "):]
				if j := strings.Index(rest, "limit"); j >= 0 && j <= 24 && strings.IndexByte(rest[:j], '\n') < 0 {
					return i
				}
				// Claude Code 2.1.332's team pool: "You've hit your team's
				// pooled group budget · resets Jul 1, 12am (UTC) · …" and its
				// model-credits variant "… budget. It resets Jun 30. /model to
				// switch models." (catalogue claude-code-requires-credits-pool-2.1.332).
				if strings.HasPrefix(rest, "team's pooled group budget") || strings.HasPrefix(rest, "team’s pooled group budget") {
					return i
				}
			}
			// The Codex app's banner "You’re out of Codex messages" (its
			// rate-limit-reset modal, codex.rateLimitResetModal.heading.rateLimitReached).
			for _, k := range []string{"limit will reset at", "out of extra usage", "out of codex messages"} {
				if i := strings.Index(s.low, k); i >= 0 {
					return i
				}
			}
			return usageLimitReached(s.low)
		}},

	// "5-hour limit reached ∙ resets 2pm", "Opus weekly limit reached ·
	// resets Oct 9, 10am": a limit and its reset on one line; warnings
	// ("Approaching …", "You've used 90% …") are not errors.
	{id: "cli.limit_resets.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate: []string{"resets "},
		match: func(s *scan) int {
			for off := 0; ; {
				j := strings.Index(s.low[off:], "resets ")
				if j < 0 {
					return -1
				}
				j += off
				off = j + 1
				ls := max(j-64, 0)
				ls += strings.LastIndexByte(s.low[ls:j], '\n') + 1
				line := s.low[ls:j]
				rest := s.low[j:min(len(s.low), j+96)]
				if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
					rest = rest[:nl]
				}
				if i := strings.Index(line, "limit"); i >= 0 && !strings.Contains(line, "approaching") && !strings.Contains(line, "you've used") &&
					!strings.Contains(line, "now using") && !strings.Contains(rest, "continuing with") {
					return ls + i
				}
			}
		}},
	{id: "tls.certificate.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.9,
		any: []string{"x509:", "certificate verification failed", "failed to verify certificate",
			"unable to verify the first certificate", "self signed certificate", "self-signed certificate",
			"unable to get local issuer certificate", "certificate has expired", "cert_has_expired",
			"self_signed_cert_in_chain", "depth_zero_self_signed_cert", "certificate_verify_failed",
			"ssl certificate", "certificate hostname mismatch", "ssl error (", "cert_altname_invalid",
			"does not match certificate's altnames", "wrong version number", "alert handshake failure",
			"tls: handshake failure", "alert protocol version", "does not look like a tls handshake", "net::err_cert",
			// OpenSSL 3 and BoringSSL name the alert by its reason code
			// ("SSL routines:OPENSSL_internal:TLSV1_ALERT_PROTOCOL_VERSION",
			// "SSLV3_ALERT_HANDSHAKE_FAILURE"), as Node's EPROTO prints it.
			"alert_protocol_version", "alert_handshake_failure",
			// The certificate refused in other stacks (catalogue
			// java-pkix-path, dotnet-remote-certificate-invalid,
			// rustls-unknown-issuer): Java's PKIX validation, .NET's
			// AuthenticationException, rustls under reqwest/hyper. Tried
			// before the connection rules, which would read the wrapper
			// ("SSLHandshakeException", "error trying to connect").
			"pkix path building failed", "unable to find valid certification path", "certpathvalidatorexception",
			"remote certificate is invalid", "invalidcertificate(", "invalid peer certificate"},
		// Claude Code lists two codes among its SSL errors that are the
		// connection's, not the certificate's: "Unable to connect to API:
		// SSL error (ERR_TLS_HANDSHAKE_TIMEOUT)" and "…
		// (ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC)" (2.1.112 cli.js;
		// catalogue claude-code-ssl-handshake-timeout-2.1.112).
		none: []string{"err_tls_handshake_timeout", "err_ssl_decryption_failed_or_bad_record_mac"}},
	// The agent binary is missing: a human must install it or fix PATH.
	// Each launcher's own words: Go's exec.ErrNotFound, a POSIX shell,
	// Node's spawn ENOENT, Neovim's vim.system ("ENOENT: no such file or
	// directory (cmd): 'claude-agent-acp'"), Rust's std::process on Windows
	// ("program not found"), cmd.exe's "is not recognized as an internal or
	// external command" (and its zh-CN text).
	{id: "exec.not_found.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.9,
		evidence: func(ev *Evidence) bool { return ev.ExitStatus == "exit status 127" },
		gate:     append([]string{" enoent"}, execNotFoundWords...),
		match: func(s *scan) int {
			for _, w := range execNotFoundWords {
				if i := strings.Index(s.low, w); i >= 0 {
					return i
				}
			}
			if i := strings.Index(s.low, "spawn "); i >= 0 && strings.Contains(s.low[i:], " enoent") {
				return i
			}
			return -1
		}},

	// The agent binary was found but the dynamic loader could not start it:
	// a shared library it links is missing ("codex-acp: error while loading
	// shared libraries: libssl.so.3: cannot open shared object file: No such
	// file or directory"). glibc's ld.so prints "%s: error while loading
	// shared libraries: %s%s%s" before exiting 127 (elf/dl-error-skeleton.c
	// fatal_error), and Cygwin the same words for a missing DLL
	// (winsup/cygwin/pinfo.cc, pinfo::status_exit; catalogue launchers
	// ldso-missing-shared-library, cygwin-missing-dll). A package to install
	// on the host, not a blip.
	{id: "exec.shared_library_missing.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"error while loading shared libraries"}},

	// The agent binary is there but is not one this host can run: the
	// kernel refuses the exec with ENOEXEC (a binary for another CPU or OS,
	// a script without its interpreter line) or, on macOS, EBADARCH. Each
	// launcher passes the C library's text on: Rust's io::Error ("Exec
	// format error (os error 8)", library/std/src/io/error.rs Display for an
	// OS error: "{detail} (os error {code})"), Go's os/exec ("fork/exec
	// <path>: exec format error", syscall ENOEXEC), Python's OSError
	// ("[Errno 8] Exec format error: '<path>'"), macOS's "Bad CPU type in
	// executable" (xnu bsd/sys/errno.h EBADARCH 86; catalogue launchers
	// rust-spawn-enoexec, go-fork-exec-format-error,
	// python-oserror-exec-format, macos-bad-cpu-type). Another install, not
	// another try.
	{id: "exec.format_error.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"exec format error", "bad cpu type in executable"}},

	// A helper an agent runs that must find the agent's own process above it
	// in the process tree, and did not: agent-kanban's `ak` ("Could not
	// locate ${runtime} process in ancestry. ak must be invoked from inside
	// a ${runtime} session.", saltbo/agent-kanban
	// packages/cli/src/agent/leader.ts at 972673ae; catalogue launchers
	// agent-kanban-runtime-not-in-ancestry). It was started outside the
	// agent's session (a plain shell, a shim that breaks the walk); starting
	// it the same way again finds the same tree.
	{id: "exec.outside_agent_session.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"process in ancestry. ak must be invoked from inside"}},

	// A GitHub Actions job that runs an agent (claude-code-action) asked for
	// the job's OIDC token and the runner gave it no endpoint: @actions/core's
	// getIDToken throws "Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env
	// variable" (or "…_REQUEST_TOKEN env variable") when the workflow lacks
	// `permissions: id-token: write` (npm:@actions/core@1.11.1
	// lib/oidc-utils.js), and claude-code-action wraps it as "Could not fetch
	// an OIDC token. Did you remember to add `id-token: write` to your
	// workflow permissions?" (anthropics/claude-code-action
	// src/github/token.ts getOidcToken). The runner sets those variables per
	// job from the workflow's permissions, so every attempt of the run gets
	// the same answer (claude-code-action retries three times, then fails);
	// the workflow file must change. Catalogue launchers
	// actions-core-oidc-request-url-unset, actions-core-oidc-request-token-unset,
	// claude-code-action-oidc-fetch-failed.
	{id: "github_actions.oidc_token_unavailable.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		any: []string{"unable to get actions_id_token_request_url env variable", "unable to get actions_id_token_request_token env variable",
			"could not fetch an oidc token. did you remember to add `id-token: write`"}},

	// npm itself could not start the agent (ACP clients launch adapters
	// with npx; JetBrains from its own runtime's cache): npm explains an
	// ENOENT in its exit report with "This is related to npm not being able
	// to find a file." (npm 11.19.1 lib/utils/error-message.js, case
	// 'ENOENT'; the message before it is e.g. @npmcli/package-json's "Could
	// not read package.json: …" for a half-written npx cache entry), and
	// npx refuses a package whose bin it cannot pick with "could not
	// determine executable to run" (libnpmexec lib/get-bin-from-manifest.js).
	// Launching again reads the same cache. npm's network failures say
	// "This is a problem related to network connectivity." and are not read
	// here. Tried before acp.process_exited.v1, which reads the client's
	// "ACP process exited unexpectedly" around the npm output.
	{id: "exec.npm_launch_failed.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"this is related to npm not being able to find a file", "could not determine executable to run"}},

	// The agent command started an editor instead of the agent: VS Code's
	// own argument parser (and its forks') warns about every flag it does
	// not know, "Warning: '{0}' is not in the list of known options, but
	// still passed to Electron/Chromium." (microsoft/vscode
	// src/vs/platform/environment/node/argvHelper.ts, parseAndValidate
	// errorReporter.onUnknownOption). An agent's stderr carrying it means
	// its launcher ran the editor's Electron binary (a companion spawning
	// process.execPath without ELECTRON_RUN_AS_NODE, a "code" on PATH where
	// the agent's CLI was expected), which then exits without speaking the
	// protocol; every start does the same. Tried before
	// acp.process_exited.v1, which reads the client's "ACP process exited
	// unexpectedly" around it (catalogue launchers
	// vscode-cli-unknown-option-electron).
	{id: "exec.editor_binary_as_agent.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"is not in the list of known options, but still passed to electron/chromium"}},

	// Bun's form of the same refusal (Claude Code's native binary, opencode):
	// a spawn error is a SystemError "<CODE>: <description>, <syscall>
	// '<file>'", the syscall uv_spawn on Windows (libuv) and posix_spawn
	// elsewhere (oven-sh/bun src/bun.js/api/bun/process.zig: the spawn's
	// error taken as .toError(.uv_spawn)), e.g. "EPERM: operation not
	// permitted, uv_spawn 'reg'" when Group Policy or an EDR blocks the
	// child (catalogue launchers bun-uv-spawn-eperm, bun-posix-spawn-eacces).
	// Only the refusals, as above.
	{id: "exec.bun_spawn_denied.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.8,
		any: []string{"eperm: operation not permitted, uv_spawn", "eacces: permission denied, uv_spawn",
			"eperm: operation not permitted, posix_spawn", "eacces: permission denied, posix_spawn"}},
	// The agent binary is there but may not be run: Node's child_process
	// reports a refused exec as "spawn <file> EACCES" (onexit: the syscall
	// is 'spawn ' + spawnfile, the message "${syscall} ${code}") and throws
	// any other spawn error as "spawn EPERM" (lib/internal/child_process.js;
	// catalogue launchers node-spawn-eacces, node-spawn-eperm-sync). A mode
	// bit or a security policy to fix, not a blip: a full process or file
	// table (EAGAIN, EMFILE, ENFILE) is not read here.
	{id: "exec.spawn_denied.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate:  []string{" eacces", " eperm"},
		check: "\"spawn \" before the code on its line, the code in capitals and ending there",
		match: func(s *scan) int {
			for off := 0; ; {
				i := strings.Index(s.low[off:], "spawn ")
				if i < 0 {
					return -1
				}
				i += off
				line := lineFrom(s.low, i)
				for _, code := range []string{" eacces", " eperm"} {
					if j := strings.Index(line, code); j >= 0 && errnoAt(s.raw, i+j+1, len(code)-1) {
						return i
					}
				}
				off = i + len("spawn ")
			}
		}},
	// The agent binary was built against a newer C library than the host
	// has: glibc's dynamic loader refuses it before main with "version
	// `GLIBC_2.34' not found (required by …)" (elf/dl-version.c
	// match_symbol; libstdc++'s GLIBCXX_ versions alike; catalogue launchers
	// glibc-version-not-found, glibcxx-version-not-found). Starting it again
	// fails the same way. A weak version is only a warning.
	{id: "exec.libc_version.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate:  []string{"version `glibc"},
		check: "\"' not found\" after it on its line, and not a weak version",
		match: func(s *scan) int {
			for off := 0; ; {
				i := strings.Index(s.low[off:], "version `glibc")
				if i < 0 {
					return -1
				}
				i += off
				if !strings.HasSuffix(s.low[:i], "weak ") && strings.Contains(lineFrom(s.low, i), "' not found") {
					return i
				}
				off = i + len("version `glibc")
			}
		}},

	// The agent binary rejects the arguments it was started with (an install
	// older or newer than the launcher expects): clap's "error: unexpected
	// argument 'app-server' found" (codex), commander's "error: unknown
	// option '--acp'" (Claude Code). Starting it again fails the same way.
	// Also clap's other two argument kinds (clap_builder/src/error/format.rs,
	// ErrorKind::InvalidValue / ValueValidation and InvalidSubcommand):
	// "error: invalid value 'untrusted' for '--ask-for-approval
	// <APPROVAL_POLICY>'" (then "[possible values: …]" or ": <why>") and
	// "error: unrecognized subcommand 'app-server'"; an invalid value only
	// when it names an argument as clap renders one ('--flag …', '-f', '<NAME>',
	// '[NAME]'), not a field or a setting.
	{id: "exec.bad_arguments.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate: []string{"error: unexpected argument '", "error: unknown option '", "error: invalid value '", "error: unrecognized subcommand '"},
		match: func(s *scan) int {
			if i := strings.Index(s.low, "error: unexpected argument '"); i >= 0 && strings.Contains(lineFrom(s.low, i), "' found") {
				return i
			}
			if i := strings.Index(s.low, "error: invalid value '"); i >= 0 {
				line := lineFrom(s.low, i)
				for _, w := range []string{"' for '-", "' for '<", "' for '["} {
					if strings.Contains(line, w) {
						return i
					}
				}
			}
			if i := strings.Index(s.low, "error: unrecognized subcommand '"); i >= 0 {
				return i
			}
			return strings.Index(s.low, "error: unknown option '")
		}},

	// The shell the agent is launched through cannot parse the launch
	// command (a quote left open in a profile's command line): bash's
	// "bash: -c: line 1: unexpected EOF while looking for matching `\"'"
	// and "syntax error near unexpected token", dash's "/bin/sh: 1: Syntax
	// error: Unterminated quoted string", zsh's "zsh: parse error near".
	// Only with the shell's prefix before it on the line: the same words
	// from a tool's own output say nothing about the launch. Starting it
	// again fails the same way; tried before net.stream_cut.v1, which would
	// read "unexpected EOF" as a cut stream.
	{id: "exec.shell_syntax.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.85,
		gate:  shellSyntaxWords,
		check: "no shell prefix (\"bash: \", \"/bin/sh: 1: \", \"-c: line 1: \") before it on its line",
		match: func(s *scan) int {
			for _, w := range shellSyntaxWords {
				for off := 0; ; {
					i := strings.Index(s.low[off:], w)
					if i < 0 {
						break
					}
					i += off
					head := lineWindow(s.low, i, 160, 0)
					if strings.Contains(head, "sh: ") || strings.Contains(head, "sh:1") || strings.Contains(head, "-c: line ") {
						return i
					}
					off = i + len(w)
				}
			}
			return -1
		}},

	// orchestratord's own launch failures (lifecycle and orchestrator
	// wording): the profile, its executable or its directory is wrong.
	{id: "orchestratord.agent_launch.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.95,
		evidence: func(ev *Evidence) bool {
			return ev.Phase == PhaseProcessStart && !ev.HasRPCError && ev.ExitStatus == "" && ev.Err != "" &&
				(strings.HasPrefix(ev.Err, "agent executable ") || strings.HasPrefix(ev.Err, "agent working directory ") ||
					strings.HasPrefix(ev.Err, "agent profile "))
		}},

	// Overload wording on an error-shaped line; prose saying "overloaded"
	// does not count.
	// "HTTP 200: Overloaded" (an agent's own summary of Anthropic's
	// overloaded_error in a stream) is the message after a separator too.
	// "overloaded" on an error line, or said of the service with a wait on
	// the same line: "Warp is currently overloaded. Please try again
	// later." (an agent's own service, no status, no body).
	{id: "generic.overloaded_text.v2", band: bandFallback, code: "overloaded", class: ClassTransient, conf: 0.6,
		gate:  []string{"overloaded"},
		check: checkErrorText,
		match: func(s *scan) int {
			if i := s.errorText("overloaded"); i >= 0 {
				return i
			}
			if i := s.index(": overloaded", false); i >= 0 {
				return i
			}
			return overloadedWithWait(s.low)
		}},
	// The agent died mid-turn with nothing we recognise: treat it like a lost
	// transport. At start-up a crash is more likely configuration: leave it.
	{id: "agent.exited_mid_turn.v1", band: bandFallback, code: "transport_lost", class: ClassTransient, conf: 0.5,
		match: func(s *scan) int {
			if s.ev.ExitStatus != "" && (s.ev.Phase == PhasePromptSend || s.ev.Phase == PhaseStreaming) {
				return max(0, len(s.raw)-ExcerptMax)
			}
			return -1
		}},
}

// statusRules read the HTTP status: a structured one from Evidence first,
// else one introduced by a marker in error text (see status.go).
var statusRules = []rule{
	// codex-rs's own line for a refused request (UnexpectedResponseError
	// "unexpected status 401 Unauthorized: {body}, url: …";
	// RetryLimitReachedError "exceeded retry limit, last status: 401
	// Unauthorized"): the credential or the account was refused, whatever
	// the paste shows after it; a later "stream disconnected before
	// completion: error sending request …" is the retry that followed, not a
	// separate outage. In the user band but listed here, so it runs after
	// every user rule that names the refusal better (region, challenge,
	// workspace) and before the transport band.
	{id: "codex.status_unauthorized.v1", band: bandUser, code: "auth", class: ClassUserAction, conf: 0.8,
		any: []string{"unexpected status 401 unauthorized", "last status: 401 unauthorized"}},
	{id: "codex.status_forbidden.v1", band: bandUser, code: "permission", class: ClassUserAction, conf: 0.8,
		any: []string{"unexpected status 403 forbidden", "last status: 403 forbidden"}},
	// reqwest's Kind::Builder ("builder error", " for url (…)" when known):
	// the request could not be built (a URL that does not parse, an API key
	// or header value with a character HTTP forbids). Nothing was sent, and
	// the same configuration builds the same bad request, even inside
	// Codex's "stream disconnected before completion: …".
	{id: "net.reqwest_builder.v1", band: bandUser, code: "config", class: ClassUserAction, conf: 0.75,
		any: []string{"builder error"}},
	// A wrapper that turns any exception into an HTTP error puts a language
	// runtime's own programming error where the provider's message goes:
	// litellm raises "RateLimitError: Error code: 429 - {'error': {'message':
	// \"VertexAIException - 'NoneType' object has no attribute
	// 'start_chat'\"…" around its own client's AttributeError. CPython words
	// these "'X' object has no attribute 'y'", "'X' object is not
	// subscriptable", "'X' object is not callable"; V8 "Cannot read
	// properties of undefined (reading 'y')". The status is the wrapper's, not
	// a provider's verdict, and the bug fails again on a replay: unclassified
	// (as ccswitch.transform_error.v1 reads cc-switch's 422), unless a band
	// above reads the provider's own words.
	{id: "wrapper.runtime_exception.v1", band: bandStatus, code: "unknown", class: ClassUnclassified, conf: 0.5,
		gate:  runtimeExceptionWords,
		check: "a status is stated",
		match: func(s *scan) int {
			if st, _ := s.httpStatus(); st == 0 {
				return -1
			}
			for _, w := range runtimeExceptionWords {
				if i := strings.Index(s.low, w); i >= 0 {
					return i
				}
			}
			return -1
		}},
	{id: "http.rate_limited.429.v1", band: bandStatus, code: "rate_limited", class: ClassTransient, conf: 0.8,
		match: func(s *scan) int {
			if s.longLimit() {
				return -1
			}
			return statusIs(429, 429)(s)
		}},
	{id: "http.auth.401.v1", band: bandStatus, code: "auth", class: ClassUserAction, conf: 0.8, match: statusIs(401, 401)},
	{id: "http.billing.402.v1", band: bandStatus, code: "billing", class: ClassUserAction, conf: 0.8, match: statusIs(402, 402)},
	{id: "http.permission.403.v1", band: bandStatus, code: "permission", class: ClassUserAction, conf: 0.8, match: statusIs(403, 403)},
	// 407 Proxy Authentication Required (RFC 9110 §15.5.8): a proxy between
	// the agent and the provider wants credentials it was not given (axios's
	// "Request failed with status code 407", lib/core/settle.js). The proxy
	// settings must change; a replay meets the same challenge. Catalogue:
	// transport-http-407-axios.
	{id: "http.proxy_auth.407.v1", band: bandStatus, code: "config", class: ClassUserAction, conf: 0.8, match: statusIs(407, 407)},
	// A 404 is read as an unknown model, not when the text names what is
	// missing and it is no model: an MCP server's expired session, "Error
	// POSTing to endpoint (HTTP 404): Session not found" (the MCP SDK's
	// StreamableHTTPClientTransport, as Claude Code relays it).
	{id: "http.not_found.404.v1", band: bandStatus, code: "model", class: ClassUserAction, conf: 0.6, match: statusIs(404, 404),
		none: []string{"session not found"}},
	{id: "http.timeout.408.v1", band: bandStatus, code: "network", class: ClassTransient, conf: 0.7, match: statusIs(408, 408)},
	{id: "http.too_large.413.v1", band: bandStatus, code: "invalid_request", class: ClassTerminal, conf: 0.8, match: statusIs(413, 413)},
	{id: "http.bad_request.4xx.v1", band: bandStatus, code: "invalid_request", class: ClassTerminal, conf: 0.6,
		match: func(s *scan) int {
			if st, pos := s.httpStatus(); st == 400 || st == 422 {
				return pos
			}
			return -1
		}},
	{id: "http.server_error.500.v1", band: bandStatus, code: "server_error", class: ClassTransient, conf: 0.8, match: statusIs(500, 501)},
	{id: "http.unavailable.5xx.v1", band: bandStatus, code: "unavailable", class: ClassTransient, conf: 0.8,
		match: func(s *scan) int {
			if st, pos := s.httpStatus(); st >= 502 && st <= 504 || st >= 520 && st <= 524 {
				return pos
			}
			return -1
		}},
	{id: "http.server_error.5xx.v1", band: bandStatus, code: "server_error", class: ClassTransient, conf: 0.7, match: statusIs(505, 599)},
	// A status with its reason phrase ("502 Bad Gateway") is a status too,
	// e.g. in a proxy's HTML page.
	{id: "http.gateway_text.v1", band: bandStatus, code: "unavailable", class: ClassTransient, conf: 0.7,
		gate:  gatewayPhrases,
		match: func(s *scan) int { return anyBounded(s.low, gatewayPhrases...) }},
	// Cloudflare's own 5xx error page names the status in its title
	// ("<title>api.openai.com | 520: Web server is returning an unknown
	// error</title>", "| 524: A timeout occurred"; catalogue
	// cloudflare-524-page-title): a status, when a client printed the page
	// but not the code and the paste stops before the page's "Error code
	// 520".
	{id: "http.cloudflare_title.v1", band: bandStatus, code: "unavailable", class: ClassTransient, conf: 0.7,
		gate:  []string{"<title>"},
		check: `no "<host> | 5NN: " in a <title>`,
		match: cloudflareTitleStatus},
	// An agent that passes on only the reason phrase ("Internal error: Bad
	// Gateway", opencode).
	{id: "http.reason_phrase.v1", band: bandFallback, code: "unavailable", class: ClassTransient, conf: 0.6,
		gate: reasonPhrases,
		match: func(s *scan) int {
			if i := s.errorText(reasonPhrases...); i >= 0 {
				return i
			}
			// Said of the service or model with a wait asked for on its line
			// ("The model is currently unavailable. Please try again
			// later."), not as a condition ("if … is unavailable").
			for _, w := range []string{"currently unavailable", "temporarily unavailable"} {
				if i := strings.Index(s.low, w); i >= 0 && strings.Contains(lineOf(s.low, i), "try again") {
					if head := lineWindow(s.low, i, 96, 0); !strings.Contains(head, "if ") && !strings.Contains(head, "when ") {
						return i
					}
				}
			}
			return -1
		}},
	// The status with its reason phrase, or with OpenRouter's message for an
	// upstream's failure as openai-node prints it ("429 Provider returned
	// error": `${status} ${message}`).
	{id: "http.too_many_requests_text.v1", band: bandStatus, code: "rate_limited", class: ClassTransient, conf: 0.7,
		gate: []string{"429 too many requests", "429 provider returned error"},
		match: func(s *scan) int {
			if s.longLimit() {
				return -1
			}
			return anyBounded(s.low, "429 too many requests", "429 provider returned error")
		}},
	// The reason phrase alone on an error line ("Error: Too Many
	// Requests", a gateway's {"error_msg":"Too many requests, …"}).
	{id: "http.too_many_requests_phrase.v1", band: bandFallback, code: "rate_limited", class: ClassTransient, conf: 0.6,
		gate:  []string{"too many requests"},
		check: checkErrorText,
		match: func(s *scan) int {
			if s.longLimit() {
				return -1
			}
			if i := s.errorText("too many requests"); i >= 0 {
				return i
			}
			// Or with a wait asked for on its line: "Too many requests from
			// this IP, please try again later." (express-rate-limit's
			// default message, as claude-relay-service sends it).
			// A condition described ("if you send too many requests, try
			// again later") is no failure reported.
			if i := strings.Index(s.low, "too many requests"); i >= 0 && strings.Contains(lineOf(s.low, i), "try again") {
				if head := lineWindow(s.low, i, 96, 0); !strings.Contains(head, "if ") && !strings.Contains(head, "when ") {
					return i
				}
			}
			return -1
		}},
	{id: "http.internal_error_text.v1", band: bandStatus, code: "server_error", class: ClassTransient, conf: 0.7,
		gate:  []string{"500 internal server error"},
		match: func(s *scan) int { return anyBounded(s.low, "500 internal server error") }},
}

// "request timeout" is 408's reason phrase (the Anthropic SDK's
// APIConnectionTimeoutError for a 408 without a body).
var reasonPhrases = []string{"bad gateway", "service unavailable", "gateway timeout", "currently unavailable", "request timeout",
	"temporarily unavailable"}

var gatewayPhrases = []string{"502 bad gateway", "503 service unavailable", "504 gateway timeout", "504 gateway time-out"}

// execNotFoundWords: a launcher could not find the program it was asked to
// start (see exec.not_found.v1).
// shellSyntaxWords: a POSIX shell could not parse the command it was given
// (see exec.shell_syntax.v1): bash 5's parse.y messages, dash's (its
// `Syntax error: "(" unexpected` too), zsh's and fish's.
var shellSyntaxWords = []string{"unexpected eof while looking for matching", "syntax error near unexpected token",
	"syntax error: unexpected end of file", "syntax error: unterminated quoted string",
	"syntax error: end of file unexpected", "syntax error: \"", "parse error near `",
	"unexpected end of string, quotes are not balanced"}

var execNotFoundWords = []string{"executable file not found", ": command not found", "no such file or directory (cmd)",
	"program not found", "is not recognized as an internal or external command", "不是内部或外部命令",
	// Hosts that look the agent's CLI up before they spawn it and say so
	// in their own words: claudian ("Claude CLI not found",
	// src/providers/claude/execution/ClaudeExecutionRequestEncoder.ts at
	// edd89f94; earlier "Claude CLI not found. Please install Claude Code
	// CLI.") and the Python Agent SDK's CLINotFoundError ("Claude Code not
	// found. Install with: …", "Claude Code not found at: <path>",
	// _internal/transport/subprocess_cli.py at e8bde60; catalogue launchers
	// claudian-claude-cli-not-found, agent-sdk-py-cli-not-found-*).
	"cli not found", "claude code not found",
	// free-claude-code's launcher when shutil.which finds no Claude Code
	// binary ("Could not find Claude Code command: claude" / "Install
	// Claude Code with: npm install -g @anthropic-ai/claude-code", exit
	// 127; free_claude_code/cli/launchers/common.py, earlier
	// cli/entrypoints.py; emissary-router's "could not find Claude Code
	// command 'claude'" the same); the name must follow, not "… commands
	// directory". Catalogue agent-sdks free-claude-code-could-not-find-command.
	"could not find claude code command:", "could not find claude code command '"}

// usageLimitReached finds "usage limit" with "reached" at most a few words
// after it on its line ("usage limit reached", "The usage limit has been
// reached"), or -1. Warnings ("approaching your usage limit") say neither.
func usageLimitReached(low string) int {
	for off, n := 0, 0; n < 8; n++ {
		i := strings.Index(low[off:], "usage limit")
		if i < 0 {
			return -1
		}
		i += off
		off = i + len("usage limit")
		rest := low[off:min(len(low), off+24)]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		if strings.Contains(rest, "reached") && !strings.Contains(rest, "not reached") {
			return i
		}
	}
	return -1
}

// overloadedWithWait finds "is (currently) overloaded" or "are (currently)
// overloaded" on a line that also asks to wait ("try again", "retry
// later"), or "is temporarily overloaded" (Anthropic's words for a 529),
// with no "if"/"when" before it on the line: a state reported, not a
// condition described. "The service may be temporarily overloaded or
// down." (the Gemini API's 503 UNAVAILABLE, ai.google.dev troubleshooting)
// and "…, please try again later" (Z.ai's 1305 message, which hermes-agent
// prints under "HTTP 200:") say it of the service with a wait or "or down".
// It returns the offset, or -1.
func overloadedWithWait(low string) int {
	for _, w := range []string{" is temporarily overloaded", " are temporarily overloaded", " may be temporarily overloaded",
		" is currently overloaded", " are currently overloaded", " is overloaded", " are overloaded"} {
		i := strings.Index(low, w)
		if i < 0 {
			continue
		}
		l := lineWindow(low, i, 96, 96)
		head := lineWindow(low, i, 96, 0)
		if strings.Contains(head, "if ") || strings.Contains(head, "when ") {
			continue
		}
		// "The server is overloaded or not ready yet." (OpenAI's 503 as
		// openai-python words it) is a state reported as well.
		if w == " may be temporarily overloaded" {
			// Said as a maybe: only with the wait or the 503's "or down".
			if strings.Contains(l, "try again") || strings.Contains(l, "overloaded or down.") {
				return i + 1
			}
			continue
		}
		if strings.Contains(w, "temporarily") || strings.Contains(l, "try again") || strings.Contains(l, "retry later") ||
			strings.Contains(l, "please retry") || strings.Contains(l, "not ready yet") {
			return i + 1
		}
	}
	return -1
}

// runtimeExceptionWords: CPython's AttributeError and TypeError texts and
// V8's property read on undefined or null, as a wrapper passes them on.
var runtimeExceptionWords = []string{"' object has no attribute '", "' object is not subscriptable",
	"' object is not callable", "cannot read properties of undefined (reading '", "cannot read properties of null (reading '"}

// errnoAt: raw[i:i+n] is an errno name as Node prints it, in capitals and
// ending there (the line ends, or a space, quote, bracket or punctuation
// follows; not "EACCES.md").
func errnoAt(raw string, i, n int) bool {
	if i+n > len(raw) {
		return false
	}
	for k := i; k < i+n; k++ {
		if c := raw[k]; c < 'A' || c > 'Z' {
			return false
		}
	}
	if i+n == len(raw) {
		return true
	}
	return strings.IndexByte(" \t\r\n'\")]},;:", raw[i+n]) >= 0
}

// cloudflareTitleStatus: the offset of the 5NN in a "<title>… | 5NN: …"
// (Cloudflare's error-page title), or -1.
func cloudflareTitleStatus(s *scan) int {
	for off := 0; off < len(s.low); {
		i := strings.Index(s.low[off:], "<title>")
		if i < 0 {
			return -1
		}
		i += off
		seg := s.low[i:]
		if end := strings.Index(seg, "</title>"); end >= 0 {
			seg = seg[:end]
		} else if len(seg) > 200 {
			seg = seg[:200]
		}
		if j := strings.Index(seg, " | 5"); j >= 0 && j+7 <= len(seg) &&
			isDigit(seg[j+4]) && isDigit(seg[j+5]) && seg[j+6] == ':' {
			return i + j + 3
		}
		off = i + len("<title>")
	}
	return -1
}
