// Package daemontest runs the real orchestratord binary for black-box tests:
// it builds the binary once per test package, starts it on a free loopback
// port with its own data dir, and speaks the WebSocket protocol to it.
package daemontest

import (
	"bufio"
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

	"go.uber.org/goleak"

	"github.com/orchestratord/orchestratord/internal/store/pgtest"
)

// Binary is the orchestratord built by Main.
var Binary string

// Main builds the daemon (with the race detector when race is set), runs the
// package's tests, stops the PostgreSQL cluster of pgtest.DSN if one was
// started, checks that no goroutine outlives them, and exits.
func Main(m *testing.M, race bool) {
	dir, err := os.MkdirTemp("", "orchestratord-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	Binary = filepath.Join(dir, "orchestratord")
	args := []string{"build", "-o", Binary}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../../cmd/orchestratord")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build orchestratord:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	pgtest.StopShared() // the PostgreSQL cluster, if a test started one
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// Daemon is one running `orchestratord serve`.
type Daemon struct {
	URL     string // http://127.0.0.1:PORT
	Token   string
	DataDir string

	cmd    *exec.Cmd
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

// Start runs the daemon on a free loopback port with dataDir; it is killed
// (with its agents) when the test ends, and its logs are shown if it failed.
func Start(t testing.TB, dataDir string, args ...string) *Daemon {
	t.Helper()
	return StartEnv(t, nil, dataDir, args...)
}

// StartEnv is Start with the daemon's whole environment given (nil: inherit).
func StartEnv(t testing.TB, env []string, dataDir string, args ...string) *Daemon {
	t.Helper()
	all := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"}, args...)
	cmd := exec.Command(Binary, all...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &Daemon{DataDir: dataDir, cmd: cmd, logs: &lockedBuffer{}, exited: make(chan struct{})}
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
		d.Kill()
		if t.Failed() {
			t.Logf("daemon logs:\n%s", Tail(d.Logs(), 60))
		}
	})
	select {
	case m := <-found:
		d.URL, d.Token = m[0], m[1]
	case <-d.exited:
		t.Fatalf("daemon exited before serving:\n%s", d.Logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon did not print its URL:\n%s", d.Logs())
	}
	return d
}

// Logs is everything the daemon wrote to stderr so far.
func (d *Daemon) Logs() string { return d.logs.String() }

// Stop sends SIGTERM and requires a clean, prompt exit with status 0.
func (d *Daemon) Stop(t testing.TB) {
	t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second):
		d.Kill()
		t.Fatalf("daemon did not stop on SIGTERM")
	}
	d.wg.Wait()
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("daemon exit code %d; logs:\n%s", code, d.Logs())
	}
}

// Kill sends SIGKILL to the daemon's process group, like a crash.
func (d *Daemon) Kill() {
	select {
	case <-d.exited:
	default:
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-d.exited
	}
	d.wg.Wait()
}

// PageURL is the UI URL, optionally reached through another host:port.
func (d *Daemon) PageURL(host string) string {
	base := d.URL
	if host != "" {
		base = "http://" + host
	}
	return base + "/?token=" + d.Token
}

// Get fetches a path, with or without the bearer token.
func (d *Daemon) Get(t testing.TB, path string, withToken bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, d.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if withToken {
		req.Header.Set("Authorization", "Bearer "+d.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// RetryConfig writes a --config file with short schedules: the given
// overloaded delays (e.g. "200ms, 300ms, 400ms"; budget 3), network 0s/200ms.
func RetryConfig(t testing.TB, overloaded string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := "retry:\n" +
		"  overloaded: {delays: [" + overloaded + "], budget: 3}\n" +
		"  network: {delays: [0s, 200ms], budget: 2}\n" +
		"  rate_limited: {delays: [200ms], budget: 3}\n" +
		"  jitter: 0.01\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// LogLines returns the daemon's JSON log lines whose msg is msg.
func (d *Daemon) LogLines(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(d.Logs(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// Tail keeps the last n lines of s.
func Tail(s string, n int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	return strings.Join(parts, "\n")
}
