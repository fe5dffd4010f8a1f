package routingerr

import (
	"errors"
	"testing"
	"time"
)

func dur(d time.Duration) *time.Duration { return &d }

func TestPolicyDecide(t *testing.T) {
	t.Parallel()
	now := testNow
	reset := now.Add(3 * time.Hour)
	overloaded := Classification{Code: "overloaded", Class: ClassTransient}
	network := Classification{Code: "network", Class: ClassTransient, ResumeSafe: true}
	rate := func(hint *time.Duration) Classification {
		return Classification{Code: "rate_limited", Class: ClassTransient, RetryAfter: hint}
	}
	tests := []struct {
		name string
		c    Classification
		ev   Evidence
		st   AttemptState
		u    float64
		want Decision
	}{
		{"overloaded first retry", overloaded, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionRetry, Delay: 5 * time.Second, Retry: 1, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"overloaded third retry", overloaded, Evidence{}, AttemptState{Retry: 2}, 0,
			Decision{Kind: DecisionRetry, Delay: 30 * time.Second, Retry: 3, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"overloaded exhausted", overloaded, Evidence{}, AttemptState{Retry: 3}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonExhausted, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"jitter lengthens", overloaded, Evidence{}, AttemptState{Retry: 1}, 0.5,
			Decision{Kind: DecisionRetry, Delay: 16500 * time.Millisecond, Retry: 2, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"retry-after is a lower bound", Classification{Code: "overloaded", Class: ClassTransient, RetryAfter: dur(20 * time.Second)},
			Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionRetry, Delay: 20 * time.Second, Retry: 1, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"schedule is a lower bound too", Classification{Code: "unavailable", Class: ClassTransient, RetryAfter: dur(time.Second)},
			Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionRetry, Delay: 5 * time.Second, Retry: 1, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"in progress is scheduled like overload", Classification{Code: "in_progress", Class: ClassInProgress},
			Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionRetry, Delay: 5 * time.Second, Retry: 1, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"in progress honours the agent's stated wait", Classification{Code: "in_progress", Class: ClassInProgress, RetryAfter: dur(40 * time.Second)},
			Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionRetry, Delay: 40 * time.Second, Retry: 1, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"in progress after output is not replayed", Classification{Code: "in_progress", Class: ClassInProgress},
			Evidence{HadOutput: true}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonReplayUnsafe, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"network is immediate first", network, Evidence{HadOutput: true}, AttemptState{}, 0.9,
			Decision{Kind: DecisionRetry, Delay: 0, Retry: 1, MaxAttempts: 2, Family: FamilyNetwork}},
		{"network second after 5s", network, Evidence{}, AttemptState{Retry: 1}, 0,
			Decision{Kind: DecisionRetry, Delay: 5 * time.Second, Retry: 2, MaxAttempts: 2, Family: FamilyNetwork}},
		{"network budget of 2", network, Evidence{}, AttemptState{Retry: 2}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonExhausted, MaxAttempts: 2, Family: FamilyNetwork}},
		{"short 429 hint", rate(dur(644 * time.Millisecond)), Evidence{}, AttemptState{}, 0.5,
			Decision{Kind: DecisionRetry, Delay: 709 * time.Millisecond, Retry: 1, MaxAttempts: 3, Family: FamilyRateLimited}},
		{"429 without hint uses the schedule", rate(nil), Evidence{}, AttemptState{Retry: 1}, 0,
			Decision{Kind: DecisionRetry, Delay: 15 * time.Second, Retry: 2, MaxAttempts: 3, Family: FamilyRateLimited}},
		{"long 429 hint waits", rate(dur(10 * time.Minute)), Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionWaitUntil, Until: now.Add(10 * time.Minute), Reason: ReasonHintTooLong, MaxAttempts: 3, Family: FamilyRateLimited}},
		{"long 503 hint waits too", Classification{Code: "unavailable", Class: ClassTransient, RetryAfter: dur(10 * time.Minute)}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionWaitUntil, Until: now.Add(10 * time.Minute), Reason: ReasonHintTooLong, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"long 529 hint is a lower bound", Classification{Code: "overloaded", Class: ClassTransient, RetryAfter: dur(10 * time.Minute)}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionRetry, Delay: 10 * time.Minute, Retry: 1, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"wait for reset", Classification{Code: "quota", Class: ClassWaitForReset, ResetAt: &reset}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionWaitUntil, Until: reset}},
		{"wait for unknown reset", Classification{Code: "quota", Class: ClassWaitForReset}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionWaitUntil}},
		{"user action", Classification{Code: "auth", Class: ClassUserAction}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonNotTransient}},
		{"terminal", Classification{Code: "context_overflow", Class: ClassTerminal}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonNotTransient}},
		{"unclassified", Classification{Code: "unknown", Class: ClassUnclassified}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonUnclassified}},
		{"cancel flag", overloaded, Evidence{Cancelled: true}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonCancelled}},
		{"cancelled code", Classification{Code: "cancelled", Class: ClassTerminal}, Evidence{}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonCancelled}},
		{"output happened and not resume-safe", overloaded, Evidence{HadOutput: true}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonReplayUnsafe, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"tools ran and not resume-safe", overloaded, Evidence{HadToolActivity: true}, AttemptState{}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonReplayUnsafe, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"task disabled", overloaded, Evidence{}, AttemptState{TaskMaxAttempts: 1}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonDisabled, Family: FamilyOverloaded}},
		{"disabled is never revived by a chain", overloaded, Evidence{}, AttemptState{TaskMaxAttempts: 1, ChainMax: 5}, 0,
			Decision{Kind: DecisionManual, Reason: ReasonDisabled, Family: FamilyOverloaded}},
		{"task widens the budget", overloaded, Evidence{}, AttemptState{TaskMaxAttempts: 5, Retry: 4}, 0,
			Decision{Kind: DecisionRetry, Delay: 30 * time.Second, Retry: 5, MaxAttempts: 5, Family: FamilyOverloaded}},
		{"a task never narrows the policy", network, Evidence{}, AttemptState{TaskMaxAttempts: 2}, 0,
			Decision{Kind: DecisionRetry, Delay: 0, Retry: 1, MaxAttempts: 2, Family: FamilyNetwork}},
		{"the policy widens a small task budget", overloaded, Evidence{}, AttemptState{TaskMaxAttempts: 2, Retry: 2}, 0,
			Decision{Kind: DecisionRetry, Delay: 30 * time.Second, Retry: 3, MaxAttempts: 3, Family: FamilyOverloaded}},
		{"the chain's ceiling holds when the family changes", network, Evidence{}, AttemptState{Retry: 2, ChainMax: 3}, 0,
			Decision{Kind: DecisionRetry, Delay: 5 * time.Second, Retry: 3, MaxAttempts: 3, Family: FamilyNetwork}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := NewPolicy(PolicyConfig{}, func() float64 { return tt.u })
			if got := p.Decide(tt.c, tt.ev, tt.st, now); got != tt.want {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestPolicyNeverDescribesMoreRetriesThanItsCeiling(t *testing.T) {
	t.Parallel()
	p := NewPolicy(PolicyConfig{}, func() float64 { return 0.99 })
	for _, task := range []int{0, 2, 3, 4, 7} {
		for _, code := range []string{"overloaded", "network", "rate_limited", "server_error"} {
			c := Classification{Code: code, Class: ClassTransient, ResumeSafe: true}
			st := AttemptState{TaskMaxAttempts: task}
			for {
				d := p.Decide(c, Evidence{}, st, testNow)
				if d.Kind != DecisionRetry {
					if d.Reason != ReasonExhausted || st.Retry != d.MaxAttempts {
						t.Fatalf("%s task=%d: ended with %+v after %d retries", code, task, d, st.Retry)
					}
					break
				}
				if d.Retry > d.MaxAttempts || d.Retry != st.Retry+1 {
					t.Fatalf("%s task=%d: attempt %d/%d", code, task, d.Retry, d.MaxAttempts)
				}
				st = AttemptState{Retry: d.Retry, TaskMaxAttempts: task, ChainMax: d.MaxAttempts}
			}
		}
	}
}

func TestPolicyConfig(t *testing.T) {
	t.Parallel()
	p := NewPolicy(PolicyConfig{
		Overloaded: Schedule{Delays: []time.Duration{time.Second}},
		Scale:      0.01, Jitter: 0.5,
	}, func() float64 { return 0.5 })
	cfg := p.Config()
	if cfg.Overloaded.Budget != 3 || cfg.Network.Budget != 2 || cfg.MaxShortHint != 2*time.Minute {
		t.Errorf("defaults not filled: %+v", cfg)
	}
	// 1s (the last delay repeats) × 0.01 × 1.25.
	d := p.Decide(Classification{Code: "overloaded", Class: ClassTransient}, Evidence{}, AttemptState{Retry: 2}, testNow)
	if d.Delay != 13*time.Millisecond {
		t.Errorf("scaled delay = %v, want 13ms", d.Delay)
	}
	if NewPolicy(PolicyConfig{}, nil).rand() >= 1 {
		t.Error("default random source out of range")
	}
	// A random source out of range is clamped, never shortens a delay.
	d = NewPolicy(PolicyConfig{}, func() float64 { return -3 }).Decide(Classification{Code: "overloaded", Class: ClassTransient}, Evidence{}, AttemptState{}, testNow)
	if d.Delay != 5*time.Second {
		t.Errorf("delay with a broken random source = %v", d.Delay)
	}
}

func TestPolicyConfigValidate(t *testing.T) {
	t.Parallel()
	if err := (PolicyConfig{}).Validate(); err != nil {
		t.Fatalf("zero config: %v", err)
	}
	bad := []struct {
		cfg   PolicyConfig
		field string
	}{
		{PolicyConfig{Network: Schedule{Delays: []time.Duration{0, -time.Second}}}, "Network.Delays[1]"},
		{PolicyConfig{RateLimited: Schedule{Budget: -1}}, "RateLimited.Budget"},
		{PolicyConfig{MaxShortHint: -time.Second}, "MaxShortHint"},
		{PolicyConfig{Jitter: 1.5}, "Jitter"},
		{PolicyConfig{Jitter: -0.1}, "Jitter"},
		{PolicyConfig{Scale: -1}, "Scale"},
	}
	for _, b := range bad {
		err := b.cfg.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != b.field {
			t.Errorf("Validate(%+v) = %v, want a ConfigError on %s", b.cfg, err, b.field)
		}
	}
}

// The policy is used with Classify's output end to end.
func TestPolicyWithClassify(t *testing.T) {
	t.Parallel()
	p := NewPolicy(PolicyConfig{}, func() float64 { return 0 })
	ev := Evidence{Phase: PhaseStreaming, HadOutput: true, Err: "read tcp 1.2.3.4:5->6.7.8.9:443: read: connection reset by peer"}
	if d := p.Decide(Classify(ev, testNow), ev, AttemptState{}, testNow); d.Kind != DecisionRetry || d.Delay != 0 {
		t.Errorf("resume-safe network drop after output: %+v", d)
	}
	ev = Evidence{HTTPStatus: 429, Err: "retry-after: 27\n{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}"}
	if d := p.Decide(Classify(ev, testNow), ev, AttemptState{}, testNow); d.Kind != DecisionRetry || d.Delay != 27*time.Second {
		t.Errorf("429 with retry-after: %+v", d)
	}
}

// claude-agent-acp streams its error line as text, then fails the prompt
// with the same line: that echo is not output that makes a replay unsafe.
func TestErrorEchoIsNotOutput(t *testing.T) {
	line := "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."
	echo := Evidence{Phase: PhaseStreaming, HasRPCError: true, RPCCode: -32603, RPCMessage: "Internal error: " + line,
		RPCData: `{"errorKind":"server_error"}`, HadOutput: true, OutputText: line}
	c := Classify(echo, testNow)
	if !c.OutputIsError || c.Code != "overloaded" {
		t.Fatalf("echo: %+v", c)
	}
	if d := NewPolicy(PolicyConfig{}, func() float64 { return 0 }).Decide(c, echo, AttemptState{}, testNow); d.Kind != DecisionRetry {
		t.Fatalf("an echoed error must still be retried, got %+v", d)
	}
	for name, ev := range map[string]Evidence{
		"real work before the error": func() Evidence { e := echo; e.OutputText = "Here is the refactored function: …"; return e }(),
		"output too long to keep":    func() Evidence { e := echo; e.OutputText = ""; return e }(),
		"tools ran":                  func() Evidence { e := echo; e.HadToolActivity = true; return e }(),
	} {
		c := Classify(ev, testNow)
		if c.OutputIsError {
			t.Errorf("%s: OutputIsError must be false", name)
		}
		if d := NewPolicy(PolicyConfig{}, nil).Decide(c, ev, AttemptState{}, testNow); d.Kind != DecisionManual || d.Reason != ReasonReplayUnsafe {
			t.Errorf("%s: want manual replay_unsafe, got %+v", name, d)
		}
	}
}

func TestNoJitterGivesExactDelays(t *testing.T) {
	c := Classification{Code: "overloaded", Class: ClassTransient}
	p := NewPolicy(PolicyConfig{NoJitter: true}, func() float64 { return 0.99 })
	if d := p.Decide(c, Evidence{}, AttemptState{}, testNow); d.Delay != 5*time.Second {
		t.Fatalf("want exactly 5s without jitter, got %v", d.Delay)
	}
	p = NewPolicy(PolicyConfig{}, func() float64 { return 0.99 })
	if d := p.Decide(c, Evidence{}, AttemptState{}, testNow); d.Delay <= 5*time.Second || d.Delay > 6*time.Second {
		t.Fatalf("default jitter must lengthen 5s by at most 20%%, got %v", d.Delay)
	}
}
