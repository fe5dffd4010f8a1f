package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// binary is the orchestratord built once for the whole package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "orchestratord-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "orchestratord")
	build := exec.Command("go", "build", "-race", "-o", binary, "../../cmd/orchestratord")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build orchestratord:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil { // every reader goroutine ends with its test
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// daemon is one running orchestratord process.
type daemon struct {
	t       *testing.T
	cmd     *exec.Cmd
	DataDir string
	URL     string // http://127.0.0.1:PORT
	Token   string
	logs    *lockedBuffer
	exited  chan struct{}
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

// startDaemon runs `orchestratord serve` on a free loopback port.
func startDaemon(t *testing.T, dataDir string, extra ...string) *daemon {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	d := &daemon{t: t, cmd: cmd, DataDir: dataDir, logs: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = d.logs
	require.NoError(t, cmd.Start())
	found := make(chan [2]string, 1)
	go func() { // ends when the daemon closes stdout (it exits)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := uiLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- [2]string{m[1], m[2]}
			}
		}
		_ = cmd.Wait()
		close(d.exited)
	}()
	select {
	case m := <-found:
		d.URL, d.Token = m[0], m[1]
	case <-d.exited:
		t.Fatalf("daemon exited before serving:\n%s", d.logs.String())
	case <-time.After(30 * time.Second):
		d.kill()
		t.Fatalf("daemon did not print its URL:\n%s", d.logs.String())
	}
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			t.Logf("daemon logs:\n%s", d.logs.String())
		}
	})
	return d
}

// stop sends SIGTERM and waits for a clean exit.
func (d *daemon) stop() {
	d.t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second):
		d.kill()
		d.t.Fatalf("daemon did not stop on SIGTERM")
	}
	require.Equal(d.t, 0, d.cmd.ProcessState.ExitCode(), "daemon exit code; logs:\n%s", d.logs.String())
}

// kill sends SIGKILL to the daemon and its agents, like a crash.
func (d *daemon) kill() {
	select {
	case <-d.exited:
		return
	default:
	}
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	<-d.exited
}

// client is a WebSocket connection speaking the envelope protocol.
type client struct {
	t     *testing.T
	conn  *websocket.Conn
	ctx   context.Context
	mu    sync.Mutex // guards nextID
	next  int
	resp  chan envelope
	notes chan envelope
	done  chan struct{}
}

type envelope struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Action  string          `json:"action"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func (d *daemon) dial(t *testing.T) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(d.URL, "http")+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + d.Token}},
	})
	require.NoError(t, err)
	conn.SetReadLimit(64 << 20)
	c := &client{t: t, conn: conn, ctx: ctx, resp: make(chan envelope, 64), notes: make(chan envelope, 100000), done: make(chan struct{})}
	go func() { // ends when the connection closes
		defer close(c.done)
		for {
			_, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var e envelope
			if json.Unmarshal(data, &e) != nil {
				continue
			}
			if e.Type == "notification" {
				c.notes <- e
			} else {
				c.resp <- e
			}
		}
	}()
	t.Cleanup(func() {
		_ = conn.Close(websocket.StatusNormalClosure, "")
		cancel()
		<-c.done
	})
	return c
}

// call sends a request and returns the response payload, failing on error.
func (c *client) call(action string, payload any) json.RawMessage {
	c.t.Helper()
	e := c.request(action, payload)
	require.Equal(c.t, "response", e.Type, "%s failed: %s", action, e.Payload)
	return e.Payload
}

// request sends a request and returns whatever envelope answers it.
func (c *client) request(action string, payload any) envelope {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := fmt.Sprintf("r%d", c.next)
	c.mu.Unlock()
	body, err := json.Marshal(map[string]any{"id": id, "type": "request", "action": action, "payload": payload})
	require.NoError(c.t, err)
	require.NoError(c.t, c.conn.Write(c.ctx, websocket.MessageText, body))
	for {
		select {
		case e := <-c.resp:
			if e.ID == id {
				return e
			}
		case <-time.After(20 * time.Second):
			c.t.Fatalf("no answer to %s", action)
		}
	}
}

// waitNote returns the first notification that matches, within the timeout.
func (c *client) waitNote(timeout time.Duration, match func(envelope) bool) envelope {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e := <-c.notes:
			if match(e) {
				return e
			}
		case <-deadline:
			c.t.Fatalf("timed out waiting for a notification")
		}
	}
}

// get fetches a daemon URL path with the token and returns status and body.
func (d *daemon) get(t *testing.T, path string, withToken bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, d.URL+path, nil)
	require.NoError(t, err)
	if withToken {
		req.Header.Set("Authorization", "Bearer "+d.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}
