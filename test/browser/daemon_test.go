package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// startDaemon runs the daemon with its own data dir and, when given, a
// --config file.
func startDaemon(t *testing.T, configFile string) *daemontest.Daemon {
	t.Helper()
	if configFile == "" {
		return daemontest.Start(t, t.TempDir())
	}
	return daemontest.Start(t, t.TempDir(), "--config", configFile)
}

func retryConfig(t *testing.T, overloaded string) string {
	return daemontest.RetryConfig(t, overloaded)
}

// serverMessage is the part of a stored message the tests compare.
type serverMessage struct {
	ID       string         `json:"id"`
	Role     string         `json:"role"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

// snapshot asks the daemon itself (not through the page) for a session's
// messages: the truth the page must show.
func snapshot(t *testing.T, d *daemontest.Daemon, sessionID string) []serverMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(d.URL, "http")+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + d.Token}},
	})
	if err != nil {
		t.Fatalf("dial daemon: %v", err)
	}
	defer func() { _ = conn.CloseNow() }()
	conn.SetReadLimit(16 << 20)
	req, _ := json.Marshal(map[string]any{"id": "snap", "type": "request", "action": "session.subscribe",
		"payload": map[string]any{"session_id": sessionID}})
	if err := conn.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	// A large snapshot comes as a first page and then session.page
	// notifications, one per session.page request.
	var msgs []serverMessage
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read snapshot: %v", err)
		}
		var env struct {
			ID      string `json:"id"`
			Type    string `json:"type"`
			Action  string `json:"action"`
			Payload struct {
				Messages   []serverMessage `json:"messages"`
				NextCursor string          `json:"next_cursor"`
			} `json:"payload"`
		}
		if json.Unmarshal(data, &env) != nil {
			continue
		}
		switch {
		case env.ID == "snap" && env.Type != "response":
			t.Fatalf("subscribe failed: %s", data)
		case env.ID == "snap", env.Type == "notification" && env.Action == "session.page":
			msgs = append(msgs, env.Payload.Messages...)
			if env.Payload.NextCursor == "" {
				return msgs
			}
			req, _ := json.Marshal(map[string]any{"id": "page", "type": "request", "action": "session.page",
				"payload": map[string]any{"session_id": sessionID, "cursor": env.Payload.NextCursor}})
			if err := conn.Write(ctx, websocket.MessageText, req); err != nil {
				t.Fatalf("session.page: %v", err)
			}
		}
	}
}
