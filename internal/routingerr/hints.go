package routingerr

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxHint bounds any parsed duration: a hint beyond a month is noise.
const maxHint = 31 * 24 * time.Hour

// defaultHints fills RetryAfter for transient and usage-window failures and
// ResetAt for usage windows. Other classes carry no hint worth acting on.
func defaultHints(s *scan, c Classification) Classification {
	if c.Class != ClassTransient && c.Class != ClassWaitForReset {
		return c
	}
	if d, ok := retryAfterHint(s); ok {
		c.RetryAfter = new(d)
	} else if d, ok := relativeDelay(s); ok {
		// "Resets in: 30m0s", "Come back in 3h 47m": the window's end is
		// also when a retry can succeed.
		c.RetryAfter = new(d)
	}
	if c.Class == ClassWaitForReset {
		if t, ok := resetHint(s); ok {
			c.ResetAt = new(t)
		} else if t, ok := relativeReset(s); ok {
			c.ResetAt = new(t)
		}
	}
	return c
}

// fillHints gives a rule's own hints the ones it left out: Copilot's "Please
// wait 71 minutes" rule sets the window's end, the wait is the retry hint
// too. What the rule set stays.
func fillHints(s *scan, c Classification) Classification {
	if c.RetryAfter != nil && (c.ResetAt != nil || c.Class != ClassWaitForReset) {
		return c
	}
	d := defaultHints(s, Classification{Class: c.Class})
	if c.RetryAfter == nil {
		c.RetryAfter = d.RetryAfter
	}
	if c.ResetAt == nil {
		c.ResetAt = d.ResetAt
	}
	return c
}

// Keywords that gate the hint parsers.
var (
	kwRetryAfter      = newKW("retry-after")
	kwRetryDelay      = newKW("retrydelay")
	kwResetsInSeconds = newKW(`"resets_in_seconds"`)
	// CLIProxyAPI's model_cooldown 429 (sdk/cliproxy/auth/selector.go:
	// "reset_seconds": the cooldown's seconds, rounded up, beside its
	// "reset_time" as a Go duration): every credential for the model is
	// cooling down until then.
	kwResetSeconds = newKW(`"reset_seconds"`)
	// The advice forms of a delay. A colon may follow the preposition
	// (WindsurfAPI's "Resets in: 30m0s"); freebuff says "Come back in 3h
	// 47m".
	kwTryAgainIn = []*kw{newKW("try again in "), newKW("retry after "), newKW("retry in "), newKW("try again after "),
		newKW("come back in ")}
	// The Copilot API's 429 as Copilot CLI prints it: "Please wait for your
	// limit to reset in 3 hours 49 minutes or switch to auto model".
	kwResetIn = []*kw{newKW("reset after "), newKW("resets in "), newKW("try again in "), newKW("will reset in "),
		newKW("come back in "), newKW("resets in:"), newKW("limit to reset in ")}
	// "Wait ~30s before retrying", "please wait 8 seconds before trying
	// again": a delay the caller is asked to wait.
	kwWait = newKW("wait ")
	// "请 117 秒后重试" (WindsurfAPI: "please retry after 117 seconds"): the
	// number comes before the words.
	kwSecondsThenRetry = []string{"秒后重试", "秒後重試", "秒后再试"}
	// Codex's rate-limit headers as a proxy or a debug log prints them
	// ("x-codex-primary-used-percent: 100", "x-codex-primary-reset-at:
	// 1773860656"): a window at 100% is exhausted until its reset.
	kwCodexUsed = []*kw{newKW("x-codex-primary-used-percent"), newKW("x-codex-secondary-used-percent")}
	// OpenRouter's metadata headers ("X-RateLimit-Reset":"1741305600000")
	// and the header as other APIs print it.
	kwRateLimitReset  = newKW("x-ratelimit-reset")
	kwRetryAfterSnake = newKW("retry_after")
	// The camelCase key in key=value log lines: opencode-antigravity-auth's
	// "[RateLimit] 429 on <account> family=gemini retryAfterMs=60000"
	// (src/plugin/debug.ts logRateLimitEvent), and as a JSON key in a
	// gateway's 429 body ({"error": "Rate limited", "retryAfterMs": 45000},
	// docs.dragonclaw.asia/security/rate-limiting): milliseconds.
	kwRetryAfterMsKV  = newKW("retryafterms")
	kwQuotaResetDelay = newKW("quotaresetdelay")
	// Zed's agent logs its retry strategy's Debug: "Retrying with Fixed {
	// delay: 5s, max_attempts: 2 } for language model completion error …"
	// (crates/agent/src/thread.rs). A Fixed strategy waits its delay; an
	// ExponentialBackoff's initial_delay is only the first wait.
	kwZedFixedDelay = newKW("fixed { delay: ")
	kwRegainAccess  = newKW("regain access on ")
	kwResetDuration = []*kw{newKW("x-ratelimit-reset-requests"), newKW("x-ratelimit-reset-tokens")}
	kwResetTime     = []*kw{newKW("anthropic-ratelimit-requests-reset"), newKW("anthropic-ratelimit-tokens-reset"),
		newKW("anthropic-ratelimit-input-tokens-reset"), newKW("anthropic-ratelimit-output-tokens-reset")}
	// Code Assist's ErrorInfo metadata "quotaResetTimeStamp" is the
	// instant itself; it outranks the message's "Resets in 160h20m10s",
	// which was true when the server wrote it.
	kwResetEpoch = []*kw{newKW("limit reached|"), newKW(`"resets_at"`), newKW("anthropic-ratelimit-unified-reset"), newKW(`"quotaresettimestamp"`)}
	kwResetClock = []*kw{newKW("resets "), newKW("reset at ")}
	// "resets at 2026-05-15T15:00:00Z" (MiniMax 2056): an instant.
	kwResetsAt = newKW("resets at ")
	// claude-relay-service's 429 body: "retryAfter": seconds
	// (src/middleware/auth.js, Math.round(msBeforeNext / 1000)).
	kwRetryAfterJSON = newKW(`"retryafter"`)
)

// retryAfterHint reads the provider's wait hint, most explicit form first.
func retryAfterHint(s *scan) (time.Duration, bool) {
	low := s.low
	if s.hasKW(kwRetryAfter) {
		if v, ok := valueAfter(low, "retry-after-ms"); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
				return clampHint(time.Duration(f * float64(time.Millisecond)))
			}
		}
		for off := 0; ; {
			i := strings.Index(low[off:], "retry-after")
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			if strings.HasPrefix(low[i+len("retry-after"):], "-ms") {
				continue
			}
			if v, ok := valueAfter(low[i:], "retry-after"); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
					return clampHint(time.Duration(f * float64(time.Second)))
				}
				// RFC 9110: Retry-After = HTTP-date / delay-seconds.
				if d, ok := retryAfterDate(s, i+len("retry-after")); ok {
					return clampHint(d)
				}
			}
			break
		}
	}
	if s.hasKW(kwRetryAfterJSON) {
		if v, ok := valueAfter(low, kwRetryAfterJSON.w); ok {
			if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
				return clampHint(time.Duration(n * float64(time.Second)))
			}
		}
	}
	// Gateways' JSON: "retry_after_ms": 41200, "retry_after": 30 (seconds).
	if s.hasKW(kwRetryAfterSnake) {
		if v, ok := valueAfterExact(low, "retry_after_ms"); ok {
			if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
				return clampHint(time.Duration(n * float64(time.Millisecond)))
			}
		}
		for _, k := range []string{"retry_after_seconds", "retry_after"} {
			if v, ok := valueAfterExact(low, k); ok {
				if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
					return clampHint(time.Duration(n * float64(time.Second)))
				}
			}
		}
	}
	if s.hasKW(kwRetryAfterMsKV) {
		if v, ok := valueAfter(low, kwRetryAfterMsKV.w); ok {
			n := 0
			for n < len(v) && v[n] >= '0' && v[n] <= '9' {
				n++
			}
			if ms, err := strconv.Atoi(v[:n]); n > 0 && err == nil {
				return clampHint(time.Duration(ms) * time.Millisecond)
			}
		}
	}
	if s.hasKW(kwRetryDelay) {
		if v, ok := valueAfter(low, kwRetryDelay.w); ok {
			if d, _, ok := parseHumanDuration(v); ok {
				return clampHint(d)
			}
		}
	}
	if d, ok := durationAfterKW(s, kwZedFixedDelay); ok {
		return clampHint(d)
	}
	// Code Assist's ErrorInfo metadata "quotaResetDelay": "373.801628ms",
	// when no RetryInfo came with it.
	if s.hasKW(kwQuotaResetDelay) {
		if v, ok := valueAfter(low, kwQuotaResetDelay.w); ok {
			if d, _, ok := parseHumanDuration(v); ok {
				return clampHint(d)
			}
		}
	}
	for _, k := range kwTryAgainIn {
		if d, ok := durationAfterKW(s, k); ok {
			return clampHint(d)
		}
	}
	if d, ok := waitBefore(s); ok {
		return clampHint(d)
	}
	if d, ok := secondsThenRetry(s); ok {
		return clampHint(d)
	}
	// Only a text holding a piece of the words can hold them wrapped: the
	// scan's keywords say so at no cost, where a 64 KiB log would otherwise
	// be walked line by line.
	if s.hasAnyKW(kwWrapPieces) {
		if d, ok := wrappedTryAgain(s.raw, s.low); ok {
			return clampHint(d)
		}
	}
	// Rate-limit reset headers, when no retry-after came: OpenAI's
	// "x-ratelimit-reset-requests: 640ms", Anthropic's RFC 3339
	// "anthropic-ratelimit-requests-reset" (a wait from now).
	for _, k := range kwResetDuration {
		if s.hasKW(k) {
			if v, ok := valueAfter(low, k.w); ok {
				if d, _, ok := parseHumanDuration(v); ok {
					return clampHint(d)
				}
			}
		}
	}
	// "X-RateLimit-Reset": OpenRouter's epoch milliseconds, an epoch in
	// seconds, or seconds from now.
	if t, d, ok := rateLimitReset(s); ok {
		if t.IsZero() {
			return clampHint(d)
		}
		if !s.now.IsZero() && t.After(s.now) {
			return clampHint(t.Sub(s.now))
		}
	}
	if !s.now.IsZero() {
		for _, k := range kwResetTime {
			i := s.indexKW(k)
			if i < 0 {
				continue
			}
			rest := low[i+len(k.w):]
			j := skip(rest, 0, `"' \`)
			if j >= len(rest) || rest[j] != ':' {
				continue
			}
			rest = rest[skip(rest, j+1, `"' \`):]
			if t, ok := parseEpochOrRFC3339(s.raw[len(s.raw)-len(rest):]); ok && t.After(s.now) {
				return clampHint(t.Sub(s.now))
			}
		}
	}
	for _, k := range []*kw{kwResetsInSeconds, kwResetSeconds} {
		if s.hasKW(k) {
			if v, ok := valueAfter(low, k.w); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
					return clampHint(time.Duration(n) * time.Second)
				}
			}
		}
	}
	return 0, false
}

// durationAfterKW reads the duration after keyword k ("retry in 4s"). The
// automaton finds k across a line wrap or a box border too ("Please retry
// in\n  39.8s"), so the search skips blanks and borders after k's last word.
func durationAfterKW(s *scan, k *kw) (time.Duration, bool) {
	i := s.indexKW(k)
	if i < 0 {
		return 0, false
	}
	// A one-blank wrap inside k ("try\nagain in 2s") keeps its length; a
	// wrap with an indent ("Please try\n    again in 35.883s", Codex's TUI
	// under "└") is longer, so the end comes from the loose match.
	end := i + len(k.w)
	if !strings.HasPrefix(s.low[i:], k.w) {
		if e := looseEnd(s.low, i, canonKeyword(k.w)); e >= 0 {
			end = e
		}
	}
	if d, _, ok := parseHumanDuration(skipDecor(s.low, min(len(s.low), end))); ok {
		return d, true
	}
	w := strings.TrimRight(k.w, " ")
	for off, n := 0, 0; n < 8; n++ {
		i := strings.Index(s.low[off:], w)
		if i < 0 {
			return 0, false
		}
		j := off + i + len(w)
		off = j
		for j < len(s.low) && (isBlank(s.low[j]) || s.low[j] == 0xE2 && boxBorder(s.low, j)) {
			if s.low[j] == 0xE2 {
				j += 3
			} else {
				j++
			}
		}
		if j == off {
			continue // "retry interval": the keyword's trailing blank is missing
		}
		if d, _, ok := parseHumanDuration(skipDecor(s.low, j)); ok {
			return d, true
		}
	}
	return 0, false
}

func clampHint(d time.Duration) (time.Duration, bool) {
	if d < 0 || d > maxHint {
		return 0, false
	}
	return d, true
}

// valueAfter returns the scalar after key in "key: v", "key=v", `"key":"v"`
// or `"key": v` forms: digits, '.', and unit letters, without quotes.
// The key may sit in JSON wrapped in JSON strings (`\"retrydelay\": \"2s\"`)
// or in a Python repr (`'retrydelay': '2s'`).
func valueAfter(low, key string) (string, bool) {
	i := strings.Index(low, key)
	if i < 0 {
		if bare := strings.Trim(key, `"`); bare != key {
			key = bare
			i = strings.Index(low, key)
		}
		if i < 0 {
			return "", false
		}
	}
	j := skipFill(low, i+len(key))
	if j >= len(low) || (low[j] != ':' && low[j] != '=') {
		return "", false
	}
	j = skipFill(low, j+1)
	k := j
	for k < len(low) && (isDigit(low[k]) || low[k] == '.' || 'a' <= low[k] && low[k] <= 'z') {
		k++
	}
	if k == j {
		return "", false
	}
	return low[j:k], true
}

// skipFill skips what can sit between a key, its separator and its value
// as pasted: quotes and backslashes (JSON in JSON), Markdown emphasis and
// code marks ('retryDelay': '**58s**'), line breaks and the borders of a
// box a traceback is drawn in ('retryDelay':   │ │\n│ │   '59s').
func skipFill(s string, i int) int {
	for i < len(s) {
		switch c := s[i]; {
		case c == '"' || c == '\'' || c == '\\' || c == '*' || c == '`' || isBlank(c):
			i++
		case boxBorder(s, i):
			i += 3
		default:
			return i
		}
	}
	return i
}

// skipDecor returns s[i:] past what can stand between "retry in" and its
// number: blanks, Markdown emphasis ("retry in **58.9s**"), an
// approximation ("wait ~30s", "about 2 minutes").
func skipDecor(s string, i int) string {
	for i < len(s) {
		switch c := s[i]; {
		case c == '*' || c == '`' || c == '~' || isBlank(c):
			i++
		case strings.HasPrefix(s[i:], "about "):
			i += len("about ")
		case strings.HasPrefix(s[i:], "approximately "):
			i += len("approximately ")
		default:
			return s[i:]
		}
	}
	return s[i:]
}

func skip(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// durationUnits are tried longest first, so "ms" is not read as "m".
var durationUnits = []struct {
	name string
	d    time.Duration
}{
	{"milliseconds", time.Millisecond}, {"millisecond", time.Millisecond}, {"ms", time.Millisecond},
	{"seconds", time.Second}, {"second", time.Second}, {"secs", time.Second}, {"sec", time.Second}, {"s", time.Second},
	{"minutes", time.Minute}, {"minute", time.Minute}, {"mins", time.Minute}, {"min", time.Minute}, {"m", time.Minute},
	{"hours", time.Hour}, {"hour", time.Hour}, {"hrs", time.Hour}, {"hr", time.Hour}, {"h", time.Hour},
	{"days", 24 * time.Hour}, {"day", 24 * time.Hour}, {"d", 24 * time.Hour},
}

// parseHumanDuration reads "644ms", "22s", "1.5s", "7m12s", "4 seconds",
// "1 hour", "1 hour and 30 minutes" at the start of s (lowercase). It
// returns the bytes consumed.
// wrapGap is where the word after s[:i] starts: past one blank, or past a
// line break a terminal or box put there ("Retrying in 12\n     seconds…",
// "│   seconds"), with its indentation; i itself when neither follows.
func wrapGap(s string, i int) int {
	k := i
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') && k-i < 8 {
		k++
	}
	if k < len(s) && s[k] == '\r' {
		k++
	}
	if k >= len(s) || s[k] != '\n' {
		if k-i == 1 {
			return k
		}
		return i
	}
	k++
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if strings.HasPrefix(s[k:], "│") {
		k += len("│")
		for k < len(s) && s[k] == ' ' {
			k++
		}
	}
	return k
}

func parseHumanDuration(s string) (time.Duration, int, bool) {
	var total time.Duration
	i, parts := 0, 0
	for {
		j := i
		for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
			j++
		}
		if j == i {
			break
		}
		f, err := strconv.ParseFloat(s[i:j], 64)
		if err != nil {
			break
		}
		k := wrapGap(s, j)
		unit := time.Duration(0)
		for _, u := range durationUnits {
			if strings.HasPrefix(s[k:], u.name) {
				end := k + len(u.name)
				if end < len(s) && 'a' <= s[end] && s[end] <= 'z' {
					continue
				}
				unit, k = u.d, end
				break
			}
		}
		if unit == 0 || f > float64(maxHint/unit) {
			break
		}
		total += time.Duration(f * float64(unit))
		parts++
		i = k
		switch {
		case i+1 < len(s) && s[i] == ' ' && isDigit(s[i+1]):
			i++ // "4 days 2 hours"
		case i+5 < len(s) && s[i:i+5] == " and " && isDigit(s[i+5]):
			i += 5 // "1 hour and 30 minutes"
		case i+2 < len(s) && s[i:i+2] == ", " && isDigit(s[i+2]):
			i += 2 // "1 hour, 30 minutes"
		}
		if i >= len(s) || !isDigit(s[i]) {
			break
		}
	}
	return total, i, parts > 0
}

// resetHint finds the absolute end of a usage window.
func resetHint(s *scan) (time.Time, bool) {
	low := s.low
	for _, k := range kwResetEpoch {
		i := s.indexKW(k)
		if i < 0 {
			continue
		}
		rest := low[i+len(k.w):]
		if k != kwResetEpoch[0] {
			// The key may be escaped (`\"quotaResetTimeStamp\": \"2025-…`):
			// start after its name, whatever the quotes around it.
			name := strings.Trim(k.w, `"`)
			n := strings.Index(low[i:], name)
			if n < 0 {
				continue
			}
			rest = low[i+n+len(name):]
			j := skipFill(rest, 0)
			if j >= len(rest) || (rest[j] != ':' && rest[j] != '=') {
				continue
			}
			rest = rest[skipFill(rest, j+1):]
		}
		if t, ok := parseEpochOrRFC3339(s.raw[len(s.raw)-len(rest):]); ok {
			return t, true
		}
	}
	if t, ok := codexWindowReset(s); ok {
		return t, true
	}
	if t, _, ok := rateLimitReset(s); ok && !t.IsZero() {
		return t, true
	}
	if i := s.indexKW(kwRegainAccess); i >= 0 {
		rest := s.raw[i+len(kwRegainAccess.w):]
		// "2026-09-01 at 00:00 UTC"
		if len(rest) >= len("2006-01-02 at 15:04 UTC") {
			if t, err := time.Parse("2006-01-02 at 15:04 MST", rest[:len("2006-01-02 at 15:04 UTC")]); err == nil && strings.EqualFold(rest[20:23], "utc") {
				return t.UTC(), true
			}
		}
		if len(rest) >= 10 {
			if t, err := time.Parse("2006-01-02", rest[:10]); err == nil {
				return t.UTC(), true
			}
		}
	}
	if i := s.indexKW(kwResetsAt); i >= 0 {
		if t, ok := parseEpochOrRFC3339(s.raw[i+len(kwResetsAt.w):]); ok {
			return t, true
		}
	}
	if i := s.indexKW(kwResetClock[1]); i >= 0 {
		// Z.ai's "It will reset at 2026-07-30 16:11:46 +0800 CST.": only a
		// numeric offset fixes the instant ("CST" alone is China or Central).
		if t, ok := dateTimeOffset(s.raw[i+len(kwResetClock[1].w):]); ok {
			return t, true
		}
		// The same sentence with an RFC 3339 time ("Weekly/Monthly Limit
		// Exhausted... reset at 2026-08-14T00:00:00Z"): the zone is in the
		// time itself. A time without one stays unread.
		if t, ok := parseEpochOrRFC3339(s.raw[i+len(kwResetClock[1].w):]); ok {
			return t, true
		}
	}
	return clockReset(s)
}

// dateTimeOffset reads "2026-07-30 16:11:46 +0800" at the start of s.
func dateTimeOffset(s string) (time.Time, bool) {
	const layout = "2006-01-02 15:04:05 -0700"
	if len(s) < len(layout) {
		return time.Time{}, false
	}
	t, err := time.Parse(layout, s[:len(layout)])
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// relativeReset resolves "Your quota will reset after 19h5m27s", "try
// again in 4 days 2 hours" against now.
func relativeReset(s *scan) (time.Time, bool) {
	if s.now.IsZero() {
		return time.Time{}, false
	}
	if d, ok := relativeDelay(s); ok {
		return s.now.Add(d).UTC().Truncate(time.Second), true
	}
	return time.Time{}, false
}

// relativeDelay is the delay of "reset after 19h5m27s", "resets in: 30m0s",
// "come back in 3h 47m".
func relativeDelay(s *scan) (time.Duration, bool) {
	for _, k := range kwResetIn {
		if i := s.indexKW(k); i >= 0 {
			if d, _, ok := parseHumanDuration(skipDecor(s.low, i+len(k.w))); ok && d > 0 && d <= maxHint {
				return d, true
			}
		}
	}
	return 0, false
}

// parseEpochOrRFC3339 reads Unix seconds (10 digits), milliseconds (13) or an
// RFC 3339 time at the start of s.
func parseEpochOrRFC3339(s string) (time.Time, bool) {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && (s[j] == '-' || s[j] == 'T') && j == 4 {
		end := j
		for end < len(s) && strings.IndexByte("0123456789-:TZ.+", s[end]) >= 0 {
			end++
		}
		// A sentence may end right after the time ("… resets at
		// 2026-12-05T00:00:00Z.").
		if t, err := time.Parse(time.RFC3339, strings.TrimRight(s[:end], ".")); err == nil {
			return t.UTC(), true
		}
		return utcDateTime(s)
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	switch j {
	case 10:
		return time.Unix(n, 0).UTC(), true
	case 13:
		return time.UnixMilli(n).UTC(), true
	}
	return time.Time{}, false
}

// utcDateTime reads a date and a time in UTC written with a blank between
// them, "2026-12-05 00:00 UTC", "2026-12-05 00:00:00 GMT": the zone is
// named, so the instant is fixed.
func utcDateTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if len(s) < len(layout)+4 {
			continue
		}
		zone := strings.ToUpper(s[len(layout) : len(layout)+4])
		if zone != " UTC" && zone != " GMT" {
			continue
		}
		if t, err := time.Parse(layout, s[:len(layout)]); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// clockReset resolves "resets 3pm (Europe/Paris)", "resets 3:45pm
// (America/New_York)" or "resets Oct 9, 10am (Europe/Paris)" against now.
// Without a named zone the time is left unknown: the agent's zone is a
// guess, and a wrong reset is worse than none.
func clockReset(s *scan) (time.Time, bool) {
	if s.now.IsZero() {
		return time.Time{}, false
	}
	for _, k := range kwResetClock {
		i := s.indexKW(k)
		if i < 0 {
			continue
		}
		rest := s.low[i+len(k.w):]
		rest = strings.TrimPrefix(rest, "at ")
		month, day, dn := parseMonthDay(rest)
		rest = rest[dn:]
		h, m, n, ok := parseClock(rest)
		if !ok {
			continue
		}
		after := s.raw[len(s.raw)-len(rest)+n:]
		after = strings.TrimLeft(after, " ")
		if !strings.HasPrefix(after, "(") {
			continue
		}
		end := strings.IndexByte(after, ')')
		if end < 0 {
			continue
		}
		loc, ok := loadZone(after[1:end])
		if !ok {
			continue
		}
		now := s.now.In(loc)
		if month == 0 {
			t := time.Date(now.Year(), now.Month(), now.Day(), h, m, 0, 0, loc)
			if !t.After(now) {
				t = t.AddDate(0, 0, 1)
			}
			return t.UTC(), true
		}
		t := time.Date(now.Year(), month, day, h, m, 0, 0, loc)
		if t.Before(now.AddDate(0, 0, -1)) { // "resets Jan 2" seen in December
			t = t.AddDate(1, 0, 0)
		}
		return t.UTC(), true
	}
	return time.Time{}, false
}

var months = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// parseMonthDay reads "oct 9, " or "oct 9 at " at the start of s; n is 0
// when there is none.
func parseMonthDay(s string) (month time.Month, day, n int) {
	if len(s) < 5 {
		return 0, 0, 0
	}
	for i, m := range months {
		if !strings.HasPrefix(s, m) {
			continue
		}
		j := len(m)
		for j < len(s) && 'a' <= s[j] && s[j] <= 'z' { // "october"
			j++
		}
		if j >= len(s) || s[j] != ' ' {
			return 0, 0, 0
		}
		j++
		d := 0
		for j < len(s) && isDigit(s[j]) && d < 100 {
			d = d*10 + int(s[j]-'0')
			j++
		}
		if d < 1 || d > 31 {
			return 0, 0, 0
		}
		switch {
		case strings.HasPrefix(s[j:], ", "):
			j += 2
		case strings.HasPrefix(s[j:], " at "):
			j += 4
		default:
			return 0, 0, 0
		}
		return time.Month(i + 1), d, j
	}
	return 0, 0, 0
}

// parseClock reads "3pm", "3:45pm", "3 pm", "15:00" at the start of s.
func parseClock(s string) (h, m, n int, ok bool) {
	i := 0
	for i < len(s) && i < 2 && isDigit(s[i]) {
		h = h*10 + int(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, 0, 0, false
	}
	hasMin := false
	if i+2 < len(s) && s[i] == ':' && isDigit(s[i+1]) && isDigit(s[i+2]) {
		m = int(s[i+1]-'0')*10 + int(s[i+2]-'0')
		i += 3
		hasMin = true
	}
	j := i
	if j < len(s) && s[j] == ' ' {
		j++
	}
	switch {
	case strings.HasPrefix(s[j:], "am"):
		if h == 12 {
			h = 0
		}
		i = j + 2
	case strings.HasPrefix(s[j:], "pm"):
		if h != 12 {
			h += 12
		}
		i = j + 2
	case !hasMin:
		return 0, 0, 0, false
	}
	if h > 23 || m > 59 {
		return 0, 0, 0, false
	}
	return h, m, i, true
}

// zones caches the time zones that loaded: loading one reads the zone
// database. Unknown names are not cached, so hostile text cannot grow it.
var zones sync.Map // string → *time.Location

func loadZone(name string) (*time.Location, bool) {
	if !zoneName(name) {
		return nil, false
	}
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), true
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	zones.Store(name, loc)
	return loc, true
}

// zoneName accepts IANA-shaped names ("Europe/Paris", "UTC") only.
func zoneName(name string) bool {
	if name == "UTC" || name == "GMT" {
		return true
	}
	if len(name) < 3 || len(name) > 48 || !strings.Contains(name, "/") || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) && c != '/' && c != '-' && c != '+' {
			return false
		}
	}
	return name[0] != '/'
}

// waitBefore reads "wait ~30s before retrying", "please wait 8 seconds
// before trying again", "wait for 2 minutes and try again": a delay the
// caller is told to wait before it tries again. A bare "wait 5s" (a
// program's own pause) does not count.
func waitBefore(s *scan) (time.Duration, bool) {
	if !s.hasKW(kwWait) {
		return 0, false
	}
	for off, n := 0, 0; n < 8; n++ {
		i := strings.Index(s.low[off:], "wait ")
		if i < 0 {
			return 0, false
		}
		off += i + len("wait ")
		rest := skipDecor(s.low, off)
		rest = strings.TrimPrefix(rest, "for ")
		d, k, ok := parseHumanDuration(rest)
		if !ok {
			continue
		}
		after := strings.TrimLeft(rest[k:], " ")
		for _, w := range waitThen {
			if strings.HasPrefix(after, w) {
				return d, true
			}
		}
	}
	return 0, false
}

var waitThen = []string{"before retr", "before trying", "before you try", "before sending", "and try again", "and retry", "then retry", "then try again"}

// secondsThenRetry reads "请 117 秒后重试" ("please retry in 117 seconds").
func secondsThenRetry(s *scan) (time.Duration, bool) {
	for _, w := range kwSecondsThenRetry {
		i := s.index(w, false)
		if i < 0 {
			continue
		}
		// Only the ask: "将于 N 秒后重试" is Qwen Code's own countdown.
		if n, ok := secondsBefore(s.low[:i]); ok && n > 0 && askedToRetry(s.low[:i]) {
			return time.Duration(n) * time.Second, true
		}
	}
	return 0, false
}

// wrappedTryAgain finds "try again in 20s" and its kin cut by a terminal
// wrap inside a word ("please try a\ngain after 1 seconds"): at each line
// break between two letters, the words on both sides are joined. A wrap
// between words is read by the keyword automaton already. The breaks are
// raw's: low may have read a hard wrap as a blank (unwrapLow).
func wrappedTryAgain(raw, low string) (time.Duration, bool) {
	var buf [96]byte
	for off, n := 0, 0; n < 64; n++ {
		i := strings.IndexByte(raw[off:], '\n')
		if i < 0 {
			return 0, false
		}
		i += off
		off = i + 1
		j := i + 1
		for i > 0 && low[i-1] == ' ' {
			i-- // a terminal's copy pads the wrapped line with blanks
		}
		if i == 0 || !isLower(low[i-1]) {
			continue
		}
		for j < len(low) && (low[j] == ' ' || low[j] == '\t') {
			j++
		}
		if j >= len(low) || !isLower(low[j]) {
			continue
		}
		head := low[max(0, i-24):i]
		tail := low[j:min(len(low), j+48)]
		joined := append(append(buf[:0], head...), tail...)
		for wi, w := range wrapWords {
			k := bytes.Index(joined, wrapWordBytes[wi]) // a string(joined) here allocates on every line
			if k < 0 || k+len(w) <= len(head) || k >= len(head) {
				continue // the phrase must span the wrap
			}
			if d, _, ok := parseHumanDuration(low[j+k+len(w)-len(head):]); ok {
				return d, true
			}
		}
	}
	return 0, false
}

var (
	wrapWords = []string{"try again in ", "try again after ", "retry after ", "retry in "}
	// Every wrap word holds "try" or "again" or "ret" whole wherever a wrap
	// splits it.
	kwWrapPieces  = []*kw{newKW("try"), newKW("again"), newKW("ret")}
	wrapWordBytes = func() [][]byte {
		out := make([][]byte, len(wrapWords))
		for i, w := range wrapWords {
			out[i] = []byte(w)
		}
		return out
	}()
)

func isLower(b byte) bool { return 'a' <= b && b <= 'z' }

// codexWindowReset reads Codex's window headers: the reset of a window at
// 100% ("x-codex-primary-reset-at: 1773860656", or "-reset-after-seconds"
// from now), the later one when both are spent.
func codexWindowReset(s *scan) (time.Time, bool) {
	var best time.Time
	for _, w := range []string{"primary", "secondary"} {
		if !spentWindow(s, w) {
			continue
		}
		t, ok := time.Time{}, false
		if v, found := valueAfter(s.low, "x-codex-"+w+"-reset-at"); found {
			t, ok = parseEpochOrRFC3339(v)
		}
		if !ok && !s.now.IsZero() {
			if v, found := valueAfter(s.low, "x-codex-"+w+"-reset-after-seconds"); found {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 && time.Duration(n)*time.Second <= maxHint {
					t, ok = s.now.Add(time.Duration(n)*time.Second).UTC(), true
				}
			}
		}
		if ok && t.After(best) {
			best = t
		}
	}
	return best, !best.IsZero()
}

// spentWindow reports whether Codex's header says window w is used up.
func spentWindow(s *scan, w string) bool {
	k := kwCodexUsed[0]
	if w == "secondary" {
		k = kwCodexUsed[1]
	}
	if !s.hasKW(k) {
		return false
	}
	v, ok := valueAfter(s.low, k.w)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && f >= 100
}

// retryAfterDate reads an HTTP-date after "retry-after" (at i, the end of
// the name): "Retry-After: Wed, 21 Oct 2026 07:28:00 GMT", as a wait from
// now.
func retryAfterDate(s *scan, i int) (time.Duration, bool) {
	if s.now.IsZero() {
		return 0, false
	}
	j := skipFill(s.low, i)
	if j >= len(s.low) || s.low[j] != ':' {
		return 0, false
	}
	j = skipFill(s.low, j+1)
	const n = len("Mon, 02 Jan 2006 15:04:05 GMT")
	if len(s.raw)-j < n {
		return 0, false
	}
	t, err := time.Parse(time.RFC1123, s.raw[j:j+n])
	if err != nil || !t.After(s.now) {
		return 0, false
	}
	return t.Sub(s.now), true
}

// valueAfterExact is valueAfter for a key that is also the start of longer
// keys ("retry_after" and "retry_after_ms", "x-ratelimit-reset" and
// "x-ratelimit-reset-requests"): only the key itself counts.
func valueAfterExact(low, key string) (string, bool) {
	for off, n := 0, 0; n < 8; n++ {
		i := strings.Index(low[off:], key)
		if i < 0 {
			return "", false
		}
		i += off
		off = i + len(key)
		if off < len(low) && (isAlnum(low[off]) || low[off] == '-' || low[off] == '_') {
			continue
		}
		if v, ok := valueAfter(low[i:], key); ok {
			return v, true
		}
	}
	return "", false
}

// rateLimitReset reads "x-ratelimit-reset": a 13-digit value is epoch
// milliseconds (OpenRouter), 10 digits epoch seconds (the instant t), a
// smaller number the seconds left (d, t zero).
func rateLimitReset(s *scan) (t time.Time, d time.Duration, ok bool) {
	if !s.hasKW(kwRateLimitReset) {
		return time.Time{}, 0, false
	}
	v, found := valueAfterExact(s.low, kwRateLimitReset.w)
	if !found {
		return time.Time{}, 0, false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return time.Time{}, 0, false
		}
	}
	if len(v) == 10 || len(v) == 13 {
		if t, ok := parseEpochOrRFC3339(v); ok {
			return t, 0, true
		}
		return time.Time{}, 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || time.Duration(n)*time.Second > maxHint {
		return time.Time{}, 0, false
	}
	return time.Time{}, time.Duration(n) * time.Second, true
}
