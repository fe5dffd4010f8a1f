package realagent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// retryConfig keeps the real-agent tests short without changing the shape
// of the schedules: overloaded 1s → 2s → 3s; a 429 is retried after 1s
// unless its hint asks for longer. Jitter stays at its default (delays grow
// by up to 20%).
const retryConfig = `retry:
  overloaded: {delays: [1s, 2s, 3s], budget: 3}
  network: {delays: [0s, 1s], budget: 2}
  rate_limited: {delays: [1s, 1s, 1s], budget: 3}
`

// startWithAgent starts a daemon whose profile "claude" runs the real agent
// against the fake provider p; with echoFilter, behind the echo filter.
// extraConfig is appended to retryConfig in the --config file (other
// top-level sections, e.g. overload:).
func startWithAgent(t *testing.T, p *provider, echoFilter bool, extraConfig ...string) *daemontest.Daemon {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(home, 0o700))
	env := map[string]string{
		"HOME":                                     home,
		"CLAUDE_CONFIG_DIR":                        filepath.Join(home, ".claude"),
		"IS_SANDBOX":                               "1", // the agent refuses bypassPermissions as root otherwise
		"CLAUDE_CODE_MAX_RETRIES":                  "0", // orchestratord owns retries
		"ANTHROPIC_BASE_URL":                       p.srv.URL,
		"ANTHROPIC_API_KEY":                        "sk-ant-dummy-realagent-test-key-000000000000",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
		"DISABLE_BUG_COMMAND":                      "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	command := agentPath
	if echoFilter {
		self, err := os.Executable()
		require.NoError(t, err)
		command, env[filterEnv] = self, agentPath
	}
	agents, err := json.Marshal(map[string]any{"agents": map[string]any{
		"claude": map[string]any{"command": command, "env": env},
	}})
	require.NoError(t, err)
	agentsFile := filepath.Join(dir, "agents.yaml")
	require.NoError(t, os.WriteFile(agentsFile, agents, 0o600))
	configFile := filepath.Join(dir, "config.yaml")
	config := retryConfig + strings.Join(extraConfig, "\n")
	require.NoError(t, os.WriteFile(configFile, []byte(config), 0o600))
	return startDaemon(t, filepath.Join(dir, "data"), "--agents", agentsFile, "--config", configFile)
}
