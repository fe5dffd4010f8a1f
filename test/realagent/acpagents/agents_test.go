package acpagents

// The four agents: where each one's executable comes from, which fake it
// talks to, and the configuration written into its private HOME so that it
// reaches only that fake, with a dummy key, and hands its retries to
// orchestratord where it has a knob for that.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// agent is one real ACP agent under test.
type agent struct {
	name    string // the daemon profile name
	envVar  string // names the agent's executable; unset, its tests skip
	install string // how `make realagents` installs it
	// silentRetries: the agent retries provider failures by itself, with
	// nothing on the ACP wire, and no setting turns that off.
	silentRetries bool
	// wait bounds each step of a test: an agent start, its own silent
	// retries where it has them, and one daemon retry delay.
	wait    time.Duration
	newFake func(t *testing.T, prompts, replies []string, script map[int][]failure) *recorder
	// profile writes the agent's config into home and returns its profile.
	profile func(t *testing.T, exe, home, fakeURL string) profile
	// failures are the provider failures this agent is tested with.
	failures []failure
	// exhaust, when set, adds a scenario failing that many requests in a
	// row — more than the agent's own silent retries absorb — with this failure.
	exhaust     int
	exhaustWith failure
}

// profile is one entry of the daemon's --agents file.
type profile struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env"`
}

var (
	gemini = agent{
		name: "gemini", envVar: "ORCHESTRATORD_REAL_GEMINI", install: "@google/gemini-cli",
		wait: 150 * time.Second, newFake: newGeminiFake, profile: geminiProfile,
		// Gemini streams carry no error event: a stream error is a cut stream.
		failures: []failure{overloaded, rateLimited, serverError, dropped},
	}
	codex = agent{
		name: "codex", envVar: "ORCHESTRATORD_REAL_CODEX", install: "@zed-industries/codex-acp",
		wait: 240 * time.Second, newFake: newOpenAIFake, profile: codexProfile,
		failures: []failure{overloaded, rateLimited, serverError, dropped, streamError},
	}
	opencode = agent{
		name: "opencode", envVar: "ORCHESTRATORD_REAL_OPENCODE", install: "opencode-ai",
		silentRetries: true, wait: 240 * time.Second, newFake: newOpenAIFake, profile: opencodeProfile,
		exhaust: 6, exhaustWith: serverError, // opencode gives up after 6 attempts (~70s)
		failures: []failure{overloaded, rateLimited, serverError, dropped, streamError},
	}
	qwen = agent{
		name: "qwen", envVar: "ORCHESTRATORD_REAL_QWEN", install: "@qwen-code/qwen-code",
		silentRetries: true, wait: 240 * time.Second, newFake: newOpenAIFake, profile: qwenProfile,
		exhaust: 4, exhaustWith: dropped, // Qwen retries 5xx/429 for ~100s, a cut stream fewer times
		failures: []failure{overloaded, rateLimited, serverError, dropped, streamError},
	}
	allAgents = []agent{gemini, codex, opencode, qwen}
)

// exe is the agent's executable, or skips the test.
func (a agent) exe(t *testing.T) string {
	t.Helper()
	exe := os.Getenv(a.envVar)
	if exe == "" {
		t.Skipf("set %s=/path/to/%s to run against the real agent (npm %s; see make realagents)", a.envVar, a.name, a.install)
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("%s=%q: %v", a.envVar, exe, err)
	}
	return exe
}

// noProxy keeps loopback traffic off any proxy the environment names.
var noProxy = map[string]string{"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

func withBase(home string, extra map[string]string) map[string]string {
	env := map[string]string{"HOME": home, "NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}
	for k, v := range noProxy {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

// geminiProfile: Gemini CLI in ACP mode with an API key (dummy), its base
// URL on the fake, one attempt per request (general.maxAttempts=1: no
// retries of its own), and one model so it never falls back silently.
func geminiProfile(t *testing.T, exe, home, fakeURL string) profile {
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "general": {"maxAttempts": 1, "enableAutoUpdate": false, "enableAutoUpdateNotification": false, "retryFetchErrors": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "model": {"name": "gemini-2.5-flash"},
  "tools": {"useRipgrep": false},
  "ide": {"enabled": false},
  "advanced": {"autoConfigureMemory": false}
}
`)
	return profile{Command: exe, Args: []string{"--acp"}, Env: withBase(home, map[string]string{
		"GEMINI_API_KEY":           "dummy-gemini-key-realagent-test",
		"GOOGLE_GEMINI_BASE_URL":   fakeURL,
		"GEMINI_CLI_NO_RELAUNCH":   "true", // no child process with a bigger heap
		"GEMINI_TELEMETRY_ENABLED": "false",
	})}
}

// codexProfile: codex-acp with one custom provider on the fake (Responses
// API over SSE, no websockets, no OpenAI login) and no retries of its own.
func codexProfile(t *testing.T, exe, home, fakeURL string) profile {
	codexHome := filepath.Join(home, ".codex")
	writeFile(t, filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model = "gpt-5.4"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false
openai_base_url = "%[1]s/v1"

[model_providers.fake]
name = "fake (loopback)"
base_url = "%[1]s/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
requires_openai_auth = false
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 20000

[analytics]
enabled = false

[feedback]
enabled = false
`, fakeURL))
	return profile{Command: exe, Env: withBase(home, map[string]string{
		"CODEX_HOME":      codexHome,
		"OPENAI_API_KEY":  "sk-dummy-realagent-test-key",
		"OPENAI_BASE_URL": fakeURL + "/v1",
		"RUST_LOG":        "warn",
		"NO_BROWSER":      "1",
	})}
}

// opencodeProfile: `opencode acp` with one OpenAI-compatible provider on the
// fake (chat completions), and the catalogue fetch, updates, sharing, LSP
// downloads and plugins off. It has no setting for its own retries.
func opencodeProfile(t *testing.T, exe, home, fakeURL string) profile {
	cfg := filepath.Join(home, ".config")
	writeFile(t, filepath.Join(cfg, "opencode", "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake (loopback)",
      "options": {"baseURL": "%s/v1", "apiKey": "sk-dummy-realagent-test-key"},
      "models": {"fake-model": {"name": "Fake model", "tool_call": true, "limit": {"context": 128000, "output": 4096}}}
    }
  },
  "enabled_providers": ["fake"],
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled",
  "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"}
}
`, fakeURL))
	env := withBase(home, map[string]string{
		"XDG_CONFIG_HOME": cfg,
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
	})
	for _, k := range []string{"MODELS_FETCH", "AUTOUPDATE", "SHARE", "LSP_DOWNLOAD", "DEFAULT_PLUGINS", "CLAUDE_CODE", "EXTERNAL_SKILLS"} {
		env["OPENCODE_DISABLE_"+k] = "1"
	}
	env["OPENCODE_PURE"] = "1"
	return profile{Command: exe, Args: []string{"acp"}, Env: env}
}

// qwenProfile: Qwen Code in ACP mode with the OpenAI auth type on the fake
// (chat completions), maxRetries 0 (it retries 5xx and 429 regardless).
func qwenProfile(t *testing.T, exe, home, fakeURL string) profile {
	writeFile(t, filepath.Join(home, ".qwen", "settings.json"), `{
  "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true, "enableAutoUpdate": false},
  "model": {"name": "fake-model", "generationConfig": {"maxRetries": 0}},
  "tools": {"useRipgrep": false},
  "ide": {"enabled": false}
}
`)
	base := fakeURL + "/v1"
	return profile{Command: exe, Args: []string{"--acp", "--auth-type", "openai", "--openai-base-url", base, "-m", "fake-model"},
		Env: withBase(home, map[string]string{
			"OPENAI_API_KEY":         "sk-dummy-realagent-test-key",
			"OPENAI_BASE_URL":        base,
			"OPENAI_MODEL":           "fake-model",
			"QWEN_CODE_NO_RELAUNCH":  "true",
			"GEMINI_CLI_NO_RELAUNCH": "true",
		})}
}
