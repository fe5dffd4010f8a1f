//go:build !unix

package datadir

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("lock held")

// tryLock: no OS lock on this platform; the data dir is not protected
// against a second daemon.
func tryLock(*os.File) error { return nil }
