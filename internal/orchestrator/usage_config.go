package orchestrator

// What a task does when its provider's usage window is exhausted (issue
// 14): wait until the reset and continue, or ask (the recovery banner with
// the reset time). The same applies to a 429 or 503 whose hint asks for
// longer than the policy's max_short_hint.

import (
	"fmt"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// UsageConfig configures waiting out usage windows (Config.Usage). Zero
// values are the defaults written next to them.
type UsageConfig struct {
	// Default is what a task that does not say does: store.UsageLimitWait
	// or store.UsageLimitAsk. Default ask (today's banner).
	Default string
	// Margin is added to a known reset before the session continues, for
	// clocks that disagree and windows that reopen a moment late. Default
	// DefaultUsageMargin. Not scaled by --retry-scale: a reset is the
	// provider's wall-clock time.
	Margin time.Duration
	// ProbeEvery is how often a window with no known reset is tried again;
	// at least MinUsageProbe. Default MinUsageProbe. Scaled by Scale.
	ProbeEvery time.Duration
	// MaxWait bounds the wait of a task without its own deadline
	// (gate_deadline_seconds), counted from the chain's first usage wait;
	// a reset later than that ends in the banner. Default DefaultUsageMaxWait.
	MaxWait time.Duration
	// ReleaseWindow spreads the sessions of a window after the first one
	// has continued successfully. Default DefaultUsageRelease. Scaled by Scale.
	ReleaseWindow time.Duration
	// Scale multiplies ProbeEvery and ReleaseWindow (--retry-scale); 0 is 1.
	Scale float64
}

// Usage defaults.
const (
	DefaultUsageMargin  = 30 * time.Second
	MinUsageProbe       = 15 * time.Minute
	DefaultUsageMaxWait = 24 * time.Hour
	DefaultUsageRelease = 10 * time.Second
)

// Validate reports the first unusable value.
func (c UsageConfig) Validate() error {
	switch {
	case c.Default != "" && c.Default != store.UsageLimitWait && c.Default != store.UsageLimitAsk:
		return fmt.Errorf("usage_limit.default must be wait or ask, got %q", c.Default)
	case c.Margin < 0:
		return fmt.Errorf("usage_limit.margin must not be negative, got %s", c.Margin)
	case c.ProbeEvery != 0 && c.ProbeEvery < MinUsageProbe:
		return fmt.Errorf("usage_limit.probe_every must be at least %s (a provider's usage window is not probed more often), got %s", MinUsageProbe, c.ProbeEvery)
	case c.MaxWait < 0 || c.MaxWait > MaxGateDeadline:
		return fmt.Errorf("usage_limit.max_wait must be between 0 and 7 days, got %s", c.MaxWait)
	case c.ReleaseWindow < 0:
		return fmt.Errorf("usage_limit.release_window must not be negative, got %s", c.ReleaseWindow)
	case c.Scale < 0:
		return fmt.Errorf("usage_limit scale must not be negative, got %v", c.Scale)
	}
	return nil
}

// withDefaults fills zero values and applies Scale.
func (c UsageConfig) withDefaults() UsageConfig {
	if c.Default == "" {
		c.Default = store.UsageLimitAsk
	}
	if c.Margin == 0 {
		c.Margin = DefaultUsageMargin
	}
	if c.ProbeEvery == 0 {
		c.ProbeEvery = MinUsageProbe
	}
	if c.MaxWait == 0 {
		c.MaxWait = DefaultUsageMaxWait
	}
	if c.ReleaseWindow == 0 {
		c.ReleaseWindow = DefaultUsageRelease
	}
	if c.Scale > 0 && c.Scale != 1 {
		c.ProbeEvery = time.Duration(float64(c.ProbeEvery) * c.Scale)
		c.ReleaseWindow = time.Duration(float64(c.ReleaseWindow) * c.Scale)
	}
	return c
}

// validateOnUsageLimit checks CreateTaskRequest.OnUsageLimit.
func validateOnUsageLimit(v string) error {
	switch v {
	case "", store.UsageLimitWait, store.UsageLimitAsk:
		return nil
	}
	return fmt.Errorf("%w: on_usage_limit must be %q or %q, got %q", ErrValidation, store.UsageLimitWait, store.UsageLimitAsk, v)
}

// waitsOnUsage: the task waits out usage windows and long hints.
func (s *Service) waitsOnUsage(t store.Task) bool {
	v := t.OnUsageLimit
	if v == "" {
		v = s.usage.cfg.Default
	}
	return v == store.UsageLimitWait
}

// usageMaxWait is how long a chain of rt's task may wait on usage windows:
// the task's own deadline when it sets one, else the daemon's MaxWait.
func (s *Service) usageMaxWait(rt *sessionRT) time.Duration {
	if d := rt.task.GateDeadline; d > 0 {
		return d
	}
	return s.usage.cfg.MaxWait
}
