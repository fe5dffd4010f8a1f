package datadir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain doubles as the helper process: with DATADIR_HOLD set, the test
// binary takes the lock of that directory, says "locked", and holds it
// until its stdin closes.
func TestMain(m *testing.M) {
	if dir := os.Getenv("DATADIR_HOLD"); dir != "" {
		l, err := Acquire(dir)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		if err := l.SetAddr("127.0.0.1:7420"); err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = l.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// hold starts a helper process that holds dir's lock (or fails to).
func hold(t *testing.T, dir string) (*holder, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DATADIR_HOLD="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := h.out.ReadString('\n')
	if err != nil {
		t.Fatalf("helper said nothing: %v", err)
	}
	return h, strings.TrimSpace(line)
}

func TestSecondProcessIsRefusedAndNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	first, said := hold(t, dir)
	if said != "locked" {
		t.Fatalf("first holder: %s", said)
	}
	pid := first.cmd.Process.Pid

	// Another process is refused at once, with the holder's pid and address.
	_, said = hold(t, dir)
	if !strings.Contains(said, "pid "+strconv.Itoa(pid)) || !strings.Contains(said, "127.0.0.1:7420") {
		t.Fatalf("second process said %q, want the holder's pid %d and address", said, pid)
	}
	// And so is this one.
	_, err := Acquire(dir)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.Holder == nil || le.Holder.PID != pid {
		t.Fatalf("Acquire = %v, want LockedError naming pid %d", err, pid)
	}

	// The holder dies without cleaning up (SIGKILL): its lock file stays,
	// stale, and must not block the next start.
	_ = first.cmd.Process.Kill()
	_ = first.cmd.Wait()
	if b, _ := os.ReadFile(filepath.Join(dir, LockFile)); !strings.Contains(string(b), strconv.Itoa(pid)) {
		t.Fatalf("lock file after SIGKILL = %q, want the dead holder's details still there", b)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	if got := l.Holder().PID; got != os.Getpid() {
		t.Fatalf("holder pid = %d", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if !strings.Contains(string(b), fmt.Sprintf(`"pid":%d`, os.Getpid())) {
		t.Fatalf("lock file = %q, want this process's pid", b)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_ = l.Close() // twice is fine

	// Released on Close: another process takes it.
	third, said := hold(t, dir)
	if said != "locked" {
		t.Fatalf("after Close: %s", said)
	}
	_ = third.stdin.Close()
	if err := third.cmd.Wait(); err != nil {
		t.Fatalf("third holder: %v", err)
	}
}

func TestLockedErrorWithoutDetails(t *testing.T) {
	err := &LockedError{Dir: "/d"}
	if !strings.Contains(err.Error(), "in use") || !errors.Is(err, ErrLocked) {
		t.Fatal(err)
	}
	err = &LockedError{Dir: "/d", Holder: &Holder{PID: 42, Addr: "127.0.0.1:1", StartedAt: time.Unix(0, 0)}}
	if !strings.Contains(err.Error(), "pid 42, listening on 127.0.0.1:1, started 1970-01-01T00:00:00Z") {
		t.Fatal(err)
	}
}

func TestSecureTightensLoosePermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tok, 0o644); err != nil {
		t.Fatal(err)
	}
	fixes, err := Secure(dir, "token", "missing.db")
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 2 || fixes[0].From != 0o755 || fixes[0].To != 0o700 || fixes[1].From != 0o644 || fixes[1].To != 0o600 {
		t.Fatalf("fixes = %+v", fixes)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, tok: 0o600} {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, err %v; want %04o", path, st.Mode().Perm(), err, want)
		}
	}
	if fixes, err := Secure(dir, "token"); err != nil || len(fixes) != 0 {
		t.Fatalf("second Secure: %+v %v", fixes, err)
	}
}

func TestCheckDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "o.db")
	if err := CheckDatabase(dir, "o.db"); err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDatabase(dir, "o.db"); err != nil {
		t.Fatalf("empty file in a fresh dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := CheckDatabase(dir, "o.db")
	if !errors.Is(err, ErrEmptyDatabase) || !strings.Contains(err.Error(), "0 bytes") {
		t.Fatalf("empty file beside a token: %v", err)
	}
	if st, _ := os.Stat(db); st.Size() != 0 {
		t.Fatal("file touched")
	}
	if err := os.WriteFile(db, []byte("SQLite format 3\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDatabase(dir, "o.db"); err != nil {
		t.Fatalf("non-empty: %v", err)
	}
}
