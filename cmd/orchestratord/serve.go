package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orchestratord/orchestratord/internal/datadir"
	"github.com/orchestratord/orchestratord/internal/fleet"
	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/wsapi"
	"github.com/orchestratord/orchestratord/web"
)

type serveOptions struct {
	addr       string
	dataDir    string
	token      string
	agentsFile string
	configFile string
	logFormat  string
	logLevel   string
	retryScale float64
	gate       string
	shutdown   time.Duration
	idle       time.Duration
	hosts      []string
	maxAgents  int
	store      string
	advertise  string
	fleet      bool
	fleetLease time.Duration
}

func newServeCmd() *cobra.Command {
	o := serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the daemon: web UI, WebSocket API and agents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := bindEnv(cmd.Flags()); err != nil {
				return err
			}
			return serve(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:7420", "listen address (env ORCHESTRATORD_ADDR)")
	f.StringVar(&o.dataDir, "data-dir", defaultDataDir(), "data directory: SQLite file, token, workspaces (env ORCHESTRATORD_DATA_DIR)")
	f.StringVar(&o.store, "store", "sqlite",
		"where the state lives: sqlite (a file in the data dir) or a PostgreSQL URL, postgres://user@host/db?sslmode=… (env ORCHESTRATORD_STORE)")
	f.StringVar(&o.token, "token", "", "fixed access token; default: generated once and kept in the data dir (env ORCHESTRATORD_TOKEN)")
	f.StringVar(&o.agentsFile, "agents", "", "YAML/JSON file with agent profiles, merged over the built-ins (env ORCHESTRATORD_AGENTS)")
	f.StringVar(&o.configFile, "config", "", "YAML/JSON config file: agents, retry schedules, overload gate, notifications (env ORCHESTRATORD_CONFIG)")
	f.StringVar(&o.logFormat, "log-format", "console", "log format: console or json (env ORCHESTRATORD_LOG_FORMAT)")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error (env ORCHESTRATORD_LOG_LEVEL)")
	f.Float64Var(&o.retryScale, "retry-scale", 1, "multiply every retry delay, for demos and tests (env ORCHESTRATORD_RETRY_SCALE)")
	f.StringVar(&o.gate, "overload-gate", "on", "provider overload gate: on (one probe while sessions wait) or off (every session retries on its own) (env ORCHESTRATORD_OVERLOAD_GATE)")
	f.DurationVar(&o.shutdown, "shutdown-timeout", 15*time.Second, "bound on graceful shutdown (env ORCHESTRATORD_SHUTDOWN_TIMEOUT)")
	f.DurationVar(&o.idle, "agent-idle-timeout", orchestrator.DefaultIdleTimeout,
		"stop an agent process idle this long; its next prompt resumes the session (0: keep until shutdown) (env ORCHESTRATORD_AGENT_IDLE_TIMEOUT)")
	f.IntVar(&o.maxAgents, "max-agents", defaultMaxAgents(),
		"most agent processes alive at once; more tasks wait in line (QUEUED) and idle agents give way (default: min(cores×4, GiB×2)) (env ORCHESTRATORD_MAX_AGENTS)")
	f.StringVar(&o.advertise, "advertise-addr", "",
		"host:port other daemons of the fleet and their clients reach this one at (default: the listen address) (env ORCHESTRATORD_ADVERTISE_ADDR)")
	f.BoolVar(&o.fleet, "fleet", false,
		"share the PostgreSQL --store with other daemons as one fleet: each session owned by the daemon that runs it, taken over when that daemon dies (env ORCHESTRATORD_FLEET)")
	f.DurationVar(&o.fleetLease, "fleet-lease", fleet.DefaultLease,
		"how long a daemon of the fleet stays live without a heartbeat; its sessions are taken over once it expires (env ORCHESTRATORD_FLEET_LEASE)")
	f.StringSliceVar(&o.hosts, "allowed-hosts", nil,
		"host names the UI and API answer to besides localhost, IP addresses and the --addr host, comma-separated; *.example.com for subdomains (env ORCHESTRATORD_ALLOWED_HOSTS)")
	return cmd
}

func newLogger(format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	var cfg zap.Config
	switch format {
	case "console":
		cfg = zap.NewDevelopmentConfig()
		cfg.DisableStacktrace = true
	case "json":
		cfg = zap.NewProductionConfig()
	default:
		return nil, fmt.Errorf("--log-format must be console or json, got %q", format)
	}
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.OutputPaths = []string{"stderr"}
	return cfg.Build(zap.WrapCore(redactLogs))
}

func serve(ctx context.Context, o serveOptions, stdout io.Writer) error {
	log, err := newLogger(o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	if o.retryScale <= 0 {
		return fmt.Errorf("--retry-scale must be > 0, got %v", o.retryScale)
	}
	dataDir, err := filepath.Abs(o.dataDir)
	if err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	// Own the data dir before anything reads or writes it: a second daemon
	// on the same dir would fight this one over every session.
	lock, err := datadir.Acquire(dataDir)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Close() }()
	fixes, err := datadir.Secure(dataDir, "token", fleet.IDFile, store.FileName, store.FileName+"-wal", store.FileName+"-shm")
	for _, f := range fixes {
		log.Warn("data dir permissions were open to other users; tightened",
			zap.String("path", f.Path), zap.String("was", fmt.Sprintf("%04o", f.From)), zap.String("now", fmt.Sprintf("%04o", f.To)))
	}
	if err != nil {
		return err
	}
	kind, err := storeKind(o.store)
	if err != nil {
		return err
	}
	if kind == "sqlite" {
		if err := datadir.CheckDatabase(dataDir, store.FileName); err != nil {
			return err
		}
	}
	var files []fileConfig
	for _, path := range []string{o.configFile, o.agentsFile} {
		if path == "" {
			continue
		}
		fc, err := loadFileConfig(path)
		if err != nil {
			return err
		}
		files = append(files, fc)
	}
	base, err := builtinProfiles(dataDir)
	if err != nil {
		return err
	}
	profiles, err := mergeProfiles(base, files...)
	if err != nil {
		return err
	}
	policy, err := policyConfig(o.retryScale, files...)
	if err != nil {
		return err
	}
	gate, err := gateConfig(o.gate, o.retryScale, files...)
	if err != nil {
		return err
	}
	notifyCfg, err := notifyFromFiles(files...)
	if err != nil {
		return err
	}
	usage, err := usageLimitConfig(o.retryScale, files...)
	if err != nil {
		return err
	}
	daemonID := ""
	if o.fleet {
		if daemonID, err = fleet.LoadID(dataDir); err != nil {
			return err
		}
	}
	db, err := openDaemonStore(ctx, o.store, dataDir, daemonID)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	owner, err := fleetOwner(db, daemonID, o.fleetLease, log.Named("fleet"))
	if err != nil {
		return err
	}
	// After the database exists, so a start that dies in between never
	// leaves a token beside an empty database (CheckDatabase refuses that).
	token, generated, err := loadToken(dataDir, o.token)
	if err != nil {
		return err
	}
	routingerr.RegisterSecret(token) // redacted wherever it would be stored, sent or logged
	agents, err := lifecycle.NewManager(lifecycle.Config{Logger: log.Named("lifecycle")})
	if err != nil {
		return err
	}
	defer func() { _ = agents.Close() }()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orchestratord_store_writable",
			Help: "1 while the store's last write succeeded, 0 while writes fail (disk full, read-only)"},
			func() float64 {
				if db.WriteHealth().Writable {
					return 1
				}
				return 0
			}))
	notifier, err := newNotifier(notifyCfg, log.Named("notify"))
	if err != nil {
		return err
	}
	defer func() { _ = notifier.Close() }() // after the service: it sends no more
	registerNotifyMetrics(reg, notifier)
	fleetGates, err := fleetGates(db, dataDir, o.fleet)
	if err != nil {
		return err
	}
	svc, err := orchestrator.New(orchestrator.Config{
		Store: db, Agents: orchestrator.LifecycleAgents(agents), Profiles: profiles, DataDir: dataDir,
		Logger: log.Named("orchestrator"), Policy: policy, Overload: gate, Metrics: orchestrator.NewMetrics(reg),
		IdleTimeout: idleTimeout(o.idle), MaxAgents: max(o.maxAgents, 1), Attention: attentionSink{notifier},
		Usage: usage, FleetGates: fleetGates, Fleet: orchestratorFleet(owner),
	})
	if err != nil {
		return err
	}
	defer func() { _ = svc.Close() }()
	if err := svc.Start(ctx); err != nil {
		return err
	}
	// Listening before the API exists (connections wait in the backlog
	// until Serve below) tells the fleet the address it is reached at.
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	defer func() { _ = ln.Close() }()
	self, err := daemonIdentity(dataDir, o.advertise, ln.Addr(), profiles, max(o.maxAgents, 1))
	if err != nil {
		return err
	}
	members, leave, err := startFleet(ctx, db, self, o.fleetLease, func() int { live, _ := svc.Load(); return live }, log.Named("fleet"))
	if err != nil {
		return err
	}
	defer leave() // before the store closes: it marks this daemon stopped
	if owner != nil {
		owner.Start(svc)
		// After the service has stopped (below), or on the way out: the
		// fleet takes this daemon's sessions over at once.
		defer func() {
			if err := owner.Close(); err != nil {
				log.Warn("ending the session leases", zap.Error(err))
			}
		}()
	}
	relay, err := newRelay(db, o.fleet, self.ID, svc, log.Named("relay"))
	if err != nil {
		return err
	}
	api, err := wsapi.New(wsapi.Config{Service: svc, Token: token, Logger: log.Named("wsapi"), Static: web.Static(),
		AllowedHosts: allowedHosts(o.addr, o.hosts), Health: storeHealth(db), Fleet: members, Remote: relay.remote()})
	if err != nil {
		return err
	}
	defer func() { _ = api.Close() }()
	if err := relay.start(ctx, api); err != nil {
		return err
	}
	defer relay.close() // after the API: its connections' watches end first

	mux := http.NewServeMux()
	mux.Handle("/metrics", api.RequireToken(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	mux.Handle("/", api.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := lock.SetAddr(ln.Addr().String()); err != nil {
		log.Warn("could not record the listen address in the lock file", zap.Error(err))
	}
	url := fmt.Sprintf("http://%s/?token=%s", displayAddr(ln.Addr().String()), token)
	log.Info("orchestratord listening", zap.String("addr", ln.Addr().String()), zap.String("data_dir", dataDir), zap.String("store", redactStore(o.store)), zap.String("daemon_id", self.ID),
		zap.String("agents", profileNames(profiles)), zap.Float64("retry_scale", o.retryScale), zap.String("overload_gate", o.gate))
	if generated {
		fmt.Fprintf(stdout, "A new access token was generated and saved in %s.\n", filepath.Join(dataDir, "token"))
	}
	fmt.Fprintf(stdout, "orchestratord UI: %s\n", url)

	var wg sync.WaitGroup // the HTTP server and the bounded close below
	errc := make(chan error, 1)
	wg.Go(func() { errc <- srv.Serve(ln) }) // ends when srv.Shutdown is called below
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.shutdown)
	defer cancel()
	_ = api.Close() // WebSocket connections are hijacked: Shutdown does not end them
	relay.close()   // before the service: no forwarded command runs during its Close
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("http shutdown", zap.Error(err))
	}
	<-errc
	done := make(chan struct{})
	wg.Go(func() { // bounded below: the process exits even if this is stuck
		_ = svc.Close()
		_ = agents.Close()
		close(done)
	})
	select {
	case <-done:
		wg.Wait()
	case <-sctx.Done():
		log.Warn("shutdown timed out; exiting anyway")
	}
	log.Info("stopped")
	return nil
}

func displayAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// storeHealth adapts the store's write health to /healthz.
func storeHealth(db daemonStore) func() wsapi.StoreHealth {
	return func() wsapi.StoreHealth {
		h := db.WriteHealth()
		out := wsapi.StoreHealth{Writable: h.Writable, Failures: h.Failures}
		if h.LastError != nil {
			at := h.ErrorAt.UTC()
			out.LastError, out.ErrorAt = h.LastError.Error(), &at
		}
		return out
	}
}

// allowedHosts is --allowed-hosts plus the host of --addr when it is a name
// (an IP address and localhost are always allowed).
func allowedHosts(addr string, extra []string) []string {
	out := append([]string(nil), extra...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" && net.ParseIP(host) == nil {
		out = append(out, host)
	}
	return out
}

// loadToken returns the fixed token, or the one kept in the data dir,
// generating it on first start.
func loadToken(dataDir, fixed string) (token string, generated bool, err error) {
	if fixed != "" {
		if len(fixed) < 16 {
			return "", false, errors.New("--token must be at least 16 characters")
		}
		return fixed, false, nil
	}
	path := filepath.Join(dataDir, "token")
	data, err := os.ReadFile(path)
	if err == nil {
		t := strings.TrimSpace(string(data))
		if len(t) < 16 {
			return "", false, fmt.Errorf("token file %s is too short; delete it to generate a new one", path)
		}
		return t, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, fmt.Errorf("read token: %w", err)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", false, err
	}
	t := hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", false, fmt.Errorf("save token: %w", err)
	}
	return t, true, nil
}

// idleTimeout maps --agent-idle-timeout to orchestrator.Config: 0 there
// means the default, so "keep until shutdown" is negative.
func idleTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
