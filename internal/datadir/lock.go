package datadir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the lock's name inside the data directory.
const LockFile = "orchestratord.lock"

// ErrLocked: another live process holds the data directory. The error is a
// *LockedError naming the holder.
var ErrLocked = errors.New("data directory is in use by another orchestratord")

// Holder describes the process holding the lock, as it wrote itself into
// the lock file.
type Holder struct {
	PID       int       `json:"pid"`
	Addr      string    `json:"addr,omitempty"` // listen address; empty until it listens
	StartedAt time.Time `json:"started_at"`
	Hostname  string    `json:"hostname,omitempty"`
}

// LockedError says who holds the data directory.
type LockedError struct {
	Dir    string
	Holder *Holder // nil when the holder has not written its details yet
}

func (e *LockedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "data directory %s is in use by another orchestratord", e.Dir)
	if h := e.Holder; h != nil {
		fmt.Fprintf(&b, " (pid %d", h.PID)
		if h.Addr != "" {
			fmt.Fprintf(&b, ", listening on %s", h.Addr)
		}
		if !h.StartedAt.IsZero() {
			fmt.Fprintf(&b, ", started %s", h.StartedAt.UTC().Format(time.RFC3339))
		}
		if h.Hostname != "" {
			fmt.Fprintf(&b, ", host %s", h.Hostname)
		}
		b.WriteString(")")
	} else {
		b.WriteString(" (it has not written its pid yet)")
	}
	b.WriteString("; stop it first, or use another --data-dir")
	return b.String()
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is a held data-directory lock. Close releases it.
type Lock struct {
	dir    string
	f      *os.File
	holder Holder
}

// Acquire takes the lock of dir (which must exist) without waiting. When
// another live process holds it, the error is a *LockedError. On success
// the lock file holds this process's pid and start time; SetAddr adds the
// listen address once known. Writing the file is best effort: on a full
// disk the lock still holds, and SetAddr reports the write error.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, &LockedError{Dir: dir, Holder: readHolder(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	l := &Lock{dir: dir, f: f, holder: Holder{PID: os.Getpid(), StartedAt: time.Now().UTC(), Hostname: host}}
	// Best effort: the flock is the lock, the content only information, and
	// a daemon must still start (and show what it holds) on a full disk.
	// SetAddr writes it again and reports an error.
	_ = l.write()
	return l, nil
}

// SetAddr records the listen address in the lock file, for the message a
// second daemon prints.
func (l *Lock) SetAddr(addr string) error {
	l.holder.Addr = addr
	return l.write()
}

// Holder is what this process wrote into the lock file.
func (l *Lock) Holder() Holder { return l.holder }

func (l *Lock) write() error {
	b, err := json.Marshal(l.holder)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if _, err := l.f.WriteAt(append(b, '\n'), 0); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}

// Close releases the lock. The file stays (removing it would race with a
// process that just opened it); its stale content is harmless. Safe to
// call more than once.
func (l *Lock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := l.f.Close() // closing the last descriptor releases the flock
	l.f = nil
	return err
}

// readHolder reads the lock file's content; nil when it holds nothing
// readable (the holder is between locking and writing).
func readHolder(path string) *Holder {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID == 0 {
		return nil
	}
	return &h
}
