package routingerr

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// perturbations are the ways a pasted or logged error differs from the
// emitter's own text without meaning anything else. On each, no catalogue
// text the classifier reads right may become a retry its label forbids.
// final: the wrapper says the turn failed (an exit, a failed request, an
// "Error: " line), so an agent's retry line inside it is over and its
// cause decides.
var perturbations = []struct {
	name  string
	final bool
	wrap  func(string) string
}{
	{"coloured", false, func(s string) string { return "\x1b[31m" + s + "\x1b[0m" }},
	{"after Error:", true, func(s string) string { return "Error: " + s }},
	{"with blank lines after", false, func(s string) string { return s + "\n\n" }},
	{"in a code fence", false, func(s string) string { return "```text\n" + s + "\n```" }},
	{"logged", false, func(s string) string { return "2026-11-30T10:00:00.123Z ERROR " + s }},
	{"logged by a VS Code output channel", false, func(s string) string { return "2026-11-30 10:00:00.123 [error] " + s }},
	{"logged with the time in brackets", false, func(s string) string { return "[2026-11-30T10:00:00.123Z] [ERROR] " + s }},
	{"in an agent exit", true, func(s string) string { return "Error: Claude Code process exited with code 1\nstderr: " + s }},
	{"in ACP details", true, func(s string) string { return `Internal error: {"details": "` + s + `"}` }},
	{"under goose's retry boilerplate", true, func(s string) string {
		return "Request failed: " + s + "\nPlease retry if you think this is a transient or recoverable error."
	}},
}

// TestPerturbedCatalogueNeverRetriesAStop: a stop (anything the label does
// not call transient or in_progress) stays a stop however it was pasted,
// and an agent's retry line stays one.
func TestPerturbedCatalogueNeverRetriesAStop(t *testing.T) {
	t.Parallel()
	pol := NewPolicy(PolicyConfig{}, func() float64 { return 0 })
	checked := 0
	for _, l := range loadCatalogue(t) {
		if l.Evidence != nil || l.Expect.Class == ClassTransient {
			continue
		}
		if Classify(Evidence{Err: l.Text}, wildNow).Class != l.Expect.Class {
			continue // TestCatalogue reports it
		}
		for _, p := range perturbations {
			if p.final && l.Expect.Class == ClassInProgress {
				continue
			}
			ev := Evidence{Err: p.wrap(l.Text)}
			c := Classify(ev, wildNow)
			if c.Class == l.Expect.Class || l.Expect.Class == ClassInProgress && c.Class != ClassTransient {
				continue
			}
			if pol.Decide(c, ev, AttemptState{}, wildNow).Kind == DecisionRetry {
				t.Errorf("%s %s: %s (%s) is retried, want %s\n  text %.200q", l.ID, p.name, c.Class, c.RuleID, l.Expect.Class, ev.Err)
			}
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d catalogue stops checked", checked)
	}
}

// TestEnvelopedStopsAreRarelyRetried bounds what is not yet fixed: a stop
// (terminal, user_action, wait_for_reset) inside Codex's stream-disconnected
// envelope, behind a lost fetch or quoted as one JSON string is retried for
// a few catalogue texts (7, 1 and 1 when this was written); more means a
// reading regressed.
func TestEnvelopedStopsAreRarelyRetried(t *testing.T) {
	t.Parallel()
	pol := NewPolicy(PolicyConfig{}, func() float64 { return 0 })
	for _, tc := range []struct {
		name string
		wrap func(string) string
		max  int
	}{
		{"in Codex's envelope", func(s string) string { return "stream disconnected before completion: " + s }, 10},
		{"behind a lost fetch", func(s string) string { return "TypeError: fetch failed\n" + s }, 3},
		{"quoted in JSON", func(s string) string {
			b, _ := json.Marshal(s)
			return `{"type":"error","message":` + string(b) + `}`
		}, 3},
	} {
		var retried []string
		for _, l := range loadCatalogue(t) {
			switch l.Expect.Class {
			case ClassTerminal, ClassUserAction, ClassWaitForReset:
			default:
				continue
			}
			if l.Evidence != nil || Classify(Evidence{Err: l.Text}, wildNow).Class != l.Expect.Class {
				continue
			}
			ev := Evidence{Err: tc.wrap(l.Text)}
			c := Classify(ev, wildNow)
			if c.Class != l.Expect.Class && c.Class == ClassTransient && pol.Decide(c, ev, AttemptState{}, wildNow).Kind == DecisionRetry {
				retried = append(retried, l.ID)
			}
		}
		t.Logf("%s: %d stops retried", tc.name, len(retried))
		if len(retried) > tc.max {
			t.Errorf("%s: %d stops retried, at most %d: %s", tc.name, len(retried), tc.max, strings.Join(retried, ", "))
		}
	}
}

// TestPasteNoiseReadsAsWithout: what a paste adds around an error without
// meaning anything else — the "⎿  " Claude Code's TUI draws before each
// message, a quote marker before it, blanks after the last word or each
// line, Windows line ends, a tab before each line, a reply's "> " before
// each line — leaves every real row
// and catalogue text reading the same (class, rule, hints). Before the
// glyph was blanked (normalizeLow) 15 of 4,971 real rows changed behind
// "⎿  ", one a retry line read as a failure to retry on; before the parts
// were trimmed, 7 behind two trailing blanks ("…: EOF  "); before the
// keywords read a quote marker as a blank, 20 quoted in a reply, 2 of
// them retried against their label.
func TestPasteNoiseReadsAsWithout(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	for _, l := range loadCatalogue(t) {
		if l.Evidence == nil {
			texts[l.ID] = l.Text
		}
	}
	for _, r := range realRows(t) {
		texts[r.ID] = r.Text
	}
	if len(texts) < 6000 {
		t.Fatalf("only %d texts", len(texts))
	}
	noise := []struct {
		name string
		add  func(string) string
	}{
		{"after ⎿", func(s string) string { return "⎿  " + s }},
		{"after an indented ⎿", func(s string) string { return "  ⎿  " + s }},
		{"after a quoted ⎿", func(s string) string { return "> ⎿  " + s }},
		{"after ⎿ and one blank", func(s string) string { return "⎿ " + s }},
		{"with blanks after", func(s string) string { return s + "  " }},
		{"with blanks after each line", func(s string) string { return strings.ReplaceAll(s, "\n", "  \n") + "  " }},
		{"with CRLF", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
		{"tab-indented", func(s string) string { return "\t" + strings.ReplaceAll(s, "\n", "\n\t") }},
		{"quoted in a reply", func(s string) string { return "> " + strings.ReplaceAll(s, "\n", "\n> ") }},
		{"quoted twice", func(s string) string { return "> > " + strings.ReplaceAll(s, "\n", "\n> > ") }},
	}
	for id, text := range texts {
		want := Classify(Evidence{Err: text}, wildNow)
		for _, n := range noise {
			got := Classify(Evidence{Err: n.add(text)}, wildNow)
			if got.Class != want.Class || got.RuleID != want.RuleID || !sameHint(got, want) {
				t.Errorf("%s %s: %s (%s), without it %s (%s)", id, n.name, got.Class, got.RuleID, want.Class, want.RuleID)
			}
		}
	}
}

func sameHint(a, b Classification) bool {
	eq := func(x, y *time.Duration) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	eqT := func(x, y *time.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	return eq(a.RetryAfter, b.RetryAfter) && eqT(a.ResetAt, b.ResetAt)
}

// realRows is every row of the wild set and the held-out sets.
func realRows(t *testing.T) []wildRow {
	t.Helper()
	rows := loadWild(t)
	dirs, err := filepath.Glob(filepath.Join("testdata", "heldout*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no held-out sets: %v", err)
	}
	for _, d := range dirs {
		rows = append(rows, loadRealRows(t, filepath.Base(d), map[string]string{})...)
	}
	return rows
}

// hardWrap breaks every line longer than width at its last blank before
// width, as a terminal copy or an editor's hard wrap does.
func hardWrap(text string, width int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for utf8.RuneCountInString(line) > width {
			rs := []rune(line)
			cut := strings.LastIndexByte(string(rs[:width]), ' ')
			if cut <= 0 {
				break // one word longer than the width: the terminal breaks it mid-word
			}
			out = append(out, line[:cut])
			line = line[cut+1:]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestHardWrappedRetryLinesStayRetries: a retry line a terminal wrapped
// reads as the one line it was. Its wrapped tail saying "error" is not a
// later error that ended the retries, and two messages are not joined.
func TestHardWrappedRetryLinesStayRetries(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"langchain at 80", "Retrying\nlangchain.embeddings.openai.embed_with_retry.<locals>._embed_with_retry in 4.0\nseconds as it raised RateLimitError: Rate limit reached for\ndefault-text-embedding-ada-002 in organization org-uIkxFSWUeCDpCsfzD5XWYLZ7 on\ntokens per min. Limit: 1000000 / min. Current: 837303 / min. Contact us through\nour help center at help.openai.com if you continue to have issues.."},
		{"claude code at 80", "API Error (429 Too many tokens, please wait before trying again.) · Retrying in\n1 seconds… (attempt 1/10)"},
		{"codex with its cause at 80", "Reconnecting... 2/5 (stream disconnected before completion: Connection reset by\npeer (os error 54))"},
	} {
		if got := Classify(Evidence{Err: c.text}, wildNow); got.Class != ClassInProgress {
			t.Errorf("%s: %s (%s), want in_progress", c.name, got.Class, got.RuleID)
		}
	}
	// Two messages of a wrapped text stay two: the retries ended.
	for _, text := range []string{
		"API Error (529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}) · Retrying in 34 seconds… (attempt 9/10)\nAPI Error (529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}) · Retrying in 38 seconds… (attempt 10/10)\nAPI Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
		"2026-11-30T10:00:00.123Z ERROR from shell.Get(): context deadline exceeded, retrying fetch\n2026-11-30T10:00:00.456Z ERROR invalid api key: the key was revoked, please sign in again before",
	} {
		if got := Classify(Evidence{Err: text}, wildNow); got.Class == ClassInProgress {
			t.Errorf("%q: in_progress (%s), want the final error", text, got.RuleID)
		}
	}
}

// TestHardWrappedRealRows wraps every real row at 120 and at 80 columns:
// the rows that then retry against their label are counted, and may not
// grow: 5 at 120 and 11 at 80 when unwrapLow landed (the wrapped tail of a
// Codex "└" detail, a two-line wrap with no sign that it is one); before it,
// 15 and 26.
func TestHardWrappedRealRows(t *testing.T) {
	pol := NewPolicy(PolicyConfig{}, func() float64 { return 0 })
	rows := realRows(t)
	for _, c := range []struct{ width, maxDangerous int }{{120, 5}, {80, 11}} {
		dangerous := 0
		for _, r := range rows {
			w := r
			w.Text = hardWrap(r.Text, c.width)
			if w.Text == r.Text {
				continue
			}
			if measureWild(w, pol).dangerous && !measureWild(r, pol).dangerous {
				dangerous++
				t.Logf("wrapped at %d: %s retries against its label", c.width, r.ID)
			}
		}
		if dangerous > c.maxDangerous {
			t.Errorf("wrapped at %d: %d rows retry against their label, want at most %d", c.width, dangerous, c.maxDangerous)
		}
	}
}
