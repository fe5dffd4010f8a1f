package main

import (
	"fmt"
	"time"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// usageConfig is the `usage_limit:` section: what tasks do when a usage
// window is exhausted or a 429/503 asks for a long wait.
type usageConfig struct {
	Default       string `json:"default"`        // wait | ask (default ask); a task's on_usage_limit wins
	Margin        string `json:"margin"`         // after a known reset; default 30s
	ProbeEvery    string `json:"probe_every"`    // no known reset: try again this often; default and minimum 15m
	MaxWait       string `json:"max_wait"`       // longest wait of a task without gate_deadline_seconds; default 24h
	ReleaseWindow string `json:"release_window"` // the other sessions of a window follow within this; default 10s
}

// usageLimitConfig merges the files' usage_limit sections (later files
// win); --retry-scale scales probe_every and release_window.
func usageLimitConfig(scale float64, files ...fileConfig) (orchestrator.UsageConfig, error) {
	uc := orchestrator.UsageConfig{Scale: scale}
	for _, fc := range files {
		c := fc.Usage
		if c == nil {
			continue
		}
		if c.Default != "" {
			uc.Default = c.Default
		}
		for _, f := range []struct {
			key, v string
			dst    *time.Duration
		}{{"margin", c.Margin, &uc.Margin}, {"probe_every", c.ProbeEvery, &uc.ProbeEvery},
			{"max_wait", c.MaxWait, &uc.MaxWait}, {"release_window", c.ReleaseWindow, &uc.ReleaseWindow}} {
			if f.v == "" {
				continue
			}
			d, err := time.ParseDuration(f.v)
			if err != nil {
				return uc, fmt.Errorf("usage_limit.%s: %w", f.key, err)
			}
			*f.dst = d
		}
	}
	if err := uc.Validate(); err != nil {
		return uc, err
	}
	return uc, nil
}
