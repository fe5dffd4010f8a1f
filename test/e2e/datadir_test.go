package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// runServe runs a second `serve` that is expected to refuse to start, and
// returns its exit code and stderr.
func runServe(t *testing.T, dataDir string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daemontest.Binary, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("second serve did not exit: it started? stderr:\n%s", stderr.String())
	}
	if err == nil {
		return 0, stderr.String()
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func TestSecondDaemonOnOneDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	first := daemontest.Start(t, dir)
	pid := strconv.Itoa(first.PID())

	code, stderr := runServe(t, dir)
	if code == 0 || !strings.Contains(stderr, "pid "+pid) || !strings.Contains(stderr, strings.TrimPrefix(first.URL, "http://")) {
		t.Fatalf("second daemon: exit %d, stderr %q; want a refusal naming pid %s and %s", code, stderr, pid, first.URL)
	}

	// The first one keeps working, sessions and all.
	c := daemontest.Dial(t, first)
	c.Call("task.create", map[string]any{"prompt": "hello"})
	if status, _ := first.Get(t, "/healthz", false); status != 200 {
		t.Fatalf("first daemon /healthz = %d after the refusal", status)
	}

	// Crashed (SIGKILL, lock file left behind): the next one starts.
	first.Kill()
	second := daemontest.Start(t, dir)
	second.Stop(t)
}

func TestEmptyDatabaseInAUsedDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	d := daemontest.Start(t, dir)
	d.Stop(t)
	db := filepath.Join(dir, "orchestratord.db")
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		_ = os.Remove(f)
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr := runServe(t, dir)
	if code == 0 || !strings.Contains(stderr, "0 bytes") {
		t.Fatalf("exit %d, stderr %q; want a refusal of the empty database", code, stderr)
	}
	if st, err := os.Stat(db); err != nil || st.Size() != 0 {
		t.Fatalf("database touched: %v %v", st, err)
	}
}

func TestLoosePermissionsAreTightenedAndLogged(t *testing.T) {
	dir := t.TempDir()
	d := daemontest.Start(t, dir)
	d.Stop(t)
	tok := filepath.Join(dir, "token")
	if err := os.Chmod(tok, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	d = daemontest.Start(t, dir)
	d.Stop(t)
	if n := len(d.LogLines("data dir permissions were open to other users; tightened")); n != 2 {
		t.Fatalf("%d warnings, want 2 (dir and token):\n%s", n, d.Logs())
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, tok: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %04o", path, st.Mode().Perm(), err, want)
		}
	}
}
