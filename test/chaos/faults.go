package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// tryMount puts the data dir on a small tmpfs, so the disk can be filled
// and the file system made read-only; "" where mounting is not permitted.
func (r *runner) tryMount(dir string) string {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+r.cfg.TmpfsSize+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		why := fmt.Sprintf("mount -t tmpfs not permitted (%v: %s)", err, strings.TrimSpace(string(out)))
		r.rep.Skipped[FaultDiskFull] = why
		r.rep.Skipped[FaultReadOnly] = why
		r.cfg.Logf("chaos: %s; disk-full and read-only faults are skipped", why)
		return ""
	}
	return dir
}

func (r *runner) unmount() {
	if out, err := exec.Command("umount", r.mount).CombinedOutput(); err != nil {
		// Orphaned agents may still hold a file for a moment.
		r.cfg.Logf("umount %s: %v %s; lazy unmount", r.mount, err, strings.TrimSpace(string(out)))
		_ = exec.Command("umount", "-l", r.mount).Run()
	}
	r.mount = ""
}

const fillerName = "chaos-filler"

// fill writes to the tmpfs until it is full.
func (r *runner) fill() error {
	r.fullDisk = append(r.fullDisk, span{from: time.Now()})
	f, err := os.OpenFile(filepath.Join(r.mount, fillerName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for range 1 << 14 { // bounded: 16 GiB
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				// The last few pages too.
				small := buf[:4096]
				for range 1 << 10 {
					if _, err := f.Write(small); err != nil {
						break
					}
				}
				return nil
			}
			return err
		}
	}
	return errors.New("the tmpfs never filled up")
}

func (r *runner) free() {
	_ = os.Remove(filepath.Join(r.mount, fillerName))
	if n := len(r.fullDisk); n > 0 && r.fullDisk[n-1].to.IsZero() {
		r.fullDisk[n-1].to = time.Now().Add(time.Second) // the store's first write after it
	}
}

// remount switches the tmpfs between read-only and read-write; files still
// open for writing (an orphaned agent finishing) make it busy for a moment.
func (r *runner) remount(ctx context.Context, mode string) error {
	var err error
	var out []byte
	for range 40 {
		out, err = exec.Command("mount", "-o", "remount,"+mode, r.mount).CombinedOutput()
		if err == nil {
			return nil
		}
		pause(ctx, 100*time.Millisecond)
	}
	return fmt.Errorf("remount %s: %v %s", mode, err, strings.TrimSpace(string(out)))
}

// readOnly kills the daemon, makes the data dir read-only, starts the
// daemon on it (it should refuse, or serve without acknowledging what it
// cannot save), then makes it writable again and restarts.
func (r *runner) readOnly(ctx context.Context, round int, seed int64, st step) error {
	r.kill()
	r.killOrphanAgents()
	if err := r.remount(ctx, "ro"); err != nil {
		r.cfg.Logf("read-only: %v", err)
		r.rep.ReadOnlyRuns["remount failed"]++
		return r.restart(ctx)
	}
	d, err := daemontest.Launch(daemontest.LaunchOptions{
		Binary: r.cfg.Binary, DataDir: r.dataDir, Env: r.env(), Timeout: 20 * time.Second,
		Args: []string{"--retry-scale", fmt.Sprint(r.cfg.RetryScale), "--overload-gate", "off"},
	})
	switch {
	case errors.Is(err, daemontest.ErrExited):
		r.rep.ReadOnlyRuns["refused to start"]++
		r.deadLogs = append(r.deadLogs, d.Logs())
		if !strings.Contains(strings.ToLower(d.Logs()), "read-only") {
			r.violate(round, seed, VReadOnlyUnclear, fmt.Sprint(len(r.deadLogs)),
				"the daemon refused a read-only data dir without saying so:\n"+daemontest.Tail(d.Logs(), 5))
		}
	case err != nil:
		r.rep.ReadOnlyRuns["start error"]++
		if d != nil {
			r.deadLogs = append(r.deadLogs, d.Logs())
		}
	default:
		r.rep.ReadOnlyRuns["served"]++
		r.d = d
		if c, err := daemontest.DialConn(ctx, d); err == nil {
			r.c = c
			if s, err := r.createTask(ctx, round, seed, st.prompt); err == nil && s != nil {
				r.violate(round, seed, VReadOnlyAck, s.id, "task.create was acknowledged on a read-only data dir")
			}
		}
		pause(ctx, st.hold)
		r.kill()
	}
	r.killOrphanAgents()
	if err := r.remount(ctx, "rw"); err != nil {
		return err
	}
	return r.restart(ctx)
}

// agents lists the mock-agent processes whose parent is the daemon.
func agents(parent int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so cut at the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat)[i+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		if parent > 0 && ppid != parent {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(cmdline), "mock-agent") {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids
}

// killAgent SIGKILLs one of the daemon's agent processes, chosen by pick.
func (r *runner) killAgent(pick int) bool {
	if r.d == nil {
		return false
	}
	pids := agents(r.d.Pid())
	if len(pids) == 0 {
		return false
	}
	return syscall.Kill(pids[pick%len(pids)], syscall.SIGKILL) == nil
}

// killOrphanAgents ends the agents a killed daemon left behind that use
// this run's state dir, so the file system can be remounted.
func (r *runner) killOrphanAgents() {
	for _, pid := range agents(0) { // reparented to init or a subreaper
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.Contains(string(cmdline), r.mockDir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
