package daemontest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Build compiles cmd/orchestratord into dir (with the race detector when
// race is set) from the module root root, and returns the binary's path.
// Programs use it where Main is for tests.
func Build(root, dir string, race bool) (string, error) {
	bin := filepath.Join(dir, "orchestratord")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./cmd/orchestratord")...)
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build orchestratord: %w", err)
	}
	return bin, nil
}

// LaunchOptions configure Launch; zero values mean defaults.
type LaunchOptions struct {
	Binary  string   // default Binary
	DataDir string   // required
	Args    []string // after serve --addr 127.0.0.1:0 --data-dir D --log-format json
	Env     []string // the daemon's whole environment; nil inherits
	Timeout time.Duration
}

// ErrExited is returned by Launch when the daemon exits before serving (a
// refused data dir, a locked one); the error carries its logs.
var ErrExited = errors.New("daemon exited before serving")

// Launch is Start without a testing.TB, for programs and for callers that
// expect a start to fail: it returns an error instead of failing a test,
// and the caller must Kill the daemon it returns.
func Launch(o LaunchOptions) (*Daemon, error) {
	bin := o.Binary
	if bin == "" {
		bin = Binary
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	all := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", o.DataDir, "--log-format", "json"}, o.Args...)
	cmd := exec.Command(bin, all...)
	cmd.Env = o.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	d := &Daemon{DataDir: o.DataDir, cmd: cmd, logs: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = d.logs
	if err := cmd.Start(); err != nil {
		return nil, err
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
	select {
	case m := <-found:
		d.URL, d.Token = m[0], m[1]
		return d, nil
	case <-d.exited:
		d.wg.Wait()
		return d, fmt.Errorf("%w (exit code %d):\n%s", ErrExited, d.cmd.ProcessState.ExitCode(), Tail(d.Logs(), 20))
	case <-time.After(o.Timeout):
		d.Kill()
		return d, fmt.Errorf("daemon did not print its URL within %v:\n%s", o.Timeout, Tail(d.Logs(), 20))
	}
}

// Pid is the daemon's process id (its agents are its children).
func (d *Daemon) Pid() int { return d.cmd.Process.Pid }

// Exited is closed once the daemon's process is gone.
func (d *Daemon) Exited() <-chan struct{} { return d.exited }

// Terminate sends SIGTERM and waits up to timeout for the exit, then kills;
// it returns the exit code (-1 when it had to be killed).
func (d *Daemon) Terminate(ctx context.Context, timeout time.Duration) int {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		d.wg.Wait()
		return d.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
	case <-ctx.Done():
	}
	d.Kill()
	return -1
}
