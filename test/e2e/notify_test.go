package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// hookSink is a loopback webhook receiver that keeps every body.
type hookSink struct {
	mu     sync.Mutex // guards bodies
	bodies []string
}

func (h *hookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.bodies = append(h.bodies, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+string(b))
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (h *hookSink) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bodies...)
}

type hookEvent struct {
	Event     string     `json:"event"`
	TaskID    string     `json:"task_id"`
	SessionID string     `json:"session_id"`
	Title     string     `json:"title"`
	Text      string     `json:"text"`
	Reason    string     `json:"reason"`
	RetryAt   *time.Time `json:"retry_at"`
	Summary   string     `json:"summary"`
}

// The daemon tells a webhook, once each, that a task needs its user (an
// auth banner), that a turn finished, and that a task waits on a long
// retry; a second webhook gets a templated plain-text body for needs_you
// only.
func TestWebhooksHearEachMomentOnce(t *testing.T) {
	sink := &hookSink{}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
retry:
  rate_limited: {delays: [200ms], budget: 3}
  jitter: 0.01
notify:
  long_wait: 3s
  base_url: http://box.lan:7420
  webhooks:
    - name: json
      url: `+srv.URL+`/json
    - name: ntfy
      url: `+srv.URL+`/ntfy
      events: [needs_you]
      content_type: text/plain
      template: "{{.Title}}: {{.Text}}"
`), 0o600))
	d := daemontest.Start(t, t.TempDir(), "--config", cfg)
	c := daemontest.Dial(t, d)

	auth := daemontest.CreateTask(t, c, map[string]any{"title": "needs a login", "prompt": "/auth hello"})
	auth.Until(20*time.Second, daemontest.IsBanner)
	done := daemontest.CreateTask(t, c, map[string]any{"title": "plain work", "prompt": "say hi"})
	done.Until(20*time.Second, daemontest.TurnEnded)
	wait := daemontest.CreateTask(t, c, map[string]any{"title": "waits", "prompt": "/rate-limit:1:5 then work"})
	notice := wait.Until(20*time.Second, daemontest.IsNotice).Body().Message
	wait.Until(30*time.Second, daemontest.TurnEnded)

	// json: needs_you, finished, waiting, finished (after the retry); ntfy: needs_you.
	require.Eventually(t, func() bool { return len(sink.all()) >= 5 }, 20*time.Second, 50*time.Millisecond,
		"webhook bodies so far: %q\n%s", sink.all(), daemontest.Tail(d.Logs(), 30))
	time.Sleep(time.Second) // a duplicate would come within this (the receiver answers at once)
	bodies := sink.all()
	require.Len(t, bodies, 5, "%q", bodies)

	var events []hookEvent
	var ntfy []string
	for _, b := range bodies {
		switch {
		case strings.HasPrefix(b, "/json application/json "):
			var e hookEvent
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(b, "/json application/json ")), &e), b)
			events = append(events, e)
		case strings.HasPrefix(b, "/ntfy text/plain "):
			ntfy = append(ntfy, strings.TrimPrefix(b, "/ntfy text/plain "))
		default:
			t.Fatalf("unexpected request %q", b)
		}
	}
	byKey := map[string]hookEvent{}
	for _, e := range events {
		k := e.Event + " " + e.TaskID
		_, dup := byKey[k]
		assert.False(t, dup, "%s sent twice", k)
		byKey[k] = e
	}
	require.Len(t, byKey, 4, "%+v", events)

	needs := byKey["needs_you "+auth.TaskID]
	assert.Equal(t, auth.ID, needs.SessionID)
	assert.Equal(t, "needs a login", needs.Title)
	assert.NotEmpty(t, needs.Text)
	assert.True(t, strings.HasPrefix(needs.Summary, "Needs you: needs a login — "), needs.Summary)
	assert.Equal(t, []string{"needs a login: " + needs.Text}, ntfy)

	fin := byKey["finished "+done.TaskID]
	assert.Equal(t, "end_turn", fin.Reason)
	assert.Equal(t, "plain work", fin.Title)

	w := byKey["waiting "+wait.TaskID]
	assert.Equal(t, notice.Text, w.Text)
	require.NotNil(t, w.RetryAt)
	assert.Equal(t, notice.Metadata["retry_at"], w.RetryAt.UTC().Format(time.RFC3339Nano))
	assert.Equal(t, "rate_limited", w.Reason)
	_, ok := byKey["finished "+wait.TaskID]
	assert.True(t, ok, "the task that waited is told when it finished")
	_, ok = byKey["finished "+auth.TaskID]
	assert.False(t, ok, "a failed turn is a needs_you, not a finished")

	code, metrics := d.Get(t, "/metrics", true)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, metrics, `orchestratord_notifications_total{outcome="sent",webhook="json"} 4`)
	assert.Contains(t, metrics, `orchestratord_notifications_total{outcome="sent",webhook="ntfy"} 1`)
	assert.Contains(t, metrics, `orchestratord_notifications_total{outcome="dropped",webhook="json"} 0`)
}
