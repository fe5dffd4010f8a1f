// Command overloadsim measures the provider overload gate (`make overload`).
//
// It runs the daemon's real components — SQLite store, orchestrator with
// its retry owner and overload gates, lifecycle manager — against a
// provider shared by every session that answers 529 during a wall of W
// seconds and succeeds after it, with N sessions whose first prompt lands
// in the wall. Time is scaled (e.g. ×0.02: a 900s wall lasts 18s), and so
// is every retry delay and gate interval. Each run is done with the gate on
// and off, and reported side by side:
//
//   - provider requests during the wall (first prompts + retries), the
//     retries alone, and the smallest gap between two retries;
//   - probes sent, red banners, sessions that replied;
//   - time from the wall's end to each session's reply (p50/p99/max), and
//     from the gate closing to the last reply;
//   - duplicate user turns in the agents' histories and lost prompts (both
//     must be 0).
//
// Agents are real mock-agent processes (this binary re-executed as
// `overloadsim mock-agent`, the /wall scenario) or, for thousands of
// sessions, an in-process agent implementing the orchestrator's Agents and
// Execution interfaces, so the orchestrator's own cost is what is measured.
//
// Usage:
//
//	overloadsim [-runs process:100@0.1:150s,inprocess:1000,fleet:300@1:60s,...] [-wall 900s] [-scale 0.02] [-gate both|on|off] [-daemons 3] [-pg URL] [-pgstats]
//
// A fleet run (issue 17) is -daemons orchestrators — each its own Service,
// connection pool and in-process agents, as separate daemons would be — on
// one PostgreSQL database (a throwaway cluster unless -pg names one), N
// sessions each, their overload gates the fleet's: one probe per interval
// for all of them, and every daemon's sessions released when it succeeds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "overloadsim:", err)
		os.Exit(1)
	}
}

// defaultRuns (about 9 minutes on 2 cores; the fleet run needs PostgreSQL installed, else it is skipped):
//   - 100 real mock-agent processes through a 150s wall at ×0.1 (15s real);
//   - 1,000 sessions through a 900s wall at ×0.02 (18s real): requests and
//     probes during the wall, banners;
//   - 1,000 sessions through a 60s wall in real time (×1): the return after
//     the wall. Time scaling compresses the provider's time but not the
//     orchestrator's own work, so a scaled run would release 1,000 sessions
//     in 20ms and measure only the CPU;
//   - 10,000 sessions through a 30s wall in real time: the orchestrator's
//     own cost, the store above all.
//
// The full headline, 1,000 sessions through a 900s wall in real time, takes
// 16 minutes: -runs inprocess:1000@1:900s.
//   - a fleet of 3 daemons × 300 sessions on one PostgreSQL through a 60s
//     wall in real time (issue 17): one probe per interval fleet-wide, and
//     the return of every daemon's sessions after it.
const defaultRuns = "process:100@0.1:150s,inprocess:1000,inprocess:1000@1:60s,inprocess:10000@1:30s,fleet:300@1:60s"

// stateDirEnv tells a re-executed mock agent where the shared wall lives.
const stateDirEnv = "OVERLOADSIM_STATE_DIR"

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) > 0 && args[0] == "mock-agent" {
		err := mockagent.Run(ctx, os.Stdin, os.Stdout, mockagent.Config{StateDir: os.Getenv(stateDirEnv)})
		if errors.Is(err, mockagent.ErrCrash) {
			os.Exit(1)
		}
		return err
	}
	fs := flag.NewFlagSet("overloadsim", flag.ContinueOnError)
	runs := fs.String("runs", defaultRuns,
		"comma-separated runs MODE:N[@SCALE[:WALL]]; MODE is process (real mock-agent processes), inprocess, or fleet (N in-process sessions on each of -daemons orchestrators sharing one PostgreSQL)")
	wall := fs.Duration("wall", 900*time.Second, "default wall length, unscaled")
	scale := fs.Float64("scale", 0.02, "default time scale (0.02: 900s last 18s)")
	gate := fs.String("gate", "both", "gate modes to run: on, off or both")
	verbose := fs.Bool("v", false, "log each run's progress to stderr")
	probeEvery := fs.Duration("probe-every", 0, "probe at this fixed interval instead of the gate's default cadence (unscaled)")
	release := fs.Duration("release", 0, "release window when the gate closes (unscaled; default 5s)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of all runs to this file")
	daemons := fs.Int("daemons", 3, "fleet runs: daemons sharing the database")
	pgStatsOn := fs.Bool("pgstats", false, "fleet runs: count the database's statements per session back, from the wall's end (pg_stat_statements: loaded in the throwaway cluster; a -pg server must preload it)")
	pgURL := fs.String("pg", "", "fleet runs: an empty PostgreSQL database to use (one run only); default a fresh database per run on a throwaway cluster")
	if err := fs.Parse(args); err != nil {
		return err
	}
	specs, err := parseRuns(*runs, *scale, *wall)
	if err != nil {
		return err
	}
	var modes []bool
	switch *gate {
	case "both":
		modes = []bool{true, false}
	case "on":
		modes = []bool{true}
	case "off":
		modes = []bool{false}
	default:
		return fmt.Errorf("-gate must be on, off or both, got %q", *gate)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if *daemons < 1 {
		return fmt.Errorf("-daemons must be at least 1, got %d", *daemons)
	}
	var cluster *pgtest.Cluster
	defer func() {
		if cluster != nil {
			cluster.Stop()
		}
	}()
	var results []result
	for _, sp := range specs {
		for _, on := range modes {
			sp.gate, sp.probeEvery, sp.release = on, *probeEvery, *release
			sp.self = sp.selfOr(self)
			sp.daemons = 1
			if sp.mode == "fleet" {
				sp.daemons, sp.pgURL, sp.pgStats = *daemons, *pgURL, *pgStatsOn
				if sp.pgURL == "" {
					if cluster == nil {
						if cluster, err = pgtest.Start(pgtest.Options{StatStatements: *pgStatsOn}); errors.Is(err, pgtest.ErrNotInstalled) {
							fmt.Fprintln(os.Stderr, "overloadsim: skipping the fleet run:", err)
							continue
						} else if err != nil {
							return fmt.Errorf("fleet run: a throwaway PostgreSQL: %w", err)
						}
					}
					if sp.pgURL, err = cluster.CreateDatabase(ctx); err != nil {
						return err
					}
				}
			}
			fmt.Fprintf(os.Stderr, "overloadsim: %s N=%d×%d wall=%s ×%g gate=%s …\n", sp.mode, sp.daemons, sp.n, sp.wall, sp.scale, onOff(on))
			r, err := simulate(ctx, sp, *verbose)
			if err != nil {
				return fmt.Errorf("%s N=%d gate %s: %w", sp.mode, sp.n, onOff(on), err)
			}
			fmt.Fprintf(os.Stderr, "overloadsim:   done in %s\n", r.elapsed.Round(100*time.Millisecond))
			results = append(results, r)
		}
	}
	writeTable(out, results)
	writePGStats(out, results, *verbose)
	return nil
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// parseRuns reads "process:100@0.1:300s,inprocess:1000".
func parseRuns(s string, scale float64, wall time.Duration) ([]spec, error) {
	var out []spec
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		mode, rest, ok := strings.Cut(item, ":")
		if !ok || mode != "process" && mode != "inprocess" && mode != "fleet" {
			return nil, fmt.Errorf("run %q: want MODE:N[@SCALE[:WALL]] with MODE process, inprocess or fleet", item)
		}
		sp := spec{mode: mode, scale: scale, wall: wall}
		nStr, opt, _ := strings.Cut(rest, "@")
		n, err := strconv.Atoi(nStr)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("run %q: bad N", item)
		}
		sp.n = n
		if opt != "" {
			scStr, wStr, _ := strings.Cut(opt, ":")
			if sp.scale, err = strconv.ParseFloat(scStr, 64); err != nil || sp.scale <= 0 {
				return nil, fmt.Errorf("run %q: bad scale", item)
			}
			if wStr != "" {
				if sp.wall, err = time.ParseDuration(wStr); err != nil {
					return nil, fmt.Errorf("run %q: bad wall: %w", item, err)
				}
			}
		}
		out = append(out, sp)
	}
	if len(out) == 0 {
		return nil, errors.New("no runs")
	}
	return out, nil
}
