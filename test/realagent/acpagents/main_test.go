package acpagents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// daemonEnv optionally names a prebuilt orchestratord to test instead of
// building ../../../cmd/orchestratord with -race.
const daemonEnv = "ORCHESTRATORD_REAL_AGENT_DAEMON"

func TestMain(m *testing.M) {
	named := false
	for _, a := range allAgents {
		named = named || os.Getenv(a.envVar) != ""
	}
	if !named {
		os.Exit(m.Run()) // every test skips; nothing to build
	}
	dir, err := os.MkdirTemp("", "orchestratord-acpagents-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary := os.Getenv(daemonEnv)
	if binary == "" {
		binary = filepath.Join(dir, "orchestratord")
		build := exec.Command("go", "build", "-race", "-o", binary, "../../../cmd/orchestratord")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build orchestratord:", err)
			os.Exit(1)
		}
	}
	daemontest.Binary = binary
	code := m.Run()
	printMatrix(os.Stdout)
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil { // every fake's handlers and every reader end with its test
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

func verbose() bool { return os.Getenv("ORCHESTRATORD_REAL_AGENT_VERBOSE") != "" }
