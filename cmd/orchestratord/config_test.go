package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
)

func TestGateConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`overload:
  threshold: 5
  window: 1m
  deadline: 2h
  backoff: [15s, 1m]
  min_probe_interval: 5s
  probe_timeout: 90s
  release_rate: 200
`), 0o600))
	fc, err := loadFileConfig(path)
	require.NoError(t, err)
	oc, err := gateConfig("on", 1, fc)
	require.NoError(t, err)
	assert.False(t, oc.Disabled)
	assert.Equal(t, 5, oc.Threshold)
	assert.Equal(t, time.Minute, oc.Window)
	assert.Equal(t, 2*time.Hour, oc.Deadline)
	assert.Equal(t, []time.Duration{15 * time.Second, time.Minute}, oc.Backoff)
	assert.Equal(t, 5*time.Second, oc.MinProbeInterval)
	assert.Equal(t, 90*time.Second, oc.ProbeTimeout)
	assert.Equal(t, 200.0, oc.ReleaseRate)
	eff := oc.WithDefaults()
	assert.Equal(t, 5*time.Second, eff.FirstProbe, "unset values keep their defaults")

	oc, err = gateConfig("off", 0.5)
	require.NoError(t, err)
	assert.True(t, oc.Disabled)
	assert.Equal(t, 15*time.Minute, oc.WithDefaults().Deadline, "--retry-scale scales the gate too")

	_, err = gateConfig("maybe", 1)
	assert.ErrorContains(t, err, "--overload-gate must be on or off")
	for _, bad := range []string{"overload: {window: soon}", "overload: {threshold: 0}", "overload: {deadline: -1m}", "overload: {thresold: 3}",
		"overload: {release_rate: 0}", "overload: {min_probe_interval: -2s}"} {
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o600))
		fc, err := loadFileConfig(path)
		if err != nil {
			continue // unknown keys fail at parse time
		}
		_, err = gateConfig("on", 1, fc)
		assert.Error(t, err, bad)
	}
}

func TestOverloadGateFlagFromEnv(t *testing.T) {
	t.Setenv("ORCHESTRATORD_OVERLOAD_GATE", "off")
	cmd := newServeCmd()
	require.NoError(t, bindEnv(cmd.Flags()))
	v, err := cmd.Flags().GetString("overload-gate")
	require.NoError(t, err)
	assert.Equal(t, "off", v)
}

func TestProfileSilenceFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`agents:
  opencode:
    command: opencode
    args: [acp]
    silence_notice: 30s
    silence_limit: 3m
  qwen:
    command: qwen
    silence_notice: off
`), 0o600))
	fc, err := loadFileConfig(path)
	require.NoError(t, err)
	assert.Equal(t, lifecycle.Duration(30*time.Second), fc.Agents["opencode"].SilenceNotice)
	assert.Equal(t, lifecycle.Duration(3*time.Minute), fc.Agents["opencode"].SilenceLimit)
	assert.Equal(t, lifecycle.Duration(-1), fc.Agents["qwen"].SilenceNotice)
	assert.Zero(t, fc.Agents["qwen"].SilenceLimit, "unset: the daemon's default")

	require.NoError(t, os.WriteFile(path, []byte("agents:\n  x:\n    command: x\n    silence_limit: soon\n"), 0o600))
	_, err = loadFileConfig(path)
	require.Error(t, err, "a malformed duration is refused")
}

func TestProfileFallback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`agents:
  claude-opus:
    command: claude-code-acp
    env: {ANTHROPIC_MODEL: claude-opus-4-1}
    fallback: [claude-sonnet]
  claude-sonnet:
    command: claude-code-acp
    env: {ANTHROPIC_MODEL: claude-sonnet-4-5}
`), 0o600))
	fc, err := loadFileConfig(path)
	require.NoError(t, err)
	profiles, err := mergeProfiles(nil, fc)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude-sonnet"}, profiles["claude-opus"].Fallback)
	assert.Empty(t, profiles["claude-sonnet"].Fallback, "off unless configured")

	require.NoError(t, os.WriteFile(path, []byte("agents:\n  a:\n    command: a\n    fallback: [b]\n"), 0o600))
	fc, err = loadFileConfig(path)
	require.NoError(t, err)
	_, err = mergeProfiles(nil, fc)
	assert.EqualError(t, err, `orchestrator: agent "a": fallback "b" is not a configured agent (configured: a)`)
}

func TestUsageLimitConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`usage_limit:
  default: wait
  margin: 1m
  probe_every: 30m
  max_wait: 12h
  release_window: 20s
`), 0o600))
	fc, err := loadFileConfig(path)
	require.NoError(t, err)
	uc, err := usageLimitConfig(1, fc)
	require.NoError(t, err)
	assert.Equal(t, "wait", uc.Default)
	assert.Equal(t, time.Minute, uc.Margin)
	assert.Equal(t, 30*time.Minute, uc.ProbeEvery)
	assert.Equal(t, 12*time.Hour, uc.MaxWait)
	assert.Equal(t, 20*time.Second, uc.ReleaseWindow)
	for _, bad := range []string{"usage_limit: {default: sometimes}", "usage_limit: {probe_every: 1m}", "usage_limit: {margin: soon}",
		"usage_limit: {max_wait: 30d}", "usage_limit: {margn: 1s}"} {
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o600))
		fc, err := loadFileConfig(path)
		if err != nil {
			continue // unknown keys fail at parse time
		}
		_, err = usageLimitConfig(1, fc)
		assert.Error(t, err, bad)
	}
}
