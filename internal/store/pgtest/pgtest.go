// Package pgtest runs a throwaway PostgreSQL server for tests: a cluster
// made by initdb in a temporary directory, listening only on a unix socket
// in that directory, with one fresh database per test. It is stopped and
// removed when the test binary ends (and dies with it if it is killed).
//
// A test package runs its tests with Main, and each test that needs a
// database asks for one with DSN(t); the first call starts the package's
// one cluster, Main stops it:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) } Without PostgreSQL on the
//
// machine the tests that need it are skipped with a message saying so,
// unless CI or ORCHESTRATORD_REQUIRE_POSTGRES is set: then they fail.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

// ErrNotInstalled: no initdb/postgres was found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed (no initdb in PATH or /usr/lib/postgresql/*/bin; apt-get install postgresql)")

// Cluster is a running throwaway server.
type Cluster struct {
	dir  string // removed by Stop
	sock string // the unix socket's directory
	cmd  *exec.Cmd
	done chan struct{} // closed when the server process has exited
	next atomic.Int64
	stop sync.Once
}

// Options of Start.
type Options struct {
	// Durable keeps fsync and synchronous_commit on (benchmarks: the
	// cost of a real commit). Off by default: test data is thrown away.
	Durable bool
	// StatStatements loads pg_stat_statements, tracking the statements
	// that triggers and functions run too (a measurement of what a run
	// costs the server: cmd/overloadsim -pgstats). A database that reads
	// it needs CREATE EXTENSION pg_stat_statements.
	StatStatements bool
}

// binGlob is where Debian installs PostgreSQL's servers.
var binGlob = "/usr/lib/postgresql/*/bin"

// FindBin returns the directory of initdb and postgres: the one of initdb
// in PATH, else the newest /usr/lib/postgresql/*/bin.
func FindBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(binGlob)
	sort.Slice(dirs, func(i, j int) bool {
		return version(filepath.Base(filepath.Dir(dirs[i]))) > version(filepath.Base(filepath.Dir(dirs[j])))
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNotInstalled
}

// version is the leading number of s ("15", "16beta1"), or 0.
func version(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(s[:i])
	return n
}

// Start makes and starts a cluster. As root, initdb and the server run as
// the "postgres" system user (initdb refuses root), which then owns the
// temporary directory.
func Start(opts Options) (c *Cluster, err error) {
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tempRoot(), "pgtest-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("pgtest: running as root needs the postgres system user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-instructions", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	args := []string{"-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "max_connections=200",
		"-c", "shared_buffers=128MB", "-c", "log_min_messages=warning"}
	if opts.StatStatements {
		args = append(args, "-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all")
	}
	if !opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = log, log
	// SIGQUIT is PostgreSQL's immediate shutdown: a killed test binary
	// takes its server with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	c = &Cluster{dir: dir, sock: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }() // ends when the server exits (Stop)
	if err := c.waitReady(30 * time.Second); err != nil {
		c.Stop()
		b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		return nil, fmt.Errorf("%w\n%s", err, b)
	}
	return c, nil
}

// tempRoot is where the cluster's directory goes: the temp dir, unless
// the postgres user could not reach it (as root, TMPDIR may be private) or
// its socket path would be too long for a unix socket; then /tmp.
func tempRoot() string {
	dir := os.TempDir()
	if len(dir) > 60 {
		return "/tmp"
	}
	if os.Geteuid() == 0 {
		for d := dir; ; d = filepath.Dir(d) {
			st, err := os.Stat(d)
			if err != nil || st.Mode().Perm()&0o001 == 0 {
				return "/tmp"
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return dir
}

func (c *Cluster) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		select {
		case <-c.done:
			return fmt.Errorf("pgtest: postgres exited at start: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: postgres not ready after %s: %w", limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL is a postgres:// URL of database db on the cluster's socket.
func (c *Cluster) URL(db string) string {
	q := url.Values{"host": {c.sock}, "user": {"postgres"}, "sslmode": {"disable"}}
	return "postgres:///" + url.PathEscape(db) + "?" + q.Encode()
}

// CreateDatabase creates a new empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d", c.next.Add(1))
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	create := "CREATE DATABASE " + name + " TEMPLATE template0"
	if major, _, _ := strings.Cut(conn.PgConn().ParameterStatus("server_version"), "."); version(major) >= 15 {
		create += " STRATEGY file_copy" // a copy of the template's files, not WAL of each page: 10× faster
	}
	if _, err := conn.Exec(ctx, create); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return c.URL(name), nil
}

// Stop shuts the server down (fast) and removes its directory.
func (c *Cluster) Stop() {
	c.stop.Do(func() {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.done:
		case <-time.After(30 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
		_ = os.RemoveAll(c.dir)
	})
}

// Required reports whether a missing PostgreSQL must fail the tests (CI).
func Required() bool {
	return os.Getenv("CI") != "" || os.Getenv("ORCHESTRATORD_REQUIRE_POSTGRES") != ""
}

// The package's clusters, one per Options, each started on first use.
var (
	sharedMu sync.Mutex
	shared   = map[Options]*sharedCluster{}
)

type sharedCluster struct {
	once sync.Once
	c    *Cluster
	err  error
}

// cluster starts the package's cluster of opts on first use. The server
// is started from a goroutine locked to its OS thread for the server's
// whole life: the parent-death signal is tied to the thread that forked it.
func cluster(opts Options) (*Cluster, error) {
	sharedMu.Lock()
	sc := shared[opts]
	if sc == nil {
		sc = &sharedCluster{}
		shared[opts] = sc
	}
	sharedMu.Unlock()
	sc.once.Do(func() {
		ready := make(chan struct{})
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, after the server
			sc.c, sc.err = Start(opts)
			close(ready)
			if sc.c != nil {
				<-sc.c.done
			}
		}()
		<-ready
	})
	return sc.c, sc.err
}

// StopShared stops the package's clusters that tests started. Main calls
// it; a TestMain of its own calls it after m.Run.
func StopShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for _, sc := range shared {
		if sc.c != nil {
			sc.c.Stop()
		}
	}
}

// Main runs the tests, stops the package's cluster (started by the first
// DSN) and then, like goleak.VerifyTestMain, fails the run if a goroutine
// is left.
func Main(m *testing.M) int {
	code := m.Run()
	StopShared()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}

// DSN returns the URL of a new empty database on the package's cluster
// (started on first use, stopped by Main). Without PostgreSQL it skips the
// test, or fails it when Required.
func DSN(t testing.TB) string {
	t.Helper()
	return DSNWith(t, Options{})
}

// DSNWith is DSN on the package's cluster of opts (benchmarks: Durable).
func DSNWith(t testing.TB, opts Options) string {
	t.Helper()
	c := need(t, opts)
	u, err := c.CreateDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Need skips (or, when Required, fails) t without PostgreSQL.
func Need(t testing.TB) {
	t.Helper()
	need(t, Options{})
}

func need(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := cluster(opts)
	if c != nil {
		return c
	}
	skipOrFail(t, err)
	return nil
}

// skipOrFail ends t for want of PostgreSQL: a skip saying why, or a
// failure when Required or when PostgreSQL is there but would not start.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if Required() || !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("PostgreSQL tests cannot run: %v", err)
		return
	}
	t.Skipf("skipping the PostgreSQL half: %v (set ORCHESTRATORD_REQUIRE_POSTGRES=1 to make this a failure)", strings.TrimPrefix(err.Error(), "pgtest: "))
}
