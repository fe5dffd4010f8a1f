// Package orchestrator owns tasks, sessions and turns: it drives agent
// executions through lifecycle, classifies their failures with routingerr,
// owns the per-session retry loop (park, persist, arm, fire, recover) and
// publishes every change as a per-session event with a monotonic seq.
//
// It never touches sockets or SQL: wsapi calls it, and it persists through
// the Store interface declared here.
package orchestrator
