package orchestrator

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
)

// agent.list says which agents can start: the command resolves (on PATH,
// or as an absolute path) to an executable.
func TestAgentsSayWhichAreInstalled(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Profiles["gemini"] = lifecycle.Profile{Name: "gemini", Command: "orchestratord-test-no-such-agent"}
		c.Profiles["abs"] = lifecycle.Profile{Name: "abs", Command: "/nonexistent/bin/codex-acp"}
		c.Profiles["sh"] = lifecycle.Profile{Name: "sh", Command: "sh"}
	})
	self, err := os.Executable()
	require.NoError(t, err)
	got := map[string]AgentInfo{}
	for _, a := range h.svc.Agents() {
		got[a.Name] = a
	}
	assert.True(t, got["mock"].Installed)
	assert.Equal(t, self, got["mock"].Path)
	assert.True(t, got["mock"].Default)
	assert.True(t, got["sh"].Installed, "found on PATH")
	assert.NotEmpty(t, got["sh"].Path)
	for _, name := range []string{"gemini", "abs"} {
		assert.False(t, got[name].Installed, name)
		assert.False(t, got[name].Available, name)
		assert.Empty(t, got[name].Path, name)
	}
}
