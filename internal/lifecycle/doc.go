// Package lifecycle owns agent processes: it launches an agent in its own
// process group, speaks ACP to it through acp-go-sdk (initialize,
// session/new or session/load, session/prompt, session/cancel), streams
// live session/update notifications as typed Events, and tears the whole
// group down (session/cancel, SIGTERM, SIGKILL after a grace period).
//
// On failure it returns *FailureError carrying routingerr.Evidence: the
// agent's JSON-RPC error, the exit status, a bounded stderr tail, the phase
// and whether the turn produced output or tool activity. It never decides
// whether to retry and never interprets error text: that is routingerr's
// and the orchestrator's job.
//
// Permission requests are answered from Profile.Permission without asking
// anyone. The default is "allow": agents run unattended in the task's own
// work directory, and rejecting would stall every tool call; a profile that
// must stay read-only sets "reject".
//
// The client advertises no fs or terminal capabilities, so agents use their
// own file and shell access inside the work directory.
package lifecycle
