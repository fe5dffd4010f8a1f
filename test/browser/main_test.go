package browser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// binary is the orchestratord built once for the whole package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "orchestratord-browser-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// No -race: these tests exercise the page; the daemon's races are the
	// business of its own packages, and a plain build starts faster.
	binary = filepath.Join(dir, "orchestratord")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/orchestratord")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build orchestratord:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	// goleak checks that every browser, proxy and daemon reader was shut down.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}
