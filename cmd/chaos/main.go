// Command chaos runs the fault suite of issue 10 (`make chaos`): many rounds
// against the real orchestratord binary and real mock-agent processes,
// with SIGKILLs of the daemon and of agents, a full disk and a read-only
// data dir, and the invariants checked after every round (test/chaos says
// which). It prints a Markdown report and exits 1 when an invariant broke;
// every violation names the seed of its round, which `-seeds` replays.
//
// Usage:
//
//	chaos [-bin bin/orchestratord] [-seed 1] [-rounds 40] [-seeds 5,13] [-scale 0.05]
//	      [-tolerance 100ms] [-faults daemon-kill,agent-kill,disk-full,read-only] [-keep DIR] [-v]
//
// Run as root it puts the data dir on a small tmpfs (the disk-full and
// read-only faults need it); elsewhere those two are skipped and say so.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orchestratord/orchestratord/test/chaos"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	bin := fs.String("bin", "", "orchestratord binary (default: build one, with -race when -race is set)")
	race := fs.Bool("race", false, "build the daemon with the race detector (slower; use a larger -tolerance)")
	seed := fs.Int64("seed", 1, "first round's seed; round i uses seed+i")
	rounds := fs.Int("rounds", 40, "rounds to run")
	seeds := fs.String("seeds", "", "comma-separated seeds to run instead of -seed/-rounds (replay failing rounds)")
	scale := fs.Float64("scale", 0.05, "--retry-scale of the daemon")
	tol := fs.Duration("tolerance", 100*time.Millisecond, "how late a pending retry may fire")
	faults := fs.String("faults", strings.Join(chaos.AllFaults, ","), "fault kinds rounds draw from")
	describe := fs.Bool("describe", false, "print what each round would do and exit")
	verbose := fs.Bool("v", false, "log every round")
	keep := fs.String("keep", "", "copy the data dir and the daemon's logs into this directory at the end")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	cfg := chaos.Config{RetryScale: *scale, FireTolerance: *tol, Faults: strings.Split(*faults, ","), KeepDir: *keep}
	if *seeds != "" {
		for _, s := range strings.Split(*seeds, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return 2, fmt.Errorf("-seeds: %w", err)
			}
			cfg.Seeds = append(cfg.Seeds, v)
		}
	} else {
		for i := range *rounds {
			cfg.Seeds = append(cfg.Seeds, *seed+int64(i))
		}
	}
	if *describe {
		for _, s := range cfg.Seeds {
			fmt.Fprintln(stdout, chaos.Describe(s, cfg.Faults))
		}
		return 0, nil
	}
	began := time.Now()
	cfg.Logf = func(format string, a ...any) {
		if *verbose || strings.HasPrefix(format, "VIOLATION") {
			fmt.Fprintf(stderr, "%6.1fs "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
		}
	}
	cfg.Binary = *bin
	if cfg.Binary == "" {
		dir, err := os.MkdirTemp("", "chaos-bin-")
		if err != nil {
			return 2, err
		}
		defer os.RemoveAll(dir)
		root, err := moduleRoot()
		if err != nil {
			return 2, err
		}
		if cfg.Binary, err = daemontest.Build(root, dir, *race); err != nil {
			return 2, err
		}
	} else if abs, err := filepath.Abs(cfg.Binary); err == nil {
		cfg.Binary = abs
	}
	rep, err := chaos.Run(ctx, cfg)
	if rep != nil {
		rep.Write(stdout)
	}
	if err != nil {
		return 2, err
	}
	if len(rep.Violations) > 0 {
		return 1, nil
	}
	return 0, nil
}

// moduleRoot is the directory of go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
