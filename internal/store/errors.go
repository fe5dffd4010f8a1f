package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the store returns for one of these
// conditions wraps the sentinel, so callers test with errors.Is and never
// look at message text.
var (
	// ErrNotFound is returned when a row does not exist, including a
	// foreign key that points nowhere (a session for an unknown task).
	ErrNotFound = errors.New("store: not found")

	// ErrExists is returned when a row with the same primary key exists.
	ErrExists = errors.New("store: already exists")

	// ErrSeqConflict is returned by AppendEvent when the event's Seq is not
	// the session's last_seq+1: another writer got there first, or the
	// caller's view of the session is stale. Nothing was written.
	ErrSeqConflict = errors.New("store: event seq conflict")

	// ErrNotClaimed is returned by AppendEvent when its EventWrite.ClaimRetry
	// names a retry that is not pending with that generation and attempt
	// (already claimed, cancelled, superseded, or never parked). Nothing
	// was written.
	ErrNotClaimed = errors.New("store: pending retry not claimable")

	// ErrNotOwner is returned by a write of a fleet daemon (PostgreSQL,
	// --fleet) to a session whose lease another daemon holds: its
	// ownership passed on (issue 17). Nothing was written; it is not a
	// storage fault.
	ErrNotOwner = errors.New("store: session owned by another daemon")

	// ErrCorrupt is returned by Open when the data file is not an SQLite
	// database or fails PRAGMA quick_check. The file is left untouched.
	ErrCorrupt = errors.New("store: data file is corrupt")

	// ErrSchemaTooNew is returned by Open when the data file was written by
	// a newer orchestratord. The file is left untouched. The error is a
	// *SchemaTooNewError.
	ErrSchemaTooNew = errors.New("store: data file schema is newer than this binary")

	// ErrInvalid is returned for a request the store cannot apply as given
	// (a missing ID, an event seq below 1, invalid JSON). It is a bug in the
	// caller, never a state of the data.
	ErrInvalid = errors.New("store: invalid request")

	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("store: closed")
)

// SchemaTooNewError says which schema versions were involved when Open
// refused a data file from a newer binary. errors.Is(err, ErrSchemaTooNew)
// holds for it.
type SchemaTooNewError struct {
	Path  string // the data file
	Found int    // its PRAGMA user_version
	Known int    // the newest migration this binary carries
}

func (e *SchemaTooNewError) Error() string {
	return fmt.Sprintf("store: %s has schema version %d, but this orchestratord only knows versions up to %d; "+
		"the file was left untouched (run a newer orchestratord, or point --data-dir elsewhere)",
		e.Path, e.Found, e.Known)
}

// Is makes errors.Is(err, ErrSchemaTooNew) true.
func (e *SchemaTooNewError) Is(target error) bool { return target == ErrSchemaTooNew }
