package routingerr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Schedule is the backoff of one code family.
type Schedule struct {
	// Delays before retry 1, 2, …; the last one repeats. Nil means the
	// family's default.
	Delays []time.Duration
	// Budget is the number of automatic retries. Zero means the default.
	Budget int
}

// PolicyConfig configures Policy (DESIGN §4). Every zero value means the
// default written next to it. Validate it once at start-up.
type PolicyConfig struct {
	// Overloaded: overloaded, capacity, unavailable, server_error and the
	// agent's own in-progress retries. Default 5s, 15s, 30s; budget 3.
	Overloaded Schedule
	// Network: network and transport_lost. Default 0s, 5s; budget 2.
	Network Schedule
	// RateLimited: rate_limited. The provider's hint is used when there is
	// one; these delays when not. Default 5s, 15s, 30s; budget 3.
	RateLimited Schedule
	// MaxShortHint: a rate-limit (429) or unavailable (503) hint longer
	// than this is not retried on the schedule; the decision waits until it
	// has passed (wait_until, hint_too_long). Default 2m.
	MaxShortHint time.Duration
	// Jitter: a delay d becomes d*(1+u*Jitter), u in [0,1). Jitter only
	// lengthens, so a delay is never below the schedule nor the provider's
	// retry-after. Default 0.2; at most 1.
	Jitter float64
	// NoJitter turns jitter off (Jitter's zero value means the default).
	NoJitter bool
	// Scale multiplies every delay, hints included (demos and tests).
	// Default 1.
	Scale float64
}

// Default schedules (DESIGN §4).
var (
	defaultOverloaded   = Schedule{Delays: []time.Duration{5 * time.Second, 15 * time.Second, 30 * time.Second}, Budget: 3}
	defaultNetwork      = Schedule{Delays: []time.Duration{0, 5 * time.Second}, Budget: 2}
	defaultRateLimited  = Schedule{Delays: []time.Duration{5 * time.Second, 15 * time.Second, 30 * time.Second}, Budget: 3}
	defaultMaxShortHint = 2 * time.Minute
	defaultJitter       = 0.2
)

// ConfigError is a PolicyConfig field with an unusable value.
type ConfigError struct {
	Field  string // e.g. "Network.Delays[1]"
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("retry policy: %s = %v: %s", e.Field, e.Value, e.Reason)
}

// Validate reports the first unusable value as a *ConfigError.
func (c PolicyConfig) Validate() error {
	for _, f := range []struct {
		name string
		s    Schedule
	}{{"Overloaded", c.Overloaded}, {"Network", c.Network}, {"RateLimited", c.RateLimited}} {
		for i, d := range f.s.Delays {
			if d < 0 {
				return &ConfigError{Field: fmt.Sprintf("%s.Delays[%d]", f.name, i), Value: d, Reason: "must not be negative"}
			}
		}
		if f.s.Budget < 0 {
			return &ConfigError{Field: f.name + ".Budget", Value: f.s.Budget, Reason: "must not be negative"}
		}
	}
	if c.MaxShortHint < 0 {
		return &ConfigError{Field: "MaxShortHint", Value: c.MaxShortHint, Reason: "must not be negative"}
	}
	if c.Jitter < 0 || c.Jitter > 1 || math.IsNaN(c.Jitter) {
		return &ConfigError{Field: "Jitter", Value: c.Jitter, Reason: "must be between 0 and 1"}
	}
	if c.Scale < 0 || math.IsNaN(c.Scale) || math.IsInf(c.Scale, 0) {
		return &ConfigError{Field: "Scale", Value: c.Scale, Reason: "must be a finite number, not negative"}
	}
	return nil
}

// withDefaults fills zero values. Values Validate rejects are replaced by
// defaults too, so a Policy is always usable.
func (c PolicyConfig) withDefaults() PolicyConfig {
	c.Overloaded = c.Overloaded.withDefaults(defaultOverloaded)
	c.Network = c.Network.withDefaults(defaultNetwork)
	c.RateLimited = c.RateLimited.withDefaults(defaultRateLimited)
	if c.MaxShortHint <= 0 {
		c.MaxShortHint = defaultMaxShortHint
	}
	if c.Jitter <= 0 || c.Jitter > 1 || math.IsNaN(c.Jitter) {
		c.Jitter = defaultJitter
	}
	if c.NoJitter {
		c.Jitter = 0
	}
	if c.Scale <= 0 || math.IsNaN(c.Scale) || math.IsInf(c.Scale, 0) {
		c.Scale = 1
	}
	return c
}

func (s Schedule) withDefaults(def Schedule) Schedule {
	out := Schedule{Delays: slices.Clone(s.Delays), Budget: s.Budget}
	if len(out.Delays) == 0 || slices.ContainsFunc(out.Delays, func(d time.Duration) bool { return d < 0 }) {
		out.Delays = slices.Clone(def.Delays) // never hand out the shared default
	}
	if out.Budget <= 0 {
		out.Budget = def.Budget
	}
	return out
}

// DecisionKind says what to do with a failed turn.
type DecisionKind string

const (
	DecisionRetry     DecisionKind = "retry"      // replay after Delay
	DecisionWaitUntil DecisionKind = "wait_until" // a usage window: nothing is replayed; show Until
	DecisionManual    DecisionKind = "manual"     // recovery banner at once
)

// Decision reasons (Decision.Reason).
const (
	ReasonNotTransient = "not_transient"
	ReasonUnclassified = "unclassified"
	ReasonDisabled     = "disabled"
	ReasonExhausted    = "exhausted"
	ReasonReplayUnsafe = "replay_unsafe"
	ReasonHintTooLong  = "hint_too_long"
	ReasonCancelled    = "cancelled"
)

// Schedule families (Decision.Family).
const (
	FamilyOverloaded  = "overloaded"
	FamilyNetwork     = "network"
	FamilyRateLimited = "rate_limited"
)

// AttemptState is where a retry chain stands.
type AttemptState struct {
	Retry           int // automatic retries already made in this chain (0 at the first failure)
	TaskMaxAttempts int // task setting: 0 unset, 1 auto-retry disabled, N ≥ 2 → max(N, policy budget)
	ChainMax        int // ceiling already written into this chain (0 = none yet); a policy only widens it
}

// Decision is the policy's answer for one failure.
type Decision struct {
	Kind        DecisionKind
	Delay       time.Duration // retry: the exact delay, jitter and scale included
	Until       time.Time     // wait_until: the reset (zero when unknown)
	Retry       int           // retry: the retry this schedules, 1-based ("attempt Retry/MaxAttempts")
	MaxAttempts int           // effective ceiling of automatic retries for this chain
	Reason      string        // manual (and wait_until on a long hint): Reason… constants
	Family      string        // schedule family used: Family… constants
}

// Policy decides retries (DESIGN §4). It is pure: no clock, no timers; the
// random source is injected. Safe for concurrent use if rand is.
type Policy struct {
	cfg  PolicyConfig
	rand func() float64
}

// NewPolicy returns a policy; zero config values take their defaults.
// Validate cfg first: NewPolicy replaces invalid values by defaults.
// rand returns u in [0,1) for jitter; nil means math/rand/v2.
func NewPolicy(cfg PolicyConfig, rand func() float64) *Policy {
	if rand == nil {
		rand = randFloat
	}
	return &Policy{cfg: cfg.withDefaults(), rand: rand}
}

func randFloat() float64 { return rand.Float64() }

// Config returns the effective configuration, defaults filled in.
func (p *Policy) Config() PolicyConfig { return p.cfg }

// Decide returns what to do after a failure classified as c.
func (p *Policy) Decide(c Classification, ev Evidence, st AttemptState, now time.Time) Decision {
	if ev.Cancelled || c.Code == "cancelled" {
		return Decision{Kind: DecisionManual, Reason: ReasonCancelled}
	}
	switch c.Class {
	case ClassWaitForReset:
		d := Decision{Kind: DecisionWaitUntil}
		if c.ResetAt != nil {
			d.Until = *c.ResetAt
		}
		return d
	case ClassUserAction, ClassTerminal:
		return Decision{Kind: DecisionManual, Reason: ReasonNotTransient}
	case ClassTransient, ClassInProgress:
		// in_progress at turn end is retried like an overload, on purpose.
		// The class means the agent's last word was its own retry line
		// ("Retrying in 4 seconds… (attempt 4/10)", "Attempt 2 failed …
		// Retrying with backoff…"): the classifier only says so when
		// nothing came after it (no exit status, no later error line, no
		// JSON-RPC error of another text; see retriesOver), so what ended
		// the turn cut the agent's loop short rather than ending it. Then:
		//   - nothing is retrying any more, so a retry here does not stack
		//     on the agent's own (the danger the class exists to avoid while
		//     the turn runs: there a retry line is a notice, not a failure);
		//   - the agent itself judged the failure retryable, and an agent
		//     that gives up says so in a final error, which then decides;
		//   - the overload schedule (5s, 15s, 30s, budget 3) is the slow one:
		//     the agent was already backing off; its stated wait (RetryAfter)
		//     is a lower bound on the delay, and replay safety still applies
		//     (in_progress is never resume-safe, so output or tool work turns
		//     it into a manual retry).
		// An agent wrong about retryability (Gemini CLI retrying a PerDay
		// quota) costs at most the budget's few cheap 429s; a red banner on
		// every cut-short retry would cost the user a recoverable session.
	default:
		return Decision{Kind: DecisionManual, Reason: ReasonUnclassified}
	}

	family, sched := p.schedule(c.Code)
	ceiling := p.ceiling(sched, st)
	base := Decision{MaxAttempts: ceiling, Family: family}
	switch {
	case st.TaskMaxAttempts == 1:
		// Disabled on the task, and never revived by a policy or a chain.
		return Decision{Kind: DecisionManual, Reason: ReasonDisabled, Family: family}
	case (ev.HadOutput && !c.OutputIsError || ev.HadToolActivity) && !c.ResumeSafe:
		base.Kind, base.Reason = DecisionManual, ReasonReplayUnsafe
		return base
	case (family == FamilyRateLimited || c.Code == "unavailable") && c.RetryAfter != nil && *c.RetryAfter > p.cfg.MaxShortHint:
		// A 429 or a 503 asking for longer than a short wait: the task
		// may wait it out (orchestrator: on_usage_limit), else the banner.
		base.Kind, base.Reason = DecisionWaitUntil, ReasonHintTooLong
		base.Until = now.Add(*c.RetryAfter)
		return base
	case st.Retry >= ceiling:
		base.Kind, base.Reason = DecisionManual, ReasonExhausted
		return base
	}
	base.Kind = DecisionRetry
	base.Retry = st.Retry + 1
	base.Delay = p.delay(family, sched, c, st.Retry)
	return base
}

// schedule maps a code to its schedule family.
func (p *Policy) schedule(code string) (string, Schedule) {
	switch code {
	case "network", "transport_lost":
		return FamilyNetwork, p.cfg.Network
	case "rate_limited":
		return FamilyRateLimited, p.cfg.RateLimited
	}
	return FamilyOverloaded, p.cfg.Overloaded
}

// ceiling: the policy budget, widened by the task's max_attempts (N ≥ 2)
// and by what the chain already promised; never narrowed.
func (p *Policy) ceiling(s Schedule, st AttemptState) int {
	n := s.Budget
	if st.TaskMaxAttempts >= 2 {
		n = max(n, st.TaskMaxAttempts)
	}
	return max(n, st.ChainMax)
}

// delay is the schedule step (or the provider's hint for rate limits),
// bounded below by the retry-after hint, scaled, then lengthened by jitter.
func (p *Policy) delay(family string, s Schedule, c Classification, retry int) time.Duration {
	d := s.Delays[min(max(retry, 0), len(s.Delays)-1)]
	if family == FamilyRateLimited && c.RetryAfter != nil {
		d = *c.RetryAfter
	}
	if c.RetryAfter != nil && d < *c.RetryAfter {
		d = *c.RetryAfter
	}
	u := p.rand()
	if u < 0 || u >= 1 || math.IsNaN(u) {
		u = 0
	}
	f := float64(d) * p.cfg.Scale * (1 + u*p.cfg.Jitter)
	if f >= 1<<62 { // absurd configurations must not overflow
		return 1 << 62
	}
	// Whole milliseconds, rounded up so a delay never undercuts its bound
	// (after rounding away float noise at the nanosecond).
	ns := int64(math.Round(f))
	ms := int64(time.Millisecond)
	return time.Duration((ns + ms - 1) / ms * ms)
}
