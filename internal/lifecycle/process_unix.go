//go:build unix

package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// process is one agent process in its own process group. The pipes are
// plain os.Pipe files, not exec's StdoutPipe: a grandchild may inherit and
// hold them open, so we must be able to close our ends ourselves without
// waiting for EOF, and cmd.Wait must not wait for copying goroutines.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // our write end of the agent's stdin
	stdout *os.File // our read end of the agent's stdout
	stderr *os.File // our read end of the agent's stderr

	exited  chan struct{} // closed once cmd.Wait has returned
	state   *os.ProcessState
	waitErr error
}

// resolveCommand finds the executable up front so that a missing agent is a
// clear process_start error instead of a chdir/exec error text.
// ResolveCommand finds an agent profile's command as Start would: an
// absolute or relative path, or a name looked up on PATH; it returns the
// absolute path of the executable.
func ResolveCommand(name string) (string, error) { return resolveCommand(name) }

func resolveCommand(name string) (string, error) {
	if name == "" {
		return "", errors.New("agent profile has no command")
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("agent executable %q not found", name)
		}
		return "", fmt.Errorf("agent executable %q: %w", name, err)
	}
	// cmd.Dir changes the child's cwd; a relative path must not change meaning.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

func startProcess(path string, args []string, dir string, env []string) (*process, error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}

	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// Own process group: tear-down signals reach the agent's children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	startErr := cmd.Start()
	// The child has its copies now; ours would keep the pipes open forever.
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	if startErr != nil {
		_ = inW.Close()
		_ = outR.Close()
		_ = errR.Close()
		return nil, startErr
	}
	return &process{
		cmd:    cmd,
		pid:    cmd.Process.Pid,
		stdin:  inW,
		stdout: outR,
		stderr: errR,
		exited: make(chan struct{}),
	}, nil
}

// wait reaps the leader; it runs in the execution's waiter goroutine.
func (p *process) wait() {
	err := p.cmd.Wait()
	p.state = p.cmd.ProcessState
	p.waitErr = err
	close(p.exited)
}

func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitStatus is "" while the leader runs, else e.g. "exit status 1".
func (p *process) exitStatus() string {
	if !p.hasExited() {
		return ""
	}
	if p.state != nil {
		return p.state.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return ""
}

// signalGroup signals every process in the agent's group; an empty group is not an error.
func (p *process) signalGroup(sig syscall.Signal) error {
	err := syscall.Kill(-p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
