// Package fleet tests a fleet of orchestratord daemons (issue 17) as a user
// runs one: a throwaway real PostgreSQL (internal/store/pgtest) and N real
// `orchestratord serve --fleet` processes, each with its own data dir and
// loopback port, all on one database, the built-in mock agent.
//
// The harness is this file; each concern's tests live in a file of their
// own (ownership, placement, failover, relay, gate). A test starts a
// fleet with Start, reaches daemon i with Dial or Conn, kills it with Kill
// (SIGKILL of its process group, agents and all), and waits for what a
// user would see with WaitFor — never a sleep. Without PostgreSQL the
// tests skip with a message saying so; with ORCHESTRATORD_REQUIRE_POSTGRES
// (or CI) set they fail instead.
package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

// TestMain builds the daemon once (without the race detector: N daemons
// share two cores; the test process itself runs with it under make test),
// runs the tests, stops the PostgreSQL cluster and checks for leaked
// goroutines.
func TestMain(m *testing.M) { daemontest.Main(m, false) }

// Options of a fleet; zero values mean defaults.
type Options struct {
	N int // daemons started by Start; default 3
	// Lease is --fleet-lease of every daemon: how long a killed daemon
	// stays live. Default 3s, short so failover tests are quick.
	Lease     time.Duration
	MaxAgents int      // --max-agents; default 8
	Args      []string // more serve flags for every daemon
	// ArgsFor gives daemon i (0-based, in the order started) flags of its
	// own, after Args.
	ArgsFor func(i int) []string
	Env     []string // every daemon's whole environment; nil inherits
	// Profiles gives daemon i agent profiles besides mock, each the mock
	// agent under another name (placement by profile).
	Profiles func(i int) []string
}

// DefaultLease is the harness's --fleet-lease.
const DefaultLease = 3 * time.Second

// Fleet is a running database and its daemons.
type Fleet struct {
	DSN  string        // the database's URL (a unix socket)
	Pool *pgxpool.Pool // the test's own connections, for assertions on the tables
	Opts Options
	// MockState is the mock agent's state dir, shared by every daemon's
	// mock (its --agents file): the provider side of a fleet is one, so a
	// scenario's failure counters and agent sessions follow a task from
	// one daemon to another (mockagent.ReceivedPrompts reads its log).
	MockState string

	t       testing.TB
	mu      sync.Mutex // guards daemons
	daemons []*Daemon
}

// Daemon is one daemon of the fleet.
type Daemon struct {
	*daemontest.Daemon // the current process; replaced by Restart
	Index              int
	ID                 string // its daemon-id (DATA_DIR/daemon-id)
	Dir                string // its data dir, kept across restarts
	args               []string
	killed             bool
}

// Start creates a fresh database and starts opts.N daemons on it, side by
// side; every process is killed when the test ends (its logs shown if the
// test failed).
func Start(t testing.TB, opts Options) *Fleet {
	t.Helper()
	if opts.N == 0 {
		opts.N = 3
	}
	if opts.Lease == 0 {
		opts.Lease = DefaultLease
	}
	if opts.MaxAgents == 0 {
		opts.MaxAgents = 8
	}
	dsn := pgtest.DSN(t) // skips, or fails when required, without PostgreSQL
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	f := &Fleet{DSN: dsn, Pool: pool, Opts: opts, t: t, MockState: t.TempDir()}
	t.Cleanup(func() {
		f.mu.Lock()
		ds := append([]*Daemon(nil), f.daemons...)
		f.mu.Unlock()
		for _, d := range ds {
			d.Daemon.Kill()
			if t.Failed() {
				t.Logf("daemon %d (%s) logs:\n%s", d.Index, d.ID, daemontest.Tail(d.Logs(), 80))
				if dir := os.Getenv("ORCHESTRATORD_FLEET_LOGS"); dir != "" { // the whole logs, for a closer look
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-daemon%d.log", strings.ReplaceAll(t.Name(), "/", "_"), d.Index)), []byte(d.Logs()), 0o644)
				}
			}
		}
	})
	// The first daemon alone migrates the empty database; the others then
	// start together.
	f.Add(t)
	var wg sync.WaitGroup
	errs := make([]error, opts.N)
	ds := make([]*Daemon, opts.N)
	for i := 1; i < opts.N; i++ {
		ds[i] = f.newDaemon(t)
		wg.Go(func() { errs[i] = f.launch(ds[i]) })
	}
	wg.Wait()
	for i := 1; i < opts.N; i++ {
		if errs[i] != nil {
			t.Fatalf("daemon %d: %v", i, errs[i])
		}
	}
	return f
}

// newDaemon registers daemon number len(daemons) with a fresh data dir.
func (f *Fleet) newDaemon(t testing.TB) *Daemon {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := &Daemon{Index: len(f.daemons), Dir: t.TempDir()}
	agents := filepath.Join(d.Dir, "agents.yaml")
	var extra []string
	if f.Opts.Profiles != nil {
		extra = f.Opts.Profiles(d.Index)
	}
	var b strings.Builder
	b.WriteString("agents:\n")
	for _, name := range append([]string{"mock"}, extra...) {
		fmt.Fprintf(&b, "  %s: {command: %q, args: [mock-agent, --state-dir, %q]}\n", name, daemontest.Binary, f.MockState)
	}
	if err := os.WriteFile(agents, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--store", f.DSN, "--fleet", "--fleet-lease", f.Opts.Lease.String(),
		"--max-agents", fmt.Sprint(f.Opts.MaxAgents), "--agents", agents}
	args = append(args, f.Opts.Args...)
	if f.Opts.ArgsFor != nil {
		args = append(args, f.Opts.ArgsFor(d.Index)...)
	}
	d.args = args
	f.daemons = append(f.daemons, d)
	return d
}

// launch starts d's process and reads its id.
func (f *Fleet) launch(d *Daemon) error {
	p, err := daemontest.Launch(daemontest.LaunchOptions{DataDir: d.Dir, Args: d.args, Env: f.Opts.Env, Timeout: 60 * time.Second})
	f.mu.Lock()
	if p != nil {
		d.Daemon = p
	}
	d.killed = err != nil
	f.mu.Unlock()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(d.Dir, "daemon-id"))
	if err != nil {
		return err
	}
	f.mu.Lock()
	d.ID = strings.TrimSpace(string(b))
	f.mu.Unlock()
	return nil
}

// Add starts one more daemon on the fleet's database.
func (f *Fleet) Add(t testing.TB) *Daemon {
	t.Helper()
	d := f.newDaemon(t)
	if err := f.launch(d); err != nil {
		t.Fatalf("daemon %d: %v", d.Index, err)
	}
	return d
}

// D is daemon i.
func (f *Fleet) D(i int) *Daemon {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.daemons[i]
}

// N is how many daemons were started (killed ones included).
func (f *Fleet) N() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.daemons)
}

// Dial connects a WebSocket client to daemon i (closed when the test ends).
func (f *Fleet) Dial(t testing.TB, i int) *daemontest.Client {
	t.Helper()
	return daemontest.Dial(t, f.D(i).Daemon)
}

// Conn connects an error-returning client to daemon i, for connections
// that may outlive their daemon; closed when the test ends.
func (f *Fleet) Conn(t testing.TB, i int) *daemontest.Conn {
	t.Helper()
	c, err := daemontest.DialConn(t.Context(), f.D(i).Daemon)
	if err != nil {
		t.Fatalf("dial daemon %d: %v", i, err)
	}
	t.Cleanup(c.Close)
	return c
}

// Kill SIGKILLs daemon i and its agents: a crash, no goodbye to the fleet.
func (f *Fleet) Kill(i int) {
	d := f.D(i)
	d.Daemon.Kill()
	f.mu.Lock()
	d.killed = true
	f.mu.Unlock()
}

// Stop ends daemon i with SIGTERM and requires a clean exit.
func (f *Fleet) Stop(t testing.TB, i int) {
	t.Helper()
	d := f.D(i)
	d.Daemon.Stop(t)
	f.mu.Lock()
	d.killed = true
	f.mu.Unlock()
}

// Restart starts daemon i again on its data dir (same id), after Kill or
// Stop.
func (f *Fleet) Restart(t testing.TB, i int) *Daemon {
	t.Helper()
	d := f.D(i)
	d.Daemon.Kill() // a no-op once it exited
	if err := f.launch(d); err != nil {
		t.Fatalf("restart daemon %d: %v", i, err)
	}
	return d
}

// Member is a daemon as fleet.list shows it.
type Member struct {
	ID        string   `json:"id"`
	Addr      string   `json:"addr"`
	Health    string   `json:"health"`
	Self      bool     `json:"self"`
	Load      int      `json:"load"`
	MaxAgents int      `json:"max_agents"`
	Profiles  []string `json:"profiles"`
}

// Members is fleet.list as client c sees it, by daemon id.
func Members(t testing.TB, c *daemontest.Client) map[string]Member {
	t.Helper()
	var l struct {
		Daemons []Member `json:"daemons"`
	}
	if err := json.Unmarshal(c.Call("fleet.list", map[string]any{}), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]Member{}
	for _, m := range l.Daemons {
		out[m.ID] = m
	}
	return out
}

// WaitFor polls cond every 20ms until it holds or timeout passes, then
// fails the test with what was awaited and cond's last word on it. It
// returns how long the wait took. Poll, don't sleep: a test waits for a
// condition a user would see, never for a backoff.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, why := cond()
		if ok {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s: %s", timeout, what, why)
		}
		<-tick.C
	}
}

// Count runs a counting query on the fleet's database.
func (f *Fleet) Count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := f.Pool.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// Task creates a mock task through c and follows its session.
func Task(t testing.TB, c *daemontest.Client, prompt string, extra map[string]any) *daemontest.Session {
	t.Helper()
	p := map[string]any{"title": "fleet", "prompt": prompt, "agent": "mock"}
	for k, v := range extra {
		p[k] = v
	}
	return daemontest.CreateTask(t, c, p)
}
