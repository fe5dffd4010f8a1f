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
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// fileConfig is the --agents / --config file: YAML (and so JSON).
type fileConfig struct {
	Agents map[string]lifecycle.Profile `json:"agents"`
	Retry  *retryConfig                 `json:"retry"`
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
