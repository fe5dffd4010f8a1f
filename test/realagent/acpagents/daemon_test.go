package acpagents

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the daemon's own driver, read-only here

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// retryConfig keeps the tests short without changing the shape of the
// schedules: overloaded 1s → 2s → 3s; a 429 is retried after 1s unless its
// hint asks for longer (hintSeconds is 3).
const retryConfig = `retry:
  overloaded: {delays: [1s, 2s, 3s], budget: 3}
  network: {delays: [0s, 1s], budget: 2}
  rate_limited: {delays: [1s, 1s, 1s], budget: 3}
`

// providerVars are prefixes of variables that could point an agent at a
// real provider or a developer's own setup; the daemon does not pass them on.
var providerVars = []string{"ANTHROPIC_", "CLAUDE", "ORCHESTRATORD_", "OPENAI_", "GEMINI_", "GOOGLE_", "CODEX_",
	"QWEN_", "DASHSCOPE_", "OPENCODE_", "OPENROUTER_", "XDG_", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "all_proxy"}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, p := range providerVars {
			keep = keep && !strings.HasPrefix(k, p)
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// startDaemon runs the daemon with the agent's profile (and nothing else of
// the caller's environment that names a provider) and the short schedules.
func startDaemon(t *testing.T, a agent, p profile) *daemontest.Daemon {
	t.Helper()
	dir := t.TempDir()
	agents, err := json.Marshal(map[string]any{"agents": map[string]any{a.name: p}})
	require.NoError(t, err)
	agentsFile := filepath.Join(dir, "agents.yaml")
	require.NoError(t, os.WriteFile(agentsFile, agents, 0o600))
	configFile := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(configFile, []byte(retryConfig), 0o600))
	d := daemontest.StartEnv(t, cleanEnv(), filepath.Join(dir, "data"),
		"--log-level", "debug", "--agents", agentsFile, "--config", configFile)
	t.Cleanup(func() {
		if verbose() {
			t.Logf("daemon logs:\n%s", d.Logs())
		}
	})
	t.Cleanup(func() { stopDaemon(t, d) }) // before daemontest's SIGKILL
	return d
}

// stopDaemon stops the daemon with SIGTERM, which ends its agents, and
// checks that no agent process group outlives it (codex-acp, for one,
// ignores the end of its stdin): one that does is a test failure, and is
// killed so that it does not outlive the test either.
func stopDaemon(t *testing.T, d *daemontest.Daemon) {
	d.Stop(t)
	for _, l := range d.LogLines("agent started") {
		pid, ok := l["pid"].(float64)
		if !ok {
			continue
		}
		pgid := int(pid)
		gone := func() bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }
		deadline := time.Now().Add(10 * time.Second)
		for !gone() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !gone() {
			t.Errorf("agent process group %d outlived the daemon's exit by 10s; killing it", pgid)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}

// agentHome is a private HOME for the agent. Agents may still be writing
// caches into it as they exit, so it is removed without failing the test.
func agentHome(t *testing.T) string {
	home, err := os.MkdirTemp("", "orchestratord-acpagents-home-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	return home
}

// execution is one row of the daemon's executions table.
type execution struct {
	Attempt        int
	Outcome        string
	Classification map[string]any
	RawEvidence    string
}

// executions reads a session's runs from the daemon's database (query-only,
// so it is safe next to a running daemon).
func executions(t *testing.T, d *daemontest.Daemon, sessionID string) []execution {
	t.Helper()
	dsn := "file:" + filepath.Join(d.DataDir, "orchestratord.db") + "?" + url.Values{
		"_pragma": {"busy_timeout(5000)", "query_only(1)"},
	}.Encode()
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT attempt, outcome, coalesce(evidence, ''), coalesce(classification, '')
		FROM executions WHERE session_id = ? ORDER BY started_at, attempt`, sessionID)
	require.NoError(t, err)
	defer rows.Close()
	var out []execution
	for rows.Next() {
		var x execution
		var cls string
		require.NoError(t, rows.Scan(&x.Attempt, &x.Outcome, &x.RawEvidence, &cls))
		_ = json.Unmarshal([]byte(cls), &x.Classification)
		out = append(out, x)
	}
	require.NoError(t, rows.Err())
	return out
}
