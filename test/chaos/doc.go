// Package chaos is the fault suite of issue 10: it drives the real
// orchestratord binary (test/daemontest) and real mock-agent processes
// through many retry chains and streamed turns while it SIGKILLs the daemon
// at random moments and restarts it on the same data dir, kills agent
// processes, fills the disk of a small tmpfs and makes the data dir
// read-only, and after every round checks what a user must be able to rely
// on:
//
//   - no acknowledged prompt lost: every prompt the daemon answered OK is in
//     its session's history, once, after any number of restarts;
//   - no user turn sent to an agent twice: the mock agents' log of received
//     prompts (mockagent.ReceivedPrompts) holds each prompt at most once per
//     agent session;
//   - at most one retry notice per chain, and none left once nothing is
//     pending;
//   - every pending retry fires once, within FireTolerance of its retry_at
//     (or of the restart that re-armed it, when the daemon was down at
//     retry_at), or becomes an "interrupted" banner when a kill caught it
//     mid-dispatch, or the could-not-save banner when a full disk refused
//     its claim, or was superseded by the user;
//   - no session stuck in RUNNING (or with a pending retry, or a retry row
//     left "dispatching" while nothing runs) once the round settles,
//     restarts included; a busy session with no new event for StallTimeout
//     is stuck;
//   - a daemon started on a read-only data dir refuses and says why, or
//     acknowledges nothing it cannot save;
//   - nothing secret in the database, the event log (replayed from seq 0)
//     or the daemon's logs: the /leak scenario plants fake AWS, GitHub,
//     Slack and Stripe keys, a URL password, a token= field and the
//     daemon's own token in agent error output.
//
// Half the daemon kills wait for a retry to be claimed ("retry firing" in
// the log) and strike then, to catch it mid-dispatch.
//
// A round is self-contained and chosen by its seed: the tasks and prompts it
// creates, the follow-ups, stops, resumes and cancels it sends, and the
// fault it injects and when. Timing on a real machine is not deterministic,
// so a seed reproduces a round's schedule, not its exact interleaving.
//
// How a retry's firing is measured: the daemon logs "retry scheduled" (with
// retry_at), "pending retry re-armed" at a restart and "retry firing" when
// it claims a due retry, all stamped by its own clock; lateness is
// firing − max(retry_at, the restarted daemon serving), so a retry that came
// due while the daemon was down is measured from its return; retries due
// while the disk was full are not held to the tolerance.
//
// cmd/chaos runs many rounds (make chaos); chaos_test.go a few (make test).
package chaos
