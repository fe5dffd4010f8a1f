package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Fix is one permission tightened by Secure.
type Fix struct {
	Path string
	From fs.FileMode
	To   fs.FileMode
}

// Secure makes the data directory and the named files in it (the token, the
// database and its -wal/-shm) private to their owner: a directory or file
// that group or others may read, write or enter is chmod-ed to 0700 / 0600,
// and each change is returned so the caller can log it. Loose permissions
// are fixed rather than refused because they are nearly always an umask or
// a copy, and a daemon that will not start over them helps nobody; the log
// line says what was open. A missing file is skipped.
func Secure(dir string, files ...string) ([]Fix, error) {
	var fixes []Fix
	var errs []error
	check := func(path string, want fs.FileMode) {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return // not ours to change: the link's target may be shared on purpose
		}
		perm := st.Mode().Perm()
		if perm&0o077 == 0 {
			return
		}
		next := perm &^ 0o077
		if next&want != want {
			next |= want // keep the owner able to use it
		}
		if err := os.Chmod(path, next); err != nil {
			errs = append(errs, fmt.Errorf("tighten permissions of %s (mode %04o): %w", path, perm, err))
			return
		}
		fixes = append(fixes, Fix{Path: path, From: perm, To: next})
	}
	check(dir, 0o700)
	for _, f := range files {
		check(filepath.Join(dir, f), 0o600)
	}
	return fixes, errors.Join(errs...)
}

// ErrEmptyDatabase: the data directory was used before but its database
// file is empty, so starting would silently begin with no tasks.
var ErrEmptyDatabase = errors.New("database file is empty in a data directory that was used before")

// CheckDatabase refuses a zero-length database file in a data directory
// that has been used before (it holds a token file or task workspaces): a
// truncated copy, a full disk at creation, or a backup gone wrong would
// otherwise start as an empty database without a word. A missing file is a
// first start and fine.
func CheckDatabase(dir, dbFile string) error {
	path := filepath.Join(dir, dbFile)
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check database: %w", err)
	}
	if st.Size() != 0 {
		return nil
	}
	var evidence string
	for _, name := range []string{"token", "workspaces"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			evidence = name
			break
		}
	}
	if evidence == "" {
		return nil
	}
	return fmt.Errorf("%w: %s is 0 bytes, but %s exists in %s; the file was left untouched "+
		"(restore it from a backup, or delete it to start with an empty database)",
		ErrEmptyDatabase, path, filepath.Join(dir, evidence), dir)
}
