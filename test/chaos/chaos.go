package chaos

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

// Fault kinds.
const (
	FaultDaemonKill = "daemon-kill" // SIGKILL the daemon, restart it on the same data dir
	FaultAgentKill  = "agent-kill"  // SIGKILL one running mock-agent process
	FaultDiskFull   = "disk-full"   // fill the data dir's tmpfs, then free it
	FaultReadOnly   = "read-only"   // kill, remount the data dir read-only, start, then free it
	FaultNone       = "none"
)

// AllFaults are the fault kinds a round may draw.
var AllFaults = []string{FaultDaemonKill, FaultAgentKill, FaultDiskFull, FaultReadOnly}

// Config of one run: one daemon and data dir, one round per seed.
type Config struct {
	Binary        string        // orchestratord; default daemontest.Binary
	Seeds         []int64       // one round each, in order
	RetryScale    float64       // --retry-scale; default 0.05 (overloaded: 250ms, 750ms, 1.5s)
	FireTolerance time.Duration // how late a retry may fire; default 100ms
	SettleTimeout time.Duration // how long a round may take to go quiet; default 30s
	StallTimeout  time.Duration // a busy session without a new event this long is stuck; default 5s
	Faults        []string      // kinds a round may draw; default AllFaults
	TmpfsSize     string        // size of the data dir's tmpfs (root only); default 64m
	WorkDir       string        // default a new temporary directory, removed at the end
	KeepDir       string        // when set, the data dir (database, mock state, logs) is copied here at the end
	Logf          func(format string, args ...any)
}

func (c *Config) defaults() {
	if c.Binary == "" {
		c.Binary = daemontest.Binary
	}
	if c.RetryScale == 0 {
		c.RetryScale = 0.05
	}
	if c.FireTolerance == 0 {
		c.FireTolerance = 100 * time.Millisecond
	}
	if c.SettleTimeout == 0 {
		c.SettleTimeout = 30 * time.Second
	}
	if c.StallTimeout == 0 {
		c.StallTimeout = 5 * time.Second
	}
	if len(c.Faults) == 0 {
		c.Faults = AllFaults
	}
	if c.TmpfsSize == "" {
		c.TmpfsSize = "64m"
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
}

// Violation is one broken invariant, attributed to the round that first saw it.
type Violation struct {
	Seed   int64
	Round  int
	Kind   string
	Detail string
}

func (v Violation) String() string {
	return fmt.Sprintf("round %d (seed %d): %s: %s", v.Round, v.Seed, v.Kind, v.Detail)
}

// Violation kinds.
const (
	VLostPrompt      = "lost-prompt"       // an acknowledged prompt is not in the history
	VDupHistory      = "dup-in-history"    // a prompt is in the daemon's history twice
	VDupAgentTurn    = "dup-agent-turn"    // an agent session received a user turn twice
	VNoticePerChain  = "notices-in-chain"  // a chain showed more than one retry notice
	VStaleNotice     = "stale-notice"      // a retry notice left with nothing pending
	VRetryEarly      = "retry-early"       // fired before retry_at
	VRetryLate       = "retry-late"        // fired more than FireTolerance after it was due
	VRetryTwice      = "retry-twice"       // one pending retry fired twice
	VRetryLost       = "retry-lost"        // a pending retry never fired, nor became a banner
	VStuckRunning    = "stuck-running"     // a session RUNNING/STARTING after the round settled
	VStuckPending    = "stuck-pending"     // a retry still pending after the round settled
	VStaleRetryRow   = "stale-retry-row"   // a retry row left dispatching while nothing runs
	VSecretDB        = "secret-in-db"      // a planted secret in a database row
	VSecretEvents    = "secret-in-events"  // a planted secret in a replayed event
	VSecretLog       = "secret-in-log"     // a planted secret in the daemon's log
	VDaemonStart     = "daemon-start"      // the daemon did not start on a healthy data dir
	VReadOnlyAck     = "read-only-ack"     // a prompt acknowledged on a read-only data dir
	VReadOnlyUnclear = "read-only-unclear" // refused a read-only data dir without naming the cause
)

// Report is what a run found.
type Report struct {
	Rounds       int
	Faults       map[string]int    // injected, by kind
	Skipped      map[string]string // fault kind → why it could not be injected
	Violations   []Violation
	Prompts      int             // acknowledged prompts checked
	Actions      map[string]int  // acknowledged follow-up actions, by kind
	AgentTurns   int             // prompts the agents received
	Retries      int             // pending retries whose firing was checked
	Lateness     []time.Duration // of every retry that fired, sorted
	Interrupted  int             // retries a kill caught mid-dispatch ("interrupted" banners)
	DiskDelayed  int             // retries due while the disk was full, not held to FireTolerance
	ClaimUnsaved int             // due retries whose claim a full disk refused: the could-not-save banner
	LateCauses   map[string]int  // retries later than LateNote, by the largest part of their lateness
	Superseded   int             // pending retries the user superseded
	Restarts     int
	ReadOnlyRuns map[string]int // what a start on a read-only data dir did
	Duration     time.Duration
	Load         [2]string // /proc/loadavg at the start and at the end
	CPUPressure  [2]string // /proc/pressure/cpu "some" avg60 at the start and at the end: the share of time a task waited for a CPU

	// ControlLateness: how late a bare 100ms timer in the harness process
	// fired meanwhile (timerProbe), sorted: the machine's share.
	ControlLateness []time.Duration
}

// LateNote: a retry firing later than this is attributed (Report.LateCauses).
const LateNote = 50 * time.Millisecond

// cpuPressure is the "some avg60" of /proc/pressure/cpu, "?" without PSI.
func cpuPressure() string {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return "?"
	}
	for _, f := range strings.Fields(string(b)) {
		if v, ok := strings.CutPrefix(f, "avg60="); ok {
			return v + "%"
		}
	}
	return "?"
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// Run runs one round per seed against a fresh data dir and reports. Its
// error is a harness failure (the daemon could not be built or started at
// all), never a violation.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	began := time.Now()
	r, err := newRunner(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer r.close()
	r.probe = startTimerProbe()
	for i, seed := range cfg.Seeds {
		if ctx.Err() != nil {
			break
		}
		if err := r.round(ctx, i+1, seed); err != nil {
			return r.report(began), fmt.Errorf("round %d (seed %d): %w", i+1, seed, err)
		}
		r.rep.Rounds++
	}
	return r.report(began), nil
}

// runner owns the daemon, its data dir and everything observed.
type runner struct {
	cfg     Config
	base    string // work dir
	ownBase bool
	mount   string // tmpfs mount point, "" when not mounted
	dataDir string
	mockDir string
	token   string
	secrets []secret

	d        *daemontest.Daemon
	c        *daemontest.Conn
	inc      int      // daemon incarnation, 1-based
	deadLogs []string // logs of every incarnation that ended

	mu       sync.Mutex // guards sessions (actions run from one goroutine; fill frees from a timer-free step)
	sessions []*session

	rep   *Report
	seen  map[string]bool // violation keys already reported
	probe *timerProbe     // the control timer, from the first round to the report

	// fullDisk are the spans the disk was full (and a moment after): a
	// retry due then may be late, its claim waiting on the store.
	fullDisk []span
}

type span struct{ from, to time.Time }

func (r *runner) inFullDisk(t time.Time) bool {
	for _, s := range r.fullDisk {
		if !t.Before(s.from) && (s.to.IsZero() || t.Before(s.to)) {
			return true
		}
	}
	return false
}

// session is one task's session as the suite drove it.
type session struct {
	taskID, id string
	round      int
	seed       int64
	acked      []string // prompts the daemon answered OK, in order
	actions    []action // acknowledged actions that supersede a pending retry

	// What the last check saw, so an untouched session is not read again.
	checkedInc  int
	checkedSeq  int64
	banners     []time.Time // recovery banners seen in its events, when added
	interrupted int         // of them "interrupted" ones
}

type action struct {
	at   time.Time
	kind string
}

func newRunner(ctx context.Context, cfg Config) (*runner, error) {
	r := &runner{cfg: cfg, rep: &Report{Faults: map[string]int{}, Skipped: map[string]string{}, Actions: map[string]int{},
		ReadOnlyRuns: map[string]int{}, LateCauses: map[string]int{}, Load: [2]string{loadavg()}, CPUPressure: [2]string{cpuPressure()}},
		seen: map[string]bool{}}
	r.base = cfg.WorkDir
	if r.base == "" {
		dir, err := os.MkdirTemp("", "orchestratord-chaos-")
		if err != nil {
			return nil, err
		}
		r.base, r.ownBase = dir, true
	}
	r.mount = r.tryMount(filepath.Join(r.base, "mnt"))
	if r.mount != "" {
		r.dataDir = filepath.Join(r.mount, "data")
	} else {
		r.dataDir = filepath.Join(r.base, "data")
	}
	r.mockDir = filepath.Join(r.dataDir, "mock-agent") // the built-in mock profile's state dir
	tok := make([]byte, 24)
	_, _ = rand.Read(tok)
	r.token = "orchd-" + hex.EncodeToString(tok)
	r.secrets = plantSecrets(r.token)
	if err := mockagent.SetLeak(r.mockDir, secretLines(r.secrets)); err != nil {
		r.close()
		return nil, err
	}
	if err := r.start(ctx); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// start launches the daemon on the data dir and connects to it.
func (r *runner) start(ctx context.Context) error {
	d, err := daemontest.Launch(daemontest.LaunchOptions{
		Binary: r.cfg.Binary, DataDir: r.dataDir, Env: r.env(),
		Args: []string{"--retry-scale", fmt.Sprint(r.cfg.RetryScale), "--overload-gate", "off"},
	})
	if err != nil {
		if d != nil {
			r.deadLogs = append(r.deadLogs, d.Logs())
		}
		return err
	}
	r.inc++
	r.d = d
	c, err := daemontest.DialConn(ctx, d)
	if err != nil {
		return err
	}
	r.c = c
	return nil
}

// env is the daemon's environment: the token comes from
// ORCHESTRATORD_TOKEN, so an agent that inherits it can leak it.
func (r *runner) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ORCHESTRATORD_") {
			env = append(env, kv)
		}
	}
	return append(env, "ORCHESTRATORD_TOKEN="+r.token)
}

// kill SIGKILLs the daemon (not its agents, which have their own process
// groups, like after a real crash) and keeps its logs.
func (r *runner) kill() {
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
	if r.d != nil {
		r.d.Kill()
		r.deadLogs = append(r.deadLogs, r.d.Logs())
		r.d = nil
	}
}

// restart brings the daemon back on the same data dir, a few times if it
// is slow to let go of it.
func (r *runner) restart(ctx context.Context) error {
	var err error
	for range 5 {
		if err = r.start(ctx); err == nil {
			r.rep.Restarts++
			return nil
		}
		if !errors.Is(err, daemontest.ErrExited) {
			return err
		}
		pause(ctx, 200*time.Millisecond)
	}
	return err
}

func (r *runner) close() {
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
	if r.d != nil {
		r.d.Terminate(context.Background(), 15*time.Second)
		r.deadLogs = append(r.deadLogs, r.d.Logs())
		r.d = nil
	}
	if r.cfg.KeepDir != "" {
		r.keep()
	}
	if r.mount != "" {
		r.unmount()
	}
	if r.ownBase {
		_ = os.RemoveAll(r.base)
	}
}

// keep copies the data dir and every incarnation's log to KeepDir.
func (r *runner) keep() {
	if err := os.MkdirAll(r.cfg.KeepDir, 0o700); err != nil {
		r.cfg.Logf("keep: %v", err)
		return
	}
	if out, err := exec.Command("cp", "-a", r.dataDir, filepath.Join(r.cfg.KeepDir, "data")).CombinedOutput(); err != nil {
		r.cfg.Logf("keep: %v %s", err, out)
	}
	for i, l := range r.allLogs() {
		_ = os.WriteFile(filepath.Join(r.cfg.KeepDir, fmt.Sprintf("daemon-%d.log", i+1)), []byte(l), 0o600)
	}
	r.cfg.Logf("kept the data dir and logs in %s", r.cfg.KeepDir)
}

// allLogs is every incarnation's log, the live one last.
func (r *runner) allLogs() []string {
	logs := append([]string(nil), r.deadLogs...)
	if r.d != nil {
		logs = append(logs, r.d.Logs())
	}
	return logs
}

func (r *runner) violate(round int, seed int64, kind, key, detail string) {
	k := kind + "|" + key
	if r.seen[k] {
		return
	}
	r.seen[k] = true
	v := Violation{Seed: seed, Round: round, Kind: kind, Detail: detail}
	r.rep.Violations = append(r.rep.Violations, v)
	r.cfg.Logf("VIOLATION %s", v)
}

func (r *runner) report(began time.Time) *Report {
	sort.Slice(r.rep.Lateness, func(i, j int) bool { return r.rep.Lateness[i] < r.rep.Lateness[j] })
	r.rep.Duration = time.Since(began)
	r.rep.Load[1] = loadavg()
	r.rep.CPUPressure[1] = cpuPressure()
	if r.probe != nil {
		r.rep.ControlLateness = r.probe.finish()
		r.probe = nil
	}
	return r.rep
}

// call is Conn.Call with a deadline, waiting out the daemon's per-connection
// request rate limit (50/s) when a check's burst of requests meets it.
func (r *runner) call(ctx context.Context, action string, payload any) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for range 100 {
		raw, err := r.c.Call(cctx, action, payload)
		var we *daemontest.WireError
		if errors.As(err, &we) && we.Code == "RATE_LIMITED" {
			pause(cctx, 100*time.Millisecond)
			continue
		}
		return raw, err
	}
	return nil, fmt.Errorf("%s: rate-limited for 10s", action)
}

// pause waits d or until ctx ends: the suite's own pacing of actions and
// faults against a real daemon, never a backoff of the code under test.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
