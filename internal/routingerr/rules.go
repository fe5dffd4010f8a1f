package routingerr

import (
	"fmt"
	"iter"
	mbits "math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// band orders the rules: lower bands are tried first, and within a band the
// provider files keep the order of ruleSets, then their own order. Bands go
// from the most specific evidence to the vaguest, so e.g. "insufficient_quota"
// (user_action) beats the 429 it arrives with, and a 429's status beats
// prose-looking text.
type band int

const (
	bandCancel    band = iota // a cancel is never a provider failure
	bandProgress              // the agent is itself still retrying
	bandReset                 // usage windows; they share wording with billing and rate limits
	bandTerminal              // this request can never succeed
	bandUser                  // a human must fix something
	bandTransient             // provider-specific transient wording and error types
	bandTransport             // connection and transport failures
	bandStatus                // HTTP status, structured first, then from error-shaped text
	bandGeneric               // generic provider error types without a status
	bandFallback              // weak heuristics
)

// rule is one classification rule. It matches when evidence (if set) holds
// for the structured evidence, or else when one of any occurs (if set), all
// of all occur, none of none occurs, and match (if set) agrees. match only
// runs when one of gate occurs (if set). All strings are lowercase.
type rule struct {
	id    string
	band  band
	code  string
	class Class
	conf  float64

	evidence func(ev *Evidence) bool

	any   []string
	all   []string
	none  []string
	gate  []string
	match func(s *scan) int                              // custom matcher: offset of the evidence, or -1
	hint  func(s *scan, c Classification) Classification // replaces defaultHints
	check string                                         // what match checks beyond its words, for Explain: "the agent has not exited …"

	anyIDs, allIDs, noneIDs, gateIDs []uint16 // set by buildTable
	anyMask                          *kwSet   // anyIDs as a set, for long lists: one test rejects them all
	textual                          bool     // any, all or match is set
}

// eval returns the offset of the matching text in s.raw, or -1. Keyword
// tests are bit tests (see matcher.go); text is only searched again to
// place the excerpt of the rule that matched.
func (r *rule) eval(s *scan) int {
	if r.evidence != nil && r.evidence(&s.ev) {
		return 0
	}
	if !r.textual {
		return -1
	}
	first := -1
	if len(r.anyIDs) > 0 {
		if r.anyMask != nil && !s.found.meets(r.anyMask) {
			return -1
		}
		for i, id := range r.anyIDs {
			if s.found.has(id) {
				first = i
				break
			}
		}
		if first < 0 {
			return -1
		}
	}
	for _, id := range r.allIDs {
		if !s.found.has(id) {
			return -1
		}
	}
	for _, id := range r.noneIDs {
		if s.found.has(id) {
			return -1
		}
	}
	if len(r.gateIDs) > 0 && !s.hasAnyID(r.gateIDs) {
		return -1
	}
	if r.match != nil {
		return r.match(s)
	}
	switch {
	case first >= 0:
		return s.locate(r.any[first])
	case len(r.all) > 0:
		return s.locate(r.all[0])
	}
	return 0
}

// ruleSets lists the provider files; the order breaks ties inside a band.
var ruleSets = [][]rule{cancelRules, agentRules, i18nRules, quotaRules, acpRules, resumeRules, anthropicRules, openaiRules, googleRules, bedrockRules, copilotRules, lobechatRules, zhipuRules, dashscopeRules, volcengineRules, minimaxRules, baiduRules, toolRules, aisdkRules, transportLostRules, networkRules, sharedRules, familyRules, genericRules, statusRules, hintRules}

// ruleTable is every rule in evaluation order; keywords finds their words.
// Built in init: the rules' matchers refer to keywords themselves.
var (
	ruleTable []rule
	keywords  *matcher
	// kwRules[id] is the set of rules that keyword id can let through:
	// every rule that needs words has one set of words of which one must
	// occur (its any, its gate, or the first of all). alwaysRules are the
	// rules that read structured evidence or need no word.
	kwRules     []ruleSet
	alwaysRules ruleSet
)

// maxRules bounds the rule table (ruleSet is a bitset of rule indices).
const maxRules = 10 * 64

type ruleSet [maxRules / 64]uint64

func (r *ruleSet) set(i int) { r[i>>6] |= 1 << (i & 63) }

// candidates is the set of rules that may match s: the rules any found
// keyword lets through, and those that need none. A rule outside it would
// fail its keyword test, so skipping it changes nothing.
func (s *scan) candidates() ruleSet {
	c := alwaysRules
	for w, word := range s.found {
		for word != 0 {
			id := w<<6 | mbits.TrailingZeros64(word)
			word &= word - 1
			k := &kwRules[id]
			for i := range c {
				c[i] |= k[i]
			}
		}
	}
	return c
}

// buildRuleSets fills kwRules and alwaysRules for rules built by buildTable.
func buildRuleSets(rules []rule, m *matcher) {
	if len(rules) > maxRules {
		panic(fmt.Sprintf("routingerr: %d rules, more than maxRules (%d)", len(rules), maxRules))
	}
	kwRules = make([]ruleSet, len(m.words))
	for i := range rules {
		r := &rules[i]
		var need []uint16
		switch {
		case r.evidence != nil:
		case len(r.allIDs) > 0:
			need = r.allIDs[:1]
		case len(r.anyIDs) > 0 && (len(r.gateIDs) == 0 || len(r.anyIDs) <= len(r.gateIDs)):
			need = r.anyIDs
		case len(r.gateIDs) > 0:
			need = r.gateIDs
		}
		if need == nil {
			alwaysRules.set(i)
			continue
		}
		for _, id := range need {
			kwRules[id].set(i)
		}
	}
}

// kw is a keyword searched for outside the rules (hints, resume safety),
// resolved to its id once, so hot paths test a bit instead of a map.
type kw struct {
	w  string
	id uint16
}

var extraKWs []*kw

func newKW(w string) *kw {
	k := &kw{w: w}
	extraKWs = append(extraKWs, k)
	return k
}

var (
	kwEventError     = newKW("event: error")
	kwResponseFailed = newKW("response.failed")
)

func init() {
	var extra []string
	for _, k := range extraKWs {
		extra = append(extra, k.w)
	}
	ruleTable, keywords = buildTable(ruleSets, statusMarkers, extra)
	buildRuleSets(ruleTable, keywords)
	for _, k := range extraKWs {
		k.id, _ = keywords.id(k.w)
	}
	buildSecretMask()
}

// buildTable orders the rules and builds the keyword automaton; tracked
// keywords (the status markers) get ids 0…len(tracked)-1.
func buildTable(sets [][]rule, tracked, extra []string) ([]rule, *matcher) {
	var all []rule
	for _, set := range sets {
		all = append(all, set...)
	}
	slices.SortStableFunc(all, func(a, b rule) int { return int(a.band) - int(b.band) })
	words := slices.Concat(tracked, extra)
	seen := make(map[string]bool, len(all))
	for _, r := range all {
		if seen[r.id] {
			panic("routingerr: duplicate rule id " + r.id)
		}
		seen[r.id] = true
		words = append(words, slices.Concat(r.any, r.all, r.none, r.gate)...)
	}
	m := newMatcher(words, len(tracked))
	for i := range all {
		r := &all[i]
		r.anyIDs, r.allIDs, r.noneIDs, r.gateIDs = m.idsOf(r.any), m.idsOf(r.all), m.idsOf(r.none), m.idsOf(r.gate)
		if len(r.anyIDs) > 6 {
			r.anyMask = new(kwSet)
			for _, id := range r.anyIDs {
				r.anyMask.set(id)
			}
		}
		r.textual = len(r.any) > 0 || len(r.all) > 0 || r.match != nil
		if !r.textual && r.evidence == nil {
			panic("routingerr: rule " + r.id + " matches everything")
		}
	}
	return all, m
}

// RuleInfo describes one rule for documentation and --explain.
type RuleInfo struct {
	ID    string
	Code  string
	Class Class
}

// Rules lists every rule in evaluation order.
func Rules() []RuleInfo {
	out := make([]RuleInfo, len(ruleTable))
	for i, r := range ruleTable {
		out[i] = RuleInfo{ID: r.id, Code: r.code, Class: r.class}
	}
	return out
}

// indexBounded finds k in s where it does not continue a word or number:
// "529 overloaded" must not match inside "1529 overloaded".
func indexBounded(s, k string) int {
	off := 0
	for {
		i := strings.Index(s[off:], k)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(k)
		if (i == 0 || !isAlnum(s[i-1]) || !isAlnum(k[0])) &&
			(end == len(s) || !isAlnum(s[end]) || !isAlnum(k[len(k)-1])) {
			return i
		}
		off = i + 1
	}
}

// anyBounded returns the first bounded occurrence of any of ks.
func anyBounded(s string, ks ...string) int {
	for _, k := range ks {
		if i := indexBounded(s, k); i >= 0 {
			return i
		}
	}
	return -1
}

// occurrences yields each offset of w in low, left to right, at most limit
// of them (0: all): a rule's own check runs on each until one holds.
func occurrences(low, w string, limit int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for off, n := 0, 0; limit == 0 || n < limit; n++ {
			i := strings.Index(low[off:], w)
			if i < 0 || !yield(off+i) {
				return
			}
			off += i + len(w)
		}
	}
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}

// errorLine finds the last occurrence of one of ks on an error-shaped line:
// a JSON error, "Error:", "API Error", an exception. Agent prose that talks
// about overload ("when the queue is overloaded we return 529") is not one.
// Each line is inspected once, so the cost stays linear.
func errorLine(s string, ks ...string) int {
	for _, k := range ks {
		end := len(s)
		for end > 0 {
			i := strings.LastIndex(s[:end], k)
			if i < 0 {
				break
			}
			ls := strings.LastIndexByte(s[:i], '\n') + 1
			le := strings.IndexByte(s[i:], '\n')
			if le < 0 {
				le = len(s)
			} else {
				le += i
			}
			if isErrorShaped(s[ls:le]) || shortLead(s[ls:le], i-ls) {
				return i
			}
			end = ls
		}
	}
	return -1
}

// shortLead: a short line that starts with the keyword (within its first
// two words, the line six words at most) is an error message on its own — "Overloaded", "Service
// Unavailable", "Connection closed." — where prose puts it later ("the
// server was overloaded yesterday").
func shortLead(line string, at int) bool {
	t := strings.TrimSpace(line)
	if len(t) > 64 || at > len(line) || strings.Count(t, " ") > 5 {
		return false
	}
	return !strings.Contains(strings.TrimSpace(line[:at]), " ")
}

func isErrorShaped(line string) bool {
	// Escaped JSON (`{\"error\":{\"message\":…}}`, a body quoted into a
	// log string) is the same shape.
	return strings.Contains(line, `"error"`) || strings.Contains(line, `"error\"`) || strings.Contains(line, `"message\"`) ||
		strings.Contains(line, "error:") ||
		strings.Contains(line, "api error") || strings.Contains(line, "exception") ||
		strings.Contains(line, `"message"`) || strings.HasPrefix(strings.TrimSpace(line), "error") ||
		strings.Contains(line, "stream disconnected before completion:") ||
		// buzz-acp's AcpError::AgentError, a JSON-RPC error an ACP agent
		// returned: "Agent reported error (code {code}): {message}"
		// (block/buzz crates/buzz-acp, thiserror Display; catalogue
		// buzz-acp-agent-error-wrapped).
		strings.Contains(line, "reported error (code ") ||
		// A client's own report of a failed call ("OAuth Request Failed -
		// Internal server error", "Upstream request failed: …", "An
		// internal server error occurred.").
		strings.Contains(line, "request failed") || strings.Contains(line, "error occurred") ||
		retryReport(line)
}

// retryReport: a retry loop's final report, "<what> failed after N retries"
// (or "rate limited after N retries") then ": ", " — " or ". " and the
// message (Hermes Agent's "❌ API failed after 8 retries — HTTP 429: …", "❌
// Rate limited after 3 retries — …" and its log's "API call failed after 3
// retries. <summary> | provider=…", agent/turn_recovery.py
// max_retries_exhausted_result; "API call failed after 4 retries: Internal
// server error"; the idiom of many clients): the message after it is the
// error.
func retryReport(line string) bool {
	w := "failed after "
	i := strings.Index(line, w)
	if i < 0 { // Hermes' "❌ Rate limited after 3 retries — …"
		w = "rate limited after "
		if i = strings.Index(line, w); i < 0 {
			return false
		}
	}
	rest := line[i+len(w):]
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	if j == 0 || !strings.HasPrefix(rest[j:], " retries") {
		return false
	}
	rest = rest[j+len(" retries"):]
	return strings.HasPrefix(rest, ": ") || strings.HasPrefix(rest, " — ") || strings.HasPrefix(rest, ". ")
}

// statusIs matches an effective HTTP status in [lo, hi].
func statusIs(lo, hi int) func(s *scan) int {
	return func(s *scan) int {
		st, pos := s.httpStatus()
		if st >= lo && st <= hi {
			return pos
		}
		return -1
	}
}

// laterErrorAfterLine reports whether an error line follows the line holding
// offset i: the agent's own retry loop ended in a final error.
//
// Claude Code writes the retried error's cause on the next line, as
// "    ⎿  TypeError (fetch failed)" (cli.js: `${cause.name} (${cause.message})`);
// that line belongs to the retry, it is not a later error. The agents' final
// errors need not say "error" (finalWords): the turn is then over, and that
// error decides.
func laterErrorAfterLine(low string, i int) bool {
	nl := payloadEnd(low, i)
	if nl < 0 {
		return false
	}
	rest := low[nl+1:]
	if isCauseLine(rest) {
		nl = strings.IndexByte(rest, '\n')
		if nl < 0 {
			return false
		}
		rest = rest[nl:]
	} else if d := detailsEnd(rest); d > 0 {
		rest = rest[d:]
	} else if d := loggedErrorEnd(low[i:nl], rest); d > 0 {
		rest = rest[d:]
	} else if d := loggedTracebackEnd(low[lineStart(low, i):nl], rest); d > 0 {
		rest = rest[d:]
	}
	return saysFinal(rest)
}

func lineStart(low string, i int) int { return strings.LastIndexByte(low[:i], '\n') + 1 }

// loggedTracebackEnd: LangGraph logs its retry with the exception that
// caused it (langchain-ai/langgraph libs/langgraph/langgraph/pregel/_retry.py
// run_with_retry: logger.info(f"Retrying task {name} after {sleep:.2f}
// seconds (attempt {n}) after {Exc} {exc}", exc_info=exc), after the sleep,
// as the next attempt starts), so Python's logging prints that traceback
// under the line: "Traceback (most recent call last):", the indented frames,
// the exception line and the notes add_note put on it ("During task with
// name '<name>' and id '<id>'"). That traceback is the retried error, not a
// later one. loggedTracebackEnd is the offset in rest just past it, or 0
// when line is not that notice or rest does not open with a traceback.
func loggedTracebackEnd(line, rest string) int {
	if !strings.Contains(line, "retrying task ") || !strings.Contains(line, " seconds (attempt ") {
		return 0
	}
	const head = "traceback (most recent call last):"
	base := indentOf(rest) // a paste indented as a whole indents the traceback too
	if !strings.HasPrefix(rest[base:], head) {
		return 0
	}
	k := base + len(head)
	for k < len(rest) && (rest[k] == ' ' || rest[k] == '\t') {
		k++ // a trailing blank (a Windows line end reads as one)
	}
	for k < len(rest) && rest[k] == '\n' {
		k++
		if indentOf(rest[k:]) > base {
			nl := strings.IndexByte(rest[k:], '\n')
			if nl < 0 {
				return len(rest)
			}
			k += nl
			continue
		}
		// The exception line, then its notes.
		nl := strings.IndexByte(rest[k:], '\n')
		if nl < 0 {
			return len(rest)
		}
		k += nl
		for k < len(rest) && strings.HasPrefix(strings.TrimLeft(rest[k+1:], " \t"), "during task with name '") {
			nl := strings.IndexByte(rest[k+1:], '\n')
			if nl < 0 {
				return len(rest)
			}
			k += 1 + nl
		}
		return k
	}
	return 0
}

// loggedErrorEnd: Gemini CLI and Qwen Code log a retry as
// debugLogger.warn(`Attempt 2 failed with status 429. Retrying with
// backoff...`, error) (retry.ts logRetryAttempt): the error object follows
// the message, on the next lines when Node prints it over several
// ("ApiError: {\n  \"error\": {…}\n}", then its stack). That object is the
// error being retried, not a later one. loggedErrorEnd is the offset in rest
// just past it (its JSON value, its "at …" frames and the properties after
// them), or 0 when line does not end that way or rest does not open with an
// error object that has a body or a stack (a one-line "Error: …" is a
// message of its own, a later error).
func loggedErrorEnd(line, rest string) int {
	if !strings.HasSuffix(strings.TrimRight(line, " \t\r"), "retrying with backoff...") {
		return 0
	}
	t := strings.TrimLeft(rest, " \t\r\n")
	off := len(rest) - len(t)
	j := 0
	for j < len(t) && (isLetter(t[j]) || isDigit(t[j]) || t[j] == '_' || t[j] == '$' || t[j] == '.') {
		j++
	}
	if j >= len(t) || t[j] != ':' || !strings.HasSuffix(t[:j], "error") {
		return 0
	}
	k := j + 1
	for k < len(t) && isBlank(t[k]) {
		k++
	}
	body := k < len(t) && (t[k] == '{' || t[k] == '[')
	if body {
		depth := 0
	value:
		for ; k < len(t); k++ {
			switch t[k] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					k++
					break value
				}
			}
		}
	}
	// Then its stack frames, and the properties Node prints in braces after
	// the last one ("    at … {\n  [cause]: Error: read ECONNRESET …\n}").
	depth := 0
	for {
		nl := strings.IndexByte(t[k:], '\n')
		if nl < 0 {
			if !body {
				return 0
			}
			return len(rest)
		}
		for _, c := range []byte(t[k : k+nl]) {
			switch c {
			case '{', '[':
				depth++
			case '}', ']':
				depth = max(depth-1, 0)
			}
		}
		k += nl + 1
		if depth == 0 && !strings.HasPrefix(strings.TrimLeft(t[k:], " \t"), "at ") {
			if !body {
				return 0
			}
			return off + k
		}
		body = true
	}
}

// detailsEnd: Codex's TUI draws the status line ("◦ Reconnecting... 1/5 (17s
// • esc to interrupt)") with the retried error as its details below it: a
// line that opens with "└ " (after indentation), wrapped on indented lines,
// at most three lines in all (status_indicator_widget.rs DETAILS_MAX_LINES).
// Those lines belong to the retry, not a later error. detailsEnd is the
// offset in s just past them, or 0 when s does not open with them.
func detailsEnd(s string) int {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, "└ ") {
		return 0
	}
	end, depth := 0, max(indentOf(s), 2) // a quoted paste indents them all
	for n := 0; n < 3 && end < len(s); n++ {
		if n > 0 && indentOf(s[end:]) < depth {
			break
		}
		nl := strings.IndexByte(s[end:], '\n')
		if nl < 0 {
			return len(s)
		}
		end += nl + 1
	}
	return end
}

// saysFinal: s holds an error, or one of the agents' final errors that do not
// say "error" (finalWords).
func saysFinal(s string) bool {
	if strings.Contains(s, "error") {
		return true
	}
	for _, w := range finalWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// finalWords are the agents' own final errors that do not say "error", as
// they end a retry loop: codex-rs's RetryLimit and UnexpectedStatus, its
// usage-limit, capacity, stream and refresh-token texts; Claude Code's
// "Credit balance is too low", "Invalid API key · Please run /login",
// "You've hit your limit · resets …"; Gemini CLI's daily quota; codex-rs
// 0.171.0's workspace credits and spend cap, its unavailable capacity, its
// QuotaExceeded and its context window; Hermes Agent's "❌ API failed
// after 8 retries — …", "❌ Rate limited after 3 retries — …"
// (agent/turn_recovery.py), "API call failed after 3 retries: …" and "❌
// Rate limit persisted after 3 retries." once its retries are spent. The
// retry libraries' own last words: Continue's "LLM API call failed after 4
// attempts. Last error: …", "Failed after 4 attempts. …" and "Failed to make
// API call after 3 retries" (continuedev/continue extensions/cli
// src/util/exponentialBackoff.ts, core/util/withExponentialBackoff.ts),
// reqwest-retry's "Request failed after 2 retries" (RetryError::WithRetries),
// go-retryablehttp's "POST <url> giving up after 5 attempt(s)". The .NET
// client pipeline's "Service request failed.\nStatus: 429 (Too Many
// Requests)" (System.ClientModel ClientResultException, Azure.Core
// RequestFailedException), thrown once ClientRetryPolicy stops retrying.
// crush's "maximum retry attempts reached for rate limit: 8 retries"
// (internal/llm/provider shouldRetry) once its attempts are spent.
var finalWords = []string{"failed after ", "make api call after ", "giving up after ", "maximum retry attempts reached",
	"exceeded retry limit", "unexpected status ", "hit your usage limit", "hit your limit",
	"api failed after ", "api call failed after ", "limit persisted after ", "rate limited after ",
	"usage limit reached", "stream disconnected", "at capacity", "refresh token", "sign in again",
	"credit balance is too low", "invalid api key", "please run /login", "daily quota",
	"is out of credits", "hit your spend cap", "capacity is unavailable", "quota exceeded. check your plan",
	"ran out of room in the model's context window", "service request failed."}

// payloadEnd is the newline that ends the line at i, or, when a JSON value
// opened on that line is still open there, the first newline after it
// closes: Gemini CLI and Qwen Code print the error they retry after the
// line ("Attempt 1 failed with status 429. Retrying with backoff...
// _GaxiosError: [{\n  \"error\": {…}\n}]"), and that body is not a later
// error. -1 when the text ends first (a body cut short is still the retry's).
func payloadEnd(low string, i int) int {
	depth := 0
	for j := i; j < len(low); j++ {
		switch low[j] {
		case '{', '[':
			depth++
		case '}', ']':
			depth = max(depth-1, 0)
		case '\n':
			if depth == 0 && !boxContinues(low, j) {
				return j
			}
		}
	}
	return -1
}

// wrapMin is the shortest line read as hard-wrapped: a terminal or an
// editor breaks at 80 or 120 columns, and a short line ("Reconnecting...
// 2/5") ended on its own.
const wrapMin = 60

// wrapContinues: the newline at j, ending the line from ls, is a hard
// wrap of a long line copied out of a terminal ("…in 4.0 seconds as it
// raised\nRateLimitError: Rate limit reached for …"), not the end of a
// message. A greedy wrap breaks a line only where the next word would not
// fit: the line and the next line's first word together run past the
// widest line of the text. The next line goes on at the same indent, with a
// word, not a glyph or a log's header.
func (s *scan) wrapContinues(ls, j int) bool {
	low := s.low
	e := j // the line's end before a paste's trailing blanks
	for e > ls && isBlank(low[e-1]) {
		e--
	}
	if e == ls {
		return false
	}
	// The wrapped part keeps the line's indent (a tab, a quote's "> "),
	// or goes flush under a log's header or the "⎿" that opened the text
	// (both blanks in low only), or under a tree's item.
	if j+1 < len(low) && isBlank(low[j+1]) && s.raw[j+1] != low[j+1] && s.raw[j+1] != '>' {
		return false // a log's header opens the next line: a new record (read first, as cheap)
	}
	in, nin := indentOf(low[ls:e]), indentOf(low[j+1:])
	if nin != in && (nin > 0 || indentOf(s.raw[ls:e]) > 0 && (ls > 0 || s.leadGlyph < 0) && !treeLine(low[ls+in:e])) {
		return false
	}
	if strings.TrimLeft(s.raw[j+1:j+1+nin], " \t>") != "" {
		return false // a log's header (blanks in low): a new record
	}
	n := j + 1 + nin
	if n >= len(low) || low[n] >= 0x80 || low[n] == '[' || low[n] == '{' {
		return false // a glyph, a log's "[ERROR]", a JSON line: a new message
	}
	w := n
	for w < len(low) && !isBlank(low[w]) {
		w++
	}
	line, word := low[ls:e], columns(low[n:w])
	// A line that stops at a word no message ends with ("…as it
	// raised\nRateLimitError: …", "…Retrying in\n1 seconds…"), or with a
	// parenthesis still open ("Reconnecting... 1/5 (stream disconnected
	// before completion:\ntransport error: …)"), was wrapped. Not a brace
	// or a string: a JSON value spans lines of its own.
	sure := len(line) >= wrapMin/2 && slices.Contains(wrapOpenWords, lastWord(line)) ||
		len(line) >= wrapMin && strings.Count(line, "(") > strings.Count(line, ")")
	if !sure {
		// Else a short line wraps only before a word as long as a line
		// ("Retrying\nlangchain_google_genai.chat_models._achat_with_retry…").
		if len(line) < wrapMin && word < wrapMin {
			return false
		}
		// A line that ends a sentence or a block, or a next line that
		// opens with a label ("google.api_core.exceptions.RetryError: …",
		// "error: …", a log's "error=…" field) or a capital ("…(attempt
		// 10/10)\nAPI Error: 529"), is two messages.
		switch line[len(line)-1] {
		case '.', '!', '?', ';', ')', ']', '}':
			return false
		}
		if c := s.raw[n]; c >= 'A' && c <= 'Z' || wrapLabel(low[n:w]) || strings.Contains(low[n:w], "=") {
			return false
		}
	}
	width, breaks := s.lineWidths()
	prev := columns(low[ls:j])
	if prev+1+word <= width {
		return false // the word would have fitted
	}
	// A long line of its own wraps only where the text wraps more than
	// once (the widest line always seems to break, and a long line and a
	// short one may be two messages).
	return sure || len(line) < wrapMin || breaks >= 2 && prev >= width-wrapSlack
}

// lastWord is the run of ASCII letters that ends line, "" when a letter
// stands before it that is not one (a path, a number).
func lastWord(line string) string {
	p := len(line)
	for p > 0 && line[p-1] >= 'a' && line[p-1] <= 'z' {
		p--
	}
	if p > 0 && line[p-1] != ' ' {
		return ""
	}
	return line[p:]
}

// treeLine: the line is a TUI tree's item ("└ stream disconnected …",
// "⎿  API Error …"); a terminal copy wraps it flush.
func treeLine(line string) bool {
	return strings.HasPrefix(line, "└") || strings.HasPrefix(line, "⎿")
}

// wrapLabel: word opens a new message, a logger's or an exception's
// name before a colon ("error:", "openai.error.RateLimitError:"), not a
// word of the wrapped sentence ("unauthorized:").
func wrapLabel(word string) bool {
	name, ok := strings.CutSuffix(word, ":")
	return ok && (strings.ContainsAny(name, "._") || slices.Contains(logLabels, name))
}

var logLabels = []string{"error", "err", "warning", "warn", "info", "debug", "trace", "fatal", "panic",
	"caused by", "exception", "traceback", "note", "hint", "details", "cause"}

// wrapOpenWords end no message: a line that stops at one was wrapped.
var wrapOpenWords = []string{"a", "an", "the", "to", "of", "in", "on", "at", "as", "by", "for", "from", "with",
	"into", "and", "or", "but", "if", "when", "while", "than", "is", "are", "was", "were", "be", "been", "has",
	"have", "had", "will", "can", "could", "would", "should", "raised", "that", "your", "our", "their", "this",
	"its", "not"}

// wrapSlack: how much shorter than the widest a wrapped line may run
// (the longest word a wrap moves to the next line).
const wrapSlack = 30

// lineWidths: the widest line of the text in columns, and at how many
// line ends a wrap may have broken: the line runs within wrapSlack of the
// widest and the next line's first word would not have fitted on it.
// Computed once, before unwrapLow blanks any line end.
func (s *scan) lineWidths() (width, breaks int) {
	if s.widthsDone {
		return s.width, s.breaks
	}
	s.widthsDone = true
	low := s.low
	for ls := 0; ls < len(low); {
		e := strings.IndexByte(low[ls:], '\n')
		if e < 0 {
			e = len(low) - ls
		}
		s.width = max(s.width, columns(low[ls:ls+e]))
		ls += e + 1
	}
	for ls := 0; ls < len(low); {
		e := strings.IndexByte(low[ls:], '\n')
		if e < 0 {
			break
		}
		c := columns(low[ls : ls+e])
		n := ls + e + 1
		n += indentOf(low[n:])
		w := n
		for w < len(low) && !isBlank(low[w]) {
			w++
		}
		if c >= s.width-wrapSlack && c+1+columns(low[n:w]) > s.width {
			s.breaks++
		}
		ls += e + 1
	}
	return s.width, s.breaks
}

// columns counts the runes of s (a wrap counts columns, not bytes).
func columns(s string) int { return utf8.RuneCountInString(s) }

// boxContinues: the newline at j wraps a line inside a drawn box
// ("│ ✖  Attempt 3 failed with 5xx error. Retrying   │\n│    with backoff…"):
// the line ends at a border and the next one goes on after its border
// with text, not with a new message's glyph (✖, ✕, ℹ).
func boxContinues(low string, j int) bool {
	k := j
	for k > 0 && isBlank(low[k-1]) {
		k--
	}
	if k < 3 || !boxBorder(low, k-3) {
		return false
	}
	n := j + 1
	for n < len(low) && (low[n] == ' ' || low[n] == '\t') {
		n++
	}
	if n >= len(low) || !boxBorder(low, n) {
		return false
	}
	n += 3
	for n < len(low) && (low[n] == ' ' || low[n] == '\t') {
		n++
	}
	return n < len(low) && low[n] < 0x80 && low[n] != '\n'
}

// isCauseLine: the line at the start of s is Claude Code's cause line under
// a retry line: "⎿", then an error name, a space and "(".
func isCauseLine(s string) bool {
	// A paste quoted in a reply keeps the markdown quote marker ("> ⎿
	// TypeError (fetch failed)"): still the cause line under the retry.
	s = strings.TrimLeft(s, " \t>")
	if !strings.HasPrefix(s, "⎿") {
		return false
	}
	s = strings.TrimLeft(s[len("⎿"):], " \t")
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= '0' && s[n] <= '9' || s[n] == '_') {
		n++
	}
	return n > 0 && strings.HasPrefix(s[n:], " (")
}
