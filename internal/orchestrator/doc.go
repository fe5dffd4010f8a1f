// Package orchestrator owns tasks, sessions and turns: it drives agent
// executions through lifecycle, classifies their failures with routingerr,
// owns the per-session retry loop (park, persist, arm, fire, recover) and
// the timers and persistence of the provider overload gates that sit
// between the retry policy and those timers (the gates' decisions are
// internal/overload's), and publishes every change as a per-session event
// with a monotonic seq.
//
// It never touches sockets or SQL: wsapi calls it, and it persists through
// the Store interface declared here.
package orchestrator
