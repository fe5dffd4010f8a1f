package browser

import (
	"testing"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// No race detector in the daemon: these tests exercise the page; the
// daemon's races are the business of its own packages, and a plain build
// starts faster. goleak checks every browser, proxy and reader is shut down.
func TestMain(m *testing.M) { daemontest.Main(m, false) }
