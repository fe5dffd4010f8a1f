// Package datadir owns the daemon's data directory as a whole: exactly one
// process may use it at a time (an OS lock held for the process's life),
// and its secrets are kept private (owner-only permissions).
//
// The lock is flock(2) on DIR/orchestratord.lock. The kernel releases it
// when the holder dies, however it dies, so a lock file left behind by a
// crashed daemon never blocks the next start; the file's content — the
// holder's pid, listen address and start time — is information for the
// error message only, never the lock itself.
//
// It never opens the database or reads the token's value; the store and
// the serve command do that once they hold the lock.
package datadir
