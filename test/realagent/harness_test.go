package realagent

import (
	"os"
	"strings"
	"testing"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// cleanEnv is the test's environment without anything that could point the
// agent at a real provider or a real Claude setup.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "ORCHESTRATORD_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// startDaemon runs the daemon with debug logs in a clean environment.
func startDaemon(t *testing.T, dataDir string, extra ...string) *daemontest.Daemon {
	t.Helper()
	d := daemontest.StartEnv(t, cleanEnv(), dataDir, append([]string{"--log-level", "debug"}, extra...)...)
	t.Cleanup(func() {
		if verbose() && !t.Failed() {
			t.Logf("daemon logs:\n%s", d.Logs())
		}
	})
	return d
}
