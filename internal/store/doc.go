// Package store is the durable state of orchestratord: tasks, sessions,
// each session's append-only event log and the current state of its chat
// messages, agent executions, parked (pending) retries, and the open
// provider overload gates.
//
// It is an embedded SQLite database (modernc.org/sqlite, pure Go) in one
// file, <data dir>/orchestratord.db, in WAL mode. The schema lives in
// migrations/*.sql, embedded in the binary and applied at Open; the file's
// PRAGMA user_version is the newest migration applied.
//
// The store keeps a user's history safe before anything else:
//   - A file that is not an SQLite database or fails PRAGMA quick_check is
//     refused (ErrCorrupt), and a file written by a newer binary is refused
//     (ErrSchemaTooNew). In both cases the file is never written to,
//     truncated or "repaired"; the user decides what to do with it.
//   - Every multi-row change is one transaction. AppendEvent in particular
//     appends an event and applies its effect on messages, the session and
//     the task atomically, and only if the event's seq is the next one, so
//     the event log and the chat it describes never disagree.
//   - ClaimPendingRetry is a single conditional UPDATE: a pending retry is
//     dispatched exactly once, however many timers race for it.
//
// Writes go through a single connection, so goroutines queue in Go rather
// than fail with SQLITE_BUSY; writes that queue while a commit runs share
// the next one (group commit, each write in its own savepoint, so each
// still succeeds or fails alone). Reads use a small pool and, thanks to
// WAL, never wait for a writer.
//
// The store holds no policy: it does not decide states, retries or
// schedules, does not publish events, and never reads a clock (every time
// it stores comes from the caller, or from the event being appended).
package store
