package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/notify"
)

func writeConfig(t *testing.T, text string) fileConfig {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	fc, err := loadFileConfig(path)
	require.NoError(t, err)
	return fc
}

func TestNotifyConfig(t *testing.T) {
	fc := writeConfig(t, `notify:
  base_url: http://box.lan:7420
  long_wait: 5m
  queue: 64
  webhooks:
    - name: slack
      url: https://hooks.slack.com/services/T000/B000/XXXX
      events: [needs_you, waiting]
      template: '{"text": {{json .Summary}}}'
    - url: https://ntfy.sh/my-topic
      content_type: text/plain
      headers: {Title: orchestratord}
      template: "{{.Summary}}"
      timeout: 3s
      attempts: 2
      backoff: [2s, 10s]
`)
	nc, err := notifyFromFiles(fc)
	require.NoError(t, err)
	assert.Equal(t, "http://box.lan:7420", nc.BaseURL)
	assert.Equal(t, 5*time.Minute, nc.LongWait)
	assert.Equal(t, 64, nc.Queue)
	require.Len(t, nc.Webhooks, 2)
	assert.Equal(t, []notify.Kind{notify.NeedsYou, notify.Waiting}, nc.Webhooks[0].Events)
	w := nc.Webhooks[1]
	assert.Equal(t, "text/plain", w.ContentType)
	assert.Equal(t, map[string]string{"Title": "orchestratord"}, w.Headers)
	assert.Equal(t, 3*time.Second, w.Timeout)
	assert.Equal(t, 2, w.Attempts)
	assert.Equal(t, []time.Duration{2 * time.Second, 10 * time.Second}, w.Backoff)

	none, err := notifyFromFiles(writeConfig(t, "retry: {jitter: 0.1}\n"))
	require.NoError(t, err)
	assert.Empty(t, none.Webhooks, "no notify: section, no webhooks")
}

func TestNotifyConfigErrors(t *testing.T) {
	for text, want := range map[string]string{
		"notify: {webhooks: [{url: 'ntfy.sh/x'}]}":                       "notify.webhooks[0].url",
		"notify: {webhooks: [{url: 'http://x', events: [done]}]}":        `unknown event "done"`,
		"notify: {webhooks: [{url: 'http://x', template: '{{.Nope}}'}]}": "notify.webhooks[0].template",
		"notify: {webhooks: [{url: 'http://x', timeout: soon}]}":         "notify.webhooks[0].timeout",
		"notify: {webhooks: [{url: 'http://x', attempts: 0}]}":           "attempts must be at least 1",
		"notify: {long_wait: 1 hour}":                                    "notify.long_wait",
		"notify: {webhooks: [{url: 'http://x', secret: 1}]}":             "unknown field",
	} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		fc, err := loadFileConfig(path)
		if err == nil {
			_, err = notifyFromFiles(fc)
		}
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}
