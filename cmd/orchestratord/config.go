package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// fileConfig is the --agents / --config file: YAML (and so JSON).
type fileConfig struct {
	Agents   map[string]lifecycle.Profile `json:"agents"`
	Retry    *retryConfig                 `json:"retry"`
	Overload *overloadConfig              `json:"overload"`
	Notify   *notifyConfig                `json:"notify"`
	Usage    *usageConfig                 `json:"usage_limit"`
}

// overloadConfig is the `overload:` section: the provider overload gate.
// Whether the gate is on is the --overload-gate flag.
type overloadConfig struct {
	Threshold     *int     `json:"threshold"`      // distinct failing sessions that open a gate; default 3
	Window        string   `json:"window"`         // within this span; default 30s
	Deadline      string   `json:"deadline"`       // longest wait of one session; default 30m
	FirstProbe    string   `json:"first_probe"`    // opening → first probe; default 5s
	Backoff       []string `json:"backoff"`        // after failed probes; default [10s, 20s, 40s, 60s]
	ReleaseWindow string   `json:"release_window"` // spread of releases; default 5s
	// Probes come n times as often with n waiting, never closer than this; default 2s.
	MinProbeInterval string   `json:"min_probe_interval"`
	ProbeTimeout     string   `json:"probe_timeout"` // a probe without an answer gives up the slot; default 2m
	ReleaseRate      *float64 `json:"release_rate"`  // sessions released per second; default 1000
}

type retryConfig struct {
	Overloaded   *scheduleConfig `json:"overloaded"`
	Network      *scheduleConfig `json:"network"`
	RateLimited  *scheduleConfig `json:"rate_limited"`
	Jitter       *float64        `json:"jitter"`
	MaxShortHint string          `json:"max_short_hint"`
}

type scheduleConfig struct {
	Delays []string `json:"delays"`
	Budget *int     `json:"budget"`
}

// loadFileConfig reads one config file; unknown keys are errors so a typo is
// never silently ignored.
func loadFileConfig(path string) (fileConfig, error) {
	var fc fileConfig
	data, err := os.ReadFile(path)
	if err != nil {
		return fc, fmt.Errorf("read config %s: %w", path, err)
	}
	if err := yaml.UnmarshalStrict(data, &fc); err != nil {
		return fc, fmt.Errorf("parse config %s: %w", path, err)
	}
	return fc, nil
}

// builtinProfiles: "mock" runs this same binary as an ACP agent.
func builtinProfiles(dataDir string) (map[string]lifecycle.Profile, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate own executable for the mock agent: %w", err)
	}
	return map[string]lifecycle.Profile{
		"mock": {
			Name:    "mock",
			Command: self,
			Args:    []string{"mock-agent", "--state-dir", filepath.Join(dataDir, "mock-agent")},
		},
	}, nil
}

// mergeProfiles lays file profiles over the built-ins and checks each one.
func mergeProfiles(base map[string]lifecycle.Profile, files ...fileConfig) (map[string]lifecycle.Profile, error) {
	out := make(map[string]lifecycle.Profile, len(base))
	for k, v := range base {
		out[k] = v
	}
	for _, fc := range files {
		for name, p := range fc.Agents {
			p.Name = name
			if strings.TrimSpace(p.Command) == "" {
				return nil, fmt.Errorf("agent %q: command is required", name)
			}
			switch p.Permission {
			case "", "allow", "reject":
			default:
				return nil, fmt.Errorf("agent %q: permission must be allow or reject, got %q", name, p.Permission)
			}
			if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
				return nil, fmt.Errorf("agent %q: cwd must be absolute, got %q", name, p.Cwd)
			}
			out[name] = p
		}
	}
	if err := orchestrator.ValidateFallbacks(out); err != nil {
		return nil, err
	}
	return out, nil
}

// policyConfig builds the retry policy from the files and --retry-scale.
func policyConfig(scale float64, files ...fileConfig) (routingerr.PolicyConfig, error) {
	pc := routingerr.PolicyConfig{Scale: scale}
	for _, fc := range files {
		r := fc.Retry
		if r == nil {
			continue
		}
		for _, s := range []struct {
			in  *scheduleConfig
			out *routingerr.Schedule
			key string
		}{{r.Overloaded, &pc.Overloaded, "overloaded"}, {r.Network, &pc.Network, "network"}, {r.RateLimited, &pc.RateLimited, "rate_limited"}} {
			if s.in == nil {
				continue
			}
			for _, d := range s.in.Delays {
				v, err := time.ParseDuration(d)
				if err != nil {
					return pc, fmt.Errorf("retry.%s.delays: %w", s.key, err)
				}
				s.out.Delays = append(s.out.Delays, v)
			}
			if s.in.Budget != nil {
				s.out.Budget = *s.in.Budget
			}
		}
		if r.Jitter != nil {
			pc.Jitter, pc.NoJitter = *r.Jitter, *r.Jitter == 0
		}
		if r.MaxShortHint != "" {
			v, err := time.ParseDuration(r.MaxShortHint)
			if err != nil {
				return pc, fmt.Errorf("retry.max_short_hint: %w", err)
			}
			pc.MaxShortHint = v
		}
	}
	if err := pc.Validate(); err != nil {
		return pc, err
	}
	return pc, nil
}

// gateConfig builds the overload gate's configuration from --overload-gate,
// the files' `overload:` sections and --retry-scale (which scales the
// gate's intervals like every retry delay).
func gateConfig(gate string, scale float64, files ...fileConfig) (overload.Config, error) {
	oc := overload.Config{Scale: scale}
	switch gate {
	case "on":
	case "off":
		oc.Disabled = true
	default:
		return oc, fmt.Errorf("--overload-gate must be on or off, got %q", gate)
	}
	dur := func(key, v string, dst *time.Duration) error {
		if v == "" {
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("overload.%s: %w", key, err)
		}
		*dst = d
		return nil
	}
	for _, fc := range files {
		c := fc.Overload
		if c == nil {
			continue
		}
		if c.Threshold != nil {
			oc.Threshold = *c.Threshold
			if oc.Threshold < 1 {
				return oc, fmt.Errorf("overload.threshold must be at least 1, got %d", oc.Threshold)
			}
		}
		for _, f := range []struct {
			key, v string
			dst    *time.Duration
		}{{"window", c.Window, &oc.Window}, {"deadline", c.Deadline, &oc.Deadline},
			{"first_probe", c.FirstProbe, &oc.FirstProbe}, {"release_window", c.ReleaseWindow, &oc.ReleaseWindow},
			{"min_probe_interval", c.MinProbeInterval, &oc.MinProbeInterval}, {"probe_timeout", c.ProbeTimeout, &oc.ProbeTimeout}} {
			if err := dur(f.key, f.v, f.dst); err != nil {
				return oc, err
			}
		}
		if c.ReleaseRate != nil {
			if oc.ReleaseRate = *c.ReleaseRate; !(oc.ReleaseRate > 0) {
				return oc, fmt.Errorf("overload.release_rate must be a positive number of sessions per second, got %v", oc.ReleaseRate)
			}
		}
		if len(c.Backoff) > 0 {
			oc.Backoff = nil
			for i, v := range c.Backoff {
				var d time.Duration
				if err := dur(fmt.Sprintf("backoff[%d]", i), v, &d); err != nil {
					return oc, err
				}
				oc.Backoff = append(oc.Backoff, d)
			}
		}
	}
	if err := oc.Validate(); err != nil {
		return oc, err
	}
	return oc, nil
}

// bindEnv fills every flag not given on the command line from
// ORCHESTRATORD_<FLAG_NAME>, so the two can never disagree silently.
func bindEnv(flags *pflag.FlagSet) error {
	var errs []error
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			return
		}
		key := "ORCHESTRATORD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(key); ok {
			if err := flags.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", key, v, err))
			}
		}
	})
	return errors.Join(errs...)
}

// defaultDataDir is $XDG_DATA_HOME/orchestratord or ~/.local/share/orchestratord.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "orchestratord")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "orchestratord")
	}
	return filepath.Join(home, ".local", "share", "orchestratord")
}

func profileNames(p map[string]lifecycle.Profile) string {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
