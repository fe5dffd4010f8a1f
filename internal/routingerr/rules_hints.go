package routingerr

import (
	"strings"
	"time"
)

// Rules decided by a hint alone: a rate-limit header dump that says the
// window is spent, and a text whose only evidence is the wait it asks
// for. The hints themselves are read in hints.go.
var hintRules = []rule{
	// Codex's rate-limit headers (codex-rs reads x-codex-{primary,
	// secondary}-{used-percent,window-minutes,reset-at,reset-after-seconds})
	// printed by a proxy or a debug log: a window at 100% is a usage
	// window, whatever status comes with it, until its reset.
	{id: "codex.usage_window_headers.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		gate: []string{kwCodexUsed[0].w, kwCodexUsed[1].w},
		match: func(s *scan) int {
			for _, w := range []string{"primary", "secondary"} {
				if spentWindow(s, w) {
					return s.index("x-codex-"+w+"-used-percent", false)
				}
			}
			return -1
		}},
	// The provider or a gateway says when to try again and nothing else
	// names the failure: "Limit 3, Used 3, Requested 1. Please try again
	// in 20s.", "All accounts temporarily rate-limited … Wait ~30s before
	// retrying.", "请 117 秒后重试". A short wait is a rate limit; a long
	// one ("Come back in 3h 47m — your free usage resets …") a window,
	// not replayed until it ends. A retry still under way ("retrying in")
	// is the agent's, read by the progress rules or left unclassified.
	{id: "hint.stated_wait_short.v1", band: bandFallback, code: "rate_limited", class: ClassTransient, conf: 0.6,
		gate:  statedWaitWords,
		match: func(s *scan) int { return statedWaitAt(s, true) },
		hint:  statedWaitHints},
	{id: "hint.stated_wait_long.v1", band: bandFallback, code: "quota", class: ClassWaitForReset, conf: 0.6,
		gate:  statedWaitWords,
		match: func(s *scan) int { return statedWaitAt(s, false) },
		hint:  statedWaitHints},
}

// statedWaitHints: the stated wait is the retry hint, and a window's end is
// now plus the wait unless the text gives the instant.
func statedWaitHints(s *scan, c Classification) Classification {
	d, ok := statedWait(s)
	if !ok {
		return defaultHints(s, c)
	}
	c.RetryAfter = new(d)
	if c.Class == ClassWaitForReset {
		if t, ok := resetHint(s); ok {
			c.ResetAt = new(t)
		} else if !s.now.IsZero() {
			c.ResetAt = new(s.now.Add(d).UTC().Truncate(time.Second))
		}
	}
	return c
}

var statedWaitWords = func() []string {
	var ws []string
	for _, k := range kwTryAgainIn {
		ws = append(ws, k.w)
	}
	for _, k := range kwResetIn {
		ws = append(ws, k.w)
	}
	ws = append(ws, kwWait.w)
	return append(ws, kwSecondsThenRetry...)
}()

// statedWaitAt is where the text states a wait of at most shortReset
// (short) or more (!short), or -1. The offset only places the excerpt.
func statedWaitAt(s *scan, short bool) int {
	for _, w := range []string{"retrying in ", "retrying after ", "will retry", "retry attempt", "retrying now"} {
		if strings.Contains(s.low, w) {
			return -1
		}
	}
	d, ok := statedWait(s)
	if !ok || d <= 0 || (d <= shortReset) != short {
		return -1
	}
	for _, w := range statedWaitWords {
		if i := s.index(w, false); i >= 0 {
			return i
		}
	}
	return 0
}

// statedWait is the wait the text asks for: an advice ("try again in",
// "wait … before", "N 秒后重试") or a window's relative end.
func statedWait(s *scan) (time.Duration, bool) {
	for _, k := range kwTryAgainIn {
		if d, ok := durationAfterKW(s, k); ok {
			return d, true
		}
	}
	if d, ok := waitBefore(s); ok {
		return d, true
	}
	if d, ok := secondsThenRetry(s); ok {
		return d, true
	}
	return relativeDelay(s)
}
