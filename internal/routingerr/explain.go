package routingerr

import (
	"fmt"
	"strings"
	"time"
)

// Explanation says, for people, why evidence was classified as it was:
// which rule decided, on which span of the text, and why the rules tried
// before it did not apply. Offsets are bytes in Text, the evidence text as
// the classifier reads it (message, data, error, stderr tail, joined by
// newlines).
type Explanation struct {
	RuleID string `json:"rule_id"`
	Band   string `json:"band"` // what kind of evidence the rule reads, e.g. "usage window", "HTTP status"
	// Why is one sentence: the rule's evidence, e.g. `"overloaded_error" in the text`.
	Why string `json:"why"`
	// Span is the matched text, [start, end) in Text; nil for structured
	// evidence (a JSON-RPC code, an exit status, the cancel flag).
	Span    *[2]int `json:"span"`
	Matched string  `json:"matched"` // Text[Span[0]:Span[1]], sanitised
	// NearMisses are rules tried before the winner that found some of their
	// words but not all they need, with the reason, in evaluation order.
	NearMisses []NearMiss `json:"near_misses"`
	// Silent counts the rules tried before the winner that found none of
	// their words (or whose structured evidence was absent).
	Silent int    `json:"silent"`
	Text   string `json:"-"`
}

// NearMiss is a rule that almost applied.
type NearMiss struct {
	RuleID string `json:"rule_id"`
	Reason string `json:"reason"`
}

var bandNames = [...]string{
	bandCancel: "cancel", bandProgress: "agent still retrying", bandReset: "usage window or quota",
	bandTerminal: "request can never succeed", bandUser: "a human must act", bandTransient: "provider transient",
	bandTransport: "transport", bandStatus: "HTTP status", bandGeneric: "provider error type", bandFallback: "weak heuristic",
}

// maxNearMisses bounds Explanation.NearMisses: a few readable lines.
const maxNearMisses = 6

// Explain is Classify plus an Explanation. It is meant for people (and the
// classify --explain command), not the hot path: it allocates.
func Explain(ev Evidence, now time.Time) (Classification, Explanation) {
	c := Classify(ev, now)
	s := newScan(&ev, now)
	defer s.release()
	x := Explanation{RuleID: c.RuleID, Text: strings.Clone(s.raw), NearMisses: []NearMiss{}}
	for i := range ruleTable {
		r := &ruleTable[i]
		pos := r.eval(s)
		if pos >= 0 {
			envelope := ""
			if r.band == bandTransport {
				if q, qpos := s.innerStop(r, pos, i, nil, nil); q != r {
					envelope = "; it follows the transport failure " + r.id + " matched, so it is the cause inside that envelope"
					r, pos = q, qpos
				}
			}
			x.Band = bandNames[r.band]
			x.Why, x.Span = r.describeMatch(s, pos)
			x.Why += envelope
			if x.Span != nil {
				x.Matched = Sanitize(s.raw[x.Span[0]:x.Span[1]])
			}
			return c, x
		}
		if reason := r.missReason(s); reason != "" {
			if len(x.NearMisses) < maxNearMisses {
				x.NearMisses = append(x.NearMisses, NearMiss{RuleID: r.id, Reason: reason})
			}
			continue
		}
		x.Silent++
	}
	x.Band = "none"
	x.Why = "no rule matched: not retried automatically"
	return c, x
}

// describeMatch names the evidence of a matching rule and its span.
func (r *rule) describeMatch(s *scan, pos int) (string, *[2]int) {
	if r.evidence != nil && r.evidence(&s.ev) {
		return "structured evidence: " + structuredWhy(&s.ev), nil
	}
	for _, id := range r.anyIDs {
		if s.found.has(id) {
			w := keywords.words[id]
			return q(w) + " in the text", spanOf(s, pos, w)
		}
	}
	if len(r.all) > 0 {
		return quoteList(r.all, 3) + " in the text", spanOf(s, pos, r.all[0])
	}
	if st, spos := s.httpStatus(); st != 0 && spos == pos && strings.HasPrefix(r.id, "http.") {
		if s.ev.HTTPStatus == st {
			return fmt.Sprintf("HTTP status %d (structured)", st), nil
		}
		return fmt.Sprintf("HTTP status %d in the text", st), spanOf(s, pos, "")
	}
	if st, _ := s.httpStatus(); st != 0 && s.ev.HTTPStatus == st && pos == 0 && r.id == "anthropic.overloaded.529.v1" {
		return fmt.Sprintf("HTTP status %d (structured)", st), nil
	}
	for _, id := range r.gateIDs {
		if s.found.has(id) {
			w := keywords.words[id]
			return q(w) + " in the text", spanOf(s, pos, w)
		}
	}
	return "its own check of the text", spanOf(s, pos, "")
}

// q quotes a keyword for people: "word", or `word` when it holds quotes.
func q(w string) string {
	if strings.ContainsRune(w, '"') {
		return "`" + w + "`"
	}
	return `"` + w + `"`
}

func structuredWhy(ev *Evidence) string {
	switch {
	case ev.Cancelled:
		return "the turn was cancelled"
	case ev.HasRPCError:
		return fmt.Sprintf("JSON-RPC error code %d", ev.RPCCode)
	case ev.ExitStatus != "":
		return "agent " + ev.ExitStatus
	}
	return "the evidence's fields"
}

// spanOf is the span of w at pos (canonically found words may differ from
// the raw text: then up to the end of the token), or of the token at pos.
func spanOf(s *scan, pos int, w string) *[2]int {
	pos = min(max(pos, 0), len(s.raw))
	end := pos + len(w)
	if core := coreWord(w); w != "" && (end > len(s.low) || s.low[pos:end] != w) && strings.HasPrefix(s.low[pos:], core) {
		return &[2]int{pos, pos + len(core)}
	}
	if w == "" || end > len(s.low) || s.low[pos:end] != w {
		end = pos
		for end < len(s.raw) && end-pos < 80 && s.raw[end] != '\n' && !(end > pos+3 && (s.raw[end] == '.' || s.raw[end] == ',')) {
			end++
		}
	}
	return &[2]int{pos, end}
}

// missReason says why a rule that found some of its words did not apply;
// "" when it found none (a silent rule).
func (r *rule) missReason(s *scan) string {
	if !r.textual {
		return ""
	}
	var firstAny string
	for _, id := range r.anyIDs {
		if s.found.has(id) {
			firstAny = keywords.words[id]
			break
		}
	}
	var haveAll, missAll []string
	for i, id := range r.allIDs {
		if s.found.has(id) {
			haveAll = append(haveAll, r.all[i])
		} else {
			missAll = append(missAll, r.all[i])
		}
	}
	if len(r.anyIDs) > 0 && firstAny == "" {
		if len(haveAll) > 0 {
			return "found " + q(haveAll[0]) + " but none of " + quoteList(r.any, 3)
		}
		return ""
	}
	if len(missAll) > 0 {
		if firstAny == "" && len(haveAll) == 0 {
			return ""
		}
		have := firstAny
		if have == "" {
			have = haveAll[0]
		}
		return "found " + q(have) + " but not " + q(missAll[0])
	}
	for i, id := range r.noneIDs {
		if s.found.has(id) {
			have := firstAny
			if have == "" && len(haveAll) > 0 {
				have = haveAll[0]
			}
			if have == "" {
				return q(r.none[i]) + " excludes it"
			}
			return "found " + q(have) + ", but " + q(r.none[i]) + " excludes it"
		}
	}
	var gateWord string
	for _, id := range r.gateIDs {
		if s.found.has(id) {
			gateWord = keywords.words[id]
			break
		}
	}
	if len(r.gateIDs) > 0 && gateWord == "" {
		return ""
	}
	if r.match == nil {
		return ""
	}
	if gateWord == "" && firstAny == "" {
		// Status rules and other checks without words: only a 429 the
		// rate-limit reading left alone has something to say.
		if st, _ := s.httpStatus(); st == 429 && r.id == "http.rate_limited.429.v1" && s.longLimit() {
			return "the status is 429, but " + checkLongLimit
		}
		return ""
	}
	w := gateWord
	if w == "" {
		w = firstAny
	}
	check := r.check
	if check == "" {
		check = ruleChecks[r.id]
	}
	if check != "" {
		return "found " + q(w) + ", but " + check
	}
	return "found " + q(w) + ", but its check did not hold"
}

func quoteList(ws []string, n int) string {
	var b strings.Builder
	for i, w := range ws {
		if i == n {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q(w))
	}
	return b.String()
}

// ruleChecks says what a rule's match checks beyond its words.
var ruleChecks = map[string]string{
	"openai.engine_overloaded.v1":           checkErrorText,
	"gemini.model_overloaded.v1":            checkErrorText,
	"http.reason_phrase.v1":                 checkErrorText,
	"generic.internal_server_error_text.v1": checkErrorText,
	"node.terminated.v1":                    "other words share its line (not a bare \"terminated\")",
	"go.eof.v1":                             "the EOF does not end the line",
	"cli.usage_limit.v1":                    "no \"limit\" follows closely on the same line",
	"cli.limit_resets.v1":                   "no limit names the reset, or it is a warning (approaching, used, continuing)",
	"claude_code.usage_limit_epoch.v1":      "no epoch follows the bar",
	"google.quota_limit_zero.v1":            "the limit is not exactly 0",
	"acp.auth_required_code.v1":             "the JSON-RPC code is not -32000 (auth_required)",
	"acp.request_cancelled.v1":              "only as part of a longer word or number",
	"node.errno.v1":                         "only inside a longer word",
	"http.gateway_text.v1":                  "only inside a longer number",
	"http.too_many_requests_text.v1":        "only inside a longer number",
	"http.internal_error_text.v1":           "only inside a longer number",
	"exec.not_found.v1":                     "not as a spawn failure",
	"anthropic.overloaded.529.v1":           "only inside a longer number",
}
