package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// daemon is one running `orchestratord serve`.
type daemon struct {
	cmd    *exec.Cmd
	URL    string // http://127.0.0.1:PORT
	Token  string
	logs   *lockedBuffer
	exited chan struct{}  // closed once the process is reaped
	wg     sync.WaitGroup // the stdout reader
}

type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var uiLine = regexp.MustCompile(`orchestratord UI: (http://[^/]+)/\?token=(\S+)`)

// retryConfig writes a config with the given overloaded delays (budget 3),
// e.g. "3s" or "250ms, 3s, 250ms".
func retryConfig(t *testing.T, overloaded string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := "retry:\n" +
		"  overloaded: {delays: [" + overloaded + "], budget: 3}\n" +
		"  network: {delays: [0s, 200ms], budget: 2}\n" +
		"  jitter: 0.01\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startDaemon runs the daemon on a free loopback port with its own data dir;
// it is killed (with its agents) when the test ends.
func startDaemon(t *testing.T, configFile string) *daemon {
	t.Helper()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-format", "json"}
	if configFile != "" {
		args = append(args, "--config", configFile)
	}
	cmd := exec.Command(binary, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, logs: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = d.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan [2]string, 1)
	d.wg.Go(func() { // ends when the daemon exits and closes stdout
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := uiLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- [2]string{m[1], m[2]}:
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(d.exited)
	})
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			t.Logf("daemon logs:\n%s", tail(d.logs.String(), 60))
		}
	})
	select {
	case m := <-found:
		d.URL, d.Token = m[0], m[1]
	case <-d.exited:
		t.Fatalf("daemon exited before serving:\n%s", d.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon did not print its URL:\n%s", d.logs.String())
	}
	return d
}

// kill ends the daemon and its agents (the process group).
func (d *daemon) kill() {
	select {
	case <-d.exited:
		d.wg.Wait()
		return
	default:
	}
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	<-d.exited
	d.wg.Wait()
}

// pageURL is the URL the daemon printed, optionally via another host:port.
func (d *daemon) pageURL(host string) string {
	base := d.URL
	if host != "" {
		base = "http://" + host
	}
	return base + "/?token=" + d.Token
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
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
func (d *daemon) snapshot(t *testing.T, sessionID string) []serverMessage {
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
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read snapshot: %v", err)
		}
		var env struct {
			ID      string `json:"id"`
			Type    string `json:"type"`
			Payload struct {
				Messages []serverMessage `json:"messages"`
			} `json:"payload"`
		}
		if json.Unmarshal(data, &env) != nil || env.ID != "snap" {
			continue
		}
		if env.Type != "response" {
			t.Fatalf("subscribe failed: %s", data)
		}
		return env.Payload.Messages
	}
}
