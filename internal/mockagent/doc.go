// Package mockagent is a real ACP agent (acp-go-sdk, agent side, over
// stdio) with failure scenarios chosen by the prompt text. It runs as
// `orchestratord mock-agent` and lets every layer above it be tested
// against real processes and real wire shapes, without API keys.
//
// Scenarios are the first word of the prompt's first line:
//
//	/overloaded[:N]         -32603 "Internal error: API Error: 529 {…overloaded_error…}"
//	/conn-closed[:N]        streams two chunks, then -32603 "…Connection closed mid-response…"
//	/rate-limit[:N[:SECS]]  -32603 429 rate_limit_error with "try again in SECSs" and
//	                        "retry-after: SECS" (also data.headers["retry-after"]); SECS default 2
//	/usage-limit[:N[:SECS]] -32603 "Claude AI usage limit reached|<epoch>": the reset SECS from
//	                        now, or the next full hour without SECS
//	/auth[:N]               -32000 "Authentication required", data.details "Invalid API key · Please run /login"
//	/too-long[:N]           -32603 400 "prompt is too long: 212345 tokens > 200000 maximum"
//	/crash[:N]              streams a chunk, then the process exits with status 1
//	/slow[:MS]              ten chunks over MS milliseconds (default 3000); honours session/cancel
//	/tool                   tool_call (raw input {"path": "."}), session/request_permission,
//	                        tool_call_update (completed with raw output {"files": […]} if
//	                        allowed, failed if not), then a reply
//	/wall                   a provider shared by every session: the 529 of /overloaded while
//	                        the wall is up (SetWall, a file in StateDir), "Echo: <prompt>"
//	                        otherwise; every /wall prompt is logged (WallRequests).
//	                        Wall.Hang holds prompts unanswered instead; Wall.FailAfter
//	                        delays the 529; Wall.Models limits the wall to agents of those
//	                        models (Config.Model, --model); "/wall:MS"
//	                        takes MS more to end the turn after its reply
//	/leak[:N]               streams a 529 line carrying planted secrets (SetLeak, else
//	                        FakeSecrets, plus an inherited ORCHESTRATORD_TOKEN), logs it
//	                        to stderr, then fails with it (message and data)
//	/hang[:N]               sends nothing and answers only session/cancel (stop reason
//	                        cancelled), the first N prompts: an agent retrying in silence
//	/silent[:MS]            sends nothing for MS milliseconds, then "Echo: <prompt>"
//	/tokens[:IN[:OUT[:MICROS]]] "Echo: <prompt>", then a usage_update (context used of a
//	                        200,000 window, the session's cost so far: MICROS millionths
//	                        of a USD per turn) and the turn's usage (IN, OUT tokens) in
//	                        the response; defaults 1200, 340, 12500
//	/model@ID               the session's model becomes ID (mock-fast or mock-smart),
//	                        announced as a config_option_update; then "Echo: <prompt>"
//	anything else           "Echo: <prompt>" in at least three chunks
//
// Sessions report their model (mock-fast by default) as a config option of
// category "model" and as the unstable models state, or one of them or
// neither (Config.Models), and take another through session/set_config_option
// or session/set_model.
//
// A failing scenario's name may carry a model, "/overloaded@gpt-4o:2" or
// "/wall@o3": its error data then has "model": "<model>", as provider errors
// that name the model do (the model may not contain ':').
//
// N is how many prompts fail before the scenario recovers: default 1 for
// overloaded, conn-closed, rate-limit and crash; unlimited for usage-limit,
// auth and too-long. A recovered scenario replies "Recovered after N
// failures: Echo: <prompt>". Counters are keyed by task (ORCHESTRATORD_TASK_ID,
// else the agent session id) and scenario name, and live in StateDir, so
// they survive the new process every retry starts. A prompt that is not a
// scenario continues the failing scenario of the last user prompt in the
// session's history that named one ("continue" after a resume hits the
// same counter); a later /slow or /tool prompt ends that inheritance.
//
// Like real agents, the mock records the user prompt in the session history
// before it fails, and session/load replays that history (user_message_chunk
// and agent_message_chunk, each with a messageId) before answering.
//
// Every prompt received is logged in StateDir (ReceivedPrompts), with the
// process and agent session it reached.
//
// It never decides anything for the orchestrator and never touches stdout
// except through the protocol.
package mockagent
