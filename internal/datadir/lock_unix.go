//go:build unix

package datadir

import (
	"errors"
	"os"
	"syscall"
)

var errWouldBlock = errors.New("lock held")

// tryLock takes an exclusive flock without blocking. flock locks belong to
// the open file description, so they are released when the holder exits,
// including by SIGKILL, and are not inherited by exec'd agents (the file is
// opened close-on-exec).
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errWouldBlock
		}
		return err
	}
}
