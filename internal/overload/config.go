package overload

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Config configures every gate. Zero values mean the default written next
// to each field. Validate it once at start-up.
type Config struct {
	// Disabled turns coordination off: every session retries on its own
	// schedule, as if no gate existed. Default false (the gate is on).
	Disabled bool
	// Threshold is how many distinct sessions of one key must fail within
	// Window for the gate to open. Default 3.
	Threshold int
	// Window is the span in which those failures must fall. Default 30s.
	Window time.Duration
	// FirstProbe is the delay from the gate opening to its first probe.
	// Default 5s, the first step of the per-session overload schedule, so a
	// short blip costs no more latency than it did without the gate.
	FirstProbe time.Duration
	// Backoff is the delay before the next probe after the 1st, 2nd, …
	// failed probe; the last one repeats. Default 10s, 20s, 40s, 60s.
	//
	// FirstProbe and Backoff are the spacing for one waiting session. With
	// n waiting, the gate probes n times as often, but never more often
	// than MinProbeInterval: it never sends more than the waiting sessions
	// would on that schedule by themselves, and while many wait it finds
	// out within MinProbeInterval that the provider is back.
	Backoff []time.Duration
	// MinProbeInterval is the shortest spacing of two probes. Default 2s.
	MinProbeInterval time.Duration
	// ProbeTimeout frees the probe slot when a probe has shown no sign of
	// an answer for this long (a hung agent or connection must not hold
	// the gate until every waiter's deadline); the next waiter probes.
	// Default 2m.
	ProbeTimeout time.Duration
	// ReleaseWindow spreads the waiting sessions when the gate closes: all
	// are back at work within it, never all released at once. Default 5s.
	ReleaseWindow time.Duration
	// ReleaseRate is how many sessions per second a closing gate releases
	// until ReleaseWindow is reached, so that a few waiters go at once
	// (over at least 400ms) and many are spread. Default 1000.
	ReleaseRate float64
	// Deadline bounds how long one session's retry chain may wait on gates
	// in all; past it the session stops waiting and shows the recovery
	// banner. Default 30m.
	Deadline time.Duration
	// Scale multiplies every duration above and divides ReleaseRate (demos,
	// tests and the overload benchmark). Default 1.
	Scale float64

	minRelease time.Duration // set by WithDefaults
}

// ReleaseWindowFor is the spread of n released sessions: n at ReleaseRate,
// at least 400ms (scaled), at most nine tenths of ReleaseWindow. The window
// bounds when the last session is back at work, and the last one released
// still has to be claimed, started and answered: with ten thousand waiting,
// a spread over the whole window ended them 0.0-0.5s past it. c has its
// defaults applied.
func (c Config) ReleaseWindowFor(n int) time.Duration {
	w := time.Duration(float64(n) / c.ReleaseRate * float64(time.Second))
	return min(max(w, c.minRelease), c.ReleaseWindow*9/10)
}

// Defaults (see Config).
const (
	DefaultThreshold     = 3
	DefaultWindow        = 30 * time.Second
	DefaultFirstProbe    = 5 * time.Second
	DefaultReleaseWindow = 5 * time.Second
	DefaultDeadline      = 30 * time.Minute

	DefaultMinProbeInterval = 2 * time.Second
	DefaultProbeTimeout     = 2 * time.Minute
	DefaultReleaseRate      = 1000.0
	// minReleaseWindow keeps even two released sessions 100ms apart
	// (Spread puts the first and the last a quarter window apart).
	minReleaseWindow = 400 * time.Millisecond
)

// DefaultBackoff is the probe backoff after failed probes.
var DefaultBackoff = []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 60 * time.Second}

// ConfigError is a Config field with an unusable value.
type ConfigError struct {
	Field  string // e.g. "Backoff[1]"
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("overload gate: %s = %v: %s", e.Field, e.Value, e.Reason)
}

// Validate reports the first unusable value as a *ConfigError.
func (c Config) Validate() error {
	if c.Threshold < 0 {
		return &ConfigError{Field: "Threshold", Value: c.Threshold, Reason: "must not be negative"}
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Window", c.Window}, {"FirstProbe", c.FirstProbe}, {"MinProbeInterval", c.MinProbeInterval}, {"ProbeTimeout", c.ProbeTimeout},
		{"ReleaseWindow", c.ReleaseWindow}, {"Deadline", c.Deadline}} {
		if f.d < 0 {
			return &ConfigError{Field: f.name, Value: f.d, Reason: "must not be negative"}
		}
	}
	for i, d := range c.Backoff {
		if d <= 0 {
			return &ConfigError{Field: fmt.Sprintf("Backoff[%d]", i), Value: d, Reason: "must be positive"}
		}
	}
	if c.ReleaseRate < 0 || math.IsNaN(c.ReleaseRate) || math.IsInf(c.ReleaseRate, 0) {
		return &ConfigError{Field: "ReleaseRate", Value: c.ReleaseRate, Reason: "must be a finite number, not negative"}
	}
	if c.Scale < 0 || math.IsNaN(c.Scale) || math.IsInf(c.Scale, 0) {
		return &ConfigError{Field: "Scale", Value: c.Scale, Reason: "must be a finite number, not negative"}
	}
	return nil
}

// WithDefaults fills zero values and applies Scale; the result has Scale 1.
// Values Validate rejects are replaced by defaults too, so a Gate is always
// usable.
func (c Config) WithDefaults() Config {
	scale := c.Scale
	if scale <= 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		scale = 1
	}
	pick := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			d = def
		}
		return scaled(d, scale)
	}
	out := Config{
		Disabled:      c.Disabled,
		Threshold:     c.Threshold,
		Window:        pick(c.Window, DefaultWindow),
		FirstProbe:    pick(c.FirstProbe, DefaultFirstProbe),
		ReleaseWindow: pick(c.ReleaseWindow, DefaultReleaseWindow),
		Deadline:      pick(c.Deadline, DefaultDeadline),
		Scale:         1,

		MinProbeInterval: pick(c.MinProbeInterval, DefaultMinProbeInterval),
		ProbeTimeout:     pick(c.ProbeTimeout, DefaultProbeTimeout),
		ReleaseRate:      c.ReleaseRate,
		minRelease:       scaled(minReleaseWindow, scale),
	}
	if !(out.ReleaseRate > 0) || math.IsInf(out.ReleaseRate, 0) {
		out.ReleaseRate = DefaultReleaseRate
	}
	out.ReleaseRate /= scale // a rate: scaled time runs faster
	out.minRelease = min(out.minRelease, out.ReleaseWindow)
	if out.Threshold <= 0 {
		out.Threshold = DefaultThreshold
	}
	backoff := c.Backoff
	if len(backoff) == 0 || slices.ContainsFunc(backoff, func(d time.Duration) bool { return d <= 0 }) {
		backoff = DefaultBackoff
	}
	out.Backoff = make([]time.Duration, len(backoff))
	for i, d := range backoff {
		out.Backoff[i] = scaled(d, scale)
	}
	return out
}

func scaled(d time.Duration, scale float64) time.Duration {
	f := float64(d) * scale
	if f >= 1<<62 {
		return 1 << 62
	}
	if f < 1 {
		return 1 // a positive duration stays positive
	}
	return time.Duration(math.Round(f))
}

// Gated reports whether failures with this routing code are coordinated by
// a gate: the provider-wide families overloaded, capacity, unavailable and
// server_error. Everything else is per session: rate limits (which carry
// their own retry-after), network and transport failures, usage windows and
// anything a user must fix.
func Gated(code string) bool {
	switch code {
	case "overloaded", "capacity", "unavailable", "server_error":
		return true
	}
	return false
}

// Key is the gate key of a provider: the agent profile, and the model when
// the evidence names one.
func Key(agent, model string) string {
	if model == "" {
		return agent
	}
	return agent + "/" + model
}

// Spread returns n release offsets within [0, window): slot i of n is
// jittered by up to half a slot, so the sessions go in order, evenly spread,
// and for n ≥ 2 the first and the last are at least window/4 apart (never
// all in the same instant). rand returns u in [0,1); nil means no jitter.
func Spread(n int, window time.Duration, rand func() float64) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		u := 0.0
		if rand != nil {
			u = rand()
			if u < 0 || u >= 1 || math.IsNaN(u) {
				u = 0
			}
		}
		out[i] = time.Duration(float64(window) * (float64(i) + u/2) / float64(n))
	}
	return out
}
