// Package realagent proves orchestratord's retry owner against a real ACP
// agent — @agentclientprotocol/claude-agent-acp, which drives the real
// Claude Code CLI — talking to a fake Anthropic Messages API on loopback.
//
// The tests are skipped unless ORCHESTRATORD_REAL_AGENT names the agent's
// executable (CONVENTIONS #11: real agents run in tests only behind an env
// var). They never reach a real provider: the agent's ANTHROPIC_BASE_URL is
// an httptest server on 127.0.0.1 that answers 529, 401 or 429 to the first
// POST /v1/messages and then a short streamed (SSE) reply, and logs every
// request it gets. Its "wall", while up, answers every POST /v1/messages
// with 529 overloaded_error.
//
// To run them (node ≥ 18, about 40s with the tests in parallel):
//
//	npm install --prefix /tmp/realagent @agentclientprotocol/claude-agent-acp
//	ORCHESTRATORD_REAL_AGENT=/tmp/realagent/node_modules/.bin/claude-agent-acp \
//	    go test -v -count=1 ./test/realagent/
//
// The package builds ../../cmd/orchestratord with -race, like test/e2e; set
// ORCHESTRATORD_REAL_AGENT_DAEMON=/path/to/orchestratord to test a prebuilt
// binary instead. ORCHESTRATORD_REAL_AGENT_VERBOSE=1 logs every provider
// request body and the daemon's logs. With -v, every test logs the evidence:
// the sanitised JSON-RPC error of each failed execution (read from the
// daemon's executions table), its classification and the decision, and the
// provider's requests with their timing.
//
// What each test proves:
//
//   - TestRealAgentOverloadedRecovers: 529 overloaded_error twice → one retry
//     notice (failure_code overloaded) updated in place, attempts 1/3 and 2/3,
//     never firing before retry_at; then the agent's reply; exactly one user
//     message; one provider request per attempt and the prompt once in the
//     last one.
//   - TestRealAgentAuthIsNeverRetried: 401 authentication_error → the red
//     banner at once (failure_code auth, class user_action), no notice, no
//     second request.
//   - TestRealAgentRateLimitedWaitsForTheHint: 429 with retry-after: 3 while
//     the rate_limited schedule says 1s → the retry is not scheduled before 3s.
//   - TestRealAgentResumeLoadsTheSession: with max_attempts 1 a 529 is a
//     banner at once; Resume starts a new process that session/loads the same
//     ACP session and sends the continuation, not the prompt again; SIGTERM
//     then leaves no agent process behind.
//   - TestRealAgentGateRidesOutAWall: three sessions against the wall, with
//     a short overload gate (threshold 3, first probe 1s, probes ≥1s apart).
//     The gate of "claude" opens and a probe fails; the wall is lowered; the
//     next probe's first reply text closes the gate and releases the others.
//     Every session ends with end_turn and no banner, its prompt once in the
//     chat and in what the model saw; while the gate was open the provider
//     saw one probe at a time, at least min_probe_interval apart.
//
// The retry tests run twice: "direct", the agent as it is, and
// "echo_filtered", with the test binary re-executed as a stdio proxy that
// drops the agent_message_chunk in which claude-agent-acp repeats the
// provider's error before failing the prompt (echofilter_test.go). The
// second shows what the rest of the retry owner does with a real agent when
// that echo is not counted as assistant output.
//
// The agent runs as profile "claude" (a temporary --agents file) with
// CLAUDE_CODE_MAX_RETRIES=0, so orchestratord owns every retry, telemetry
// and non-essential traffic off, and a private HOME and CLAUDE_CONFIG_DIR,
// so nothing of the developer's own Claude setup is read or written.
// ANTHROPIC_*, CLAUDE* and ORCHESTRATORD_* variables of the calling
// environment are not passed on to the daemon.
package realagent
