package realagent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

const (
	// agentEnv names the real agent's executable; unset, every test skips.
	agentEnv = "ORCHESTRATORD_REAL_AGENT"
	// daemonEnv optionally names a prebuilt orchestratord to test instead
	// of building ../../cmd/orchestratord.
	daemonEnv = "ORCHESTRATORD_REAL_AGENT_DAEMON"
)

var (
	agentPath string // the real agent's executable
	binary    string // orchestratord, built once for the package
)

func TestMain(m *testing.M) {
	if target := os.Getenv(filterEnv); target != "" {
		os.Exit(runEchoFilter(target)) // this process is an agent's stdio proxy, not a test run
	}
	agentPath = os.Getenv(agentEnv)
	if agentPath == "" {
		os.Exit(m.Run()) // every test skips; nothing to build
	}
	dir, err := os.MkdirTemp("", "orchestratord-realagent-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = os.Getenv(daemonEnv)
	if binary == "" {
		binary = filepath.Join(dir, "orchestratord")
		build := exec.Command("go", "build", "-race", "-o", binary, "../../cmd/orchestratord")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build orchestratord:", err)
			os.Exit(1)
		}
	}
	daemontest.Binary = binary
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil { // every reader and server goroutine ends with its test
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// requireAgent skips the test unless a real agent was named.
func requireAgent(t *testing.T) {
	t.Helper()
	if agentPath == "" {
		t.Skipf("set %s=/path/to/claude-agent-acp to run against a real agent", agentEnv)
	}
	if _, err := exec.LookPath(agentPath); err != nil {
		t.Fatalf("%s=%q: %v", agentEnv, agentPath, err)
	}
}

func verbose() bool { return os.Getenv("ORCHESTRATORD_REAL_AGENT_VERBOSE") != "" }
