// Package overload decides provider-wide overload coordination (DESIGN §6):
// when several sessions of the same provider key fail with an overload-type
// error within a short window, a gate opens; one due session at a time
// becomes the probe while the others wait; a successful probe closes the
// gate and releases every waiting session over a short jittered window (at
// 1,000 sessions a second, within 5s); a failed probe backs the gate off
// (10s, 20s, 40s, 60s, then every 60s for one waiting session, n times as
// often for n waiting, never more often than every 2s: the gate never sends
// more than its waiters would on that schedule, and when many wait it sees
// the provider recover within 2s).
//
// It is pure: a Gate is a state machine fed with inputs (a failure was
// observed, a session is due, the probe timer fired, a turn succeeded, a
// session left) and a time, and it answers with decisions (proceed, wait,
// probe, expired, release these sessions at these times, wake me at T). It
// owns no clock, no timers, no goroutines and no I/O; the randomness of the
// release spread is injected. The orchestrator owns the timers (one per gate
// for the next probe, one per session for its release or deadline) and the
// persistence, and feeds the results back in.
//
// A Gate is not safe for concurrent use: its owner serialises calls.
package overload
