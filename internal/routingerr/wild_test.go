package routingerr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The wild set (issue 12, item 6) is a held-out check: real errors that users
// pasted into public issue trackers, labelled with what the daemon should do.
// It measures the classifier and never fails on accuracy; it fails only on a
// malformed row or a dangerous retry (measureSet). See testdata/wild/README.md.
//
//	go test ./internal/routingerr -run TestWild -v                      # the summary tables
//	go test ./internal/routingerr -run TestWild -v -wild.rows           # and every row still wrong
//	go test ./internal/routingerr -run TestWild -wild.report=/tmp/w.md  # all of it as Markdown
//
// The rows still wrong are not logged by default: the set is held out, and a
// plain `go test -v` of the package must not hand its misses to whoever is
// writing rules.

var (
	wildReport = flag.String("wild.report", "", "write the wild-set measurement, rows still wrong included, as Markdown to this file")
	wildRows   = flag.Bool("wild.rows", false, "also log the wild rows still wrong (id, expected, got)")
)

// wildNow is the clock the wild rows are classified at (the corpus's).
var wildNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// wildRow is one labelled line of testdata/wild/*.jsonl, in the corpus
// format (DESIGN §3). Its own type, so the set loads whatever the corpus
// test's helpers become.
type wildRow struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	HTTPStatus *int   `json:"http_status"`
	Provider   string `json:"provider"`
	Expect     struct {
		Class        Class   `json:"class"`
		Accept       []Class `json:"accept"`
		Family       string  `json:"family"`
		RetryAfterMS *int64  `json:"retry_after_ms"`
		ResetAt      *string `json:"reset_at"`
		ResumeSafe   *bool   `json:"resume_safe"`
	} `json:"expect"`
	Source string `json:"source"`

	file string // base name, e.g. "codex.jsonl"
	line int
}

var wildClasses = []Class{ClassTransient, ClassWaitForReset, ClassUserAction, ClassTerminal, ClassInProgress, ClassUnclassified}

// wildFamilies are the corpus families (labels.go), fixed here so a row's
// label does not move with the code under test.
var wildFamilies = []string{
	"overloaded", "capacity", "unavailable", "server_error", "network", "transport_lost",
	"rate_limited", "in_progress", "quota", "billing", "auth", "permission", "model", "config",
	"context_overflow", "invalid_request", "resume_corrupted", "cancelled", "unknown",
}

// loadWild reads every wild row and fails the test on the first malformed
// one: an unknown field, a missing field, a class outside the six, a bad
// status, hint or source, a duplicate id or text, or a text already in the
// public corpus (the set must be held out from it).
func loadWild(t *testing.T) []wildRow {
	t.Helper()
	known := map[string]string{}
	for text, id := range corpusTexts(t) {
		known[text] = "corpus row " + id
	}
	return loadRealRows(t, "wild", known)
}

// loadRealRows reads testdata/<dir>/*.jsonl, rows of real errors in the
// wild-set format, failing on a malformed row or on a text that is already
// a key of known (which maps a text to where it is from).
func loadRealRows(t *testing.T, dir string, known map[string]string) []wildRow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rows in testdata/%s: %v", dir, err)
	}
	ids := map[string]string{}
	texts := map[string]string{}
	var rows []wildRow
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for n := 1; sc.Scan(); n++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			where := fmt.Sprintf("%s:%d", path, n)
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.DisallowUnknownFields()
			var r wildRow
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if err := checkWildRow(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %s: %v", where, r.ID, err)
			}
			if prev, dup := ids[r.ID]; dup {
				t.Fatalf("%s: id %q already at %s", where, r.ID, prev)
			}
			ids[r.ID] = where
			if prev, dup := texts[r.Text]; dup {
				t.Fatalf("%s: %s: same text as %s", where, r.ID, prev)
			}
			texts[r.Text] = r.ID
			if id, dup := known[r.Text]; dup {
				t.Fatalf("%s: %s: text is %s; the set must be held out from it", where, r.ID, id)
			}
			r.file, r.line = filepath.Base(path), n
			rows = append(rows, r)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return rows
}

// checkWildRow validates one decoded row; raw is its line, to tell a missing
// key from a null one.
func checkWildRow(raw []byte, r *wildRow) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return err
	}
	for _, k := range []string{"id", "text", "http_status", "provider", "expect", "source"} {
		if _, ok := keys[k]; !ok {
			return fmt.Errorf("missing %q", k)
		}
	}
	var ekeys map[string]json.RawMessage
	if err := json.Unmarshal(keys["expect"], &ekeys); err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	for _, k := range []string{"class", "accept", "family", "retry_after_ms", "reset_at", "resume_safe"} {
		if _, ok := ekeys[k]; !ok {
			return fmt.Errorf("expect: missing %q", k)
		}
	}
	e := r.Expect
	switch {
	case r.ID == "" || strings.ContainsAny(r.ID, " \t\n"):
		return fmt.Errorf("id %q: want a non-empty word", r.ID)
	case strings.TrimSpace(r.Text) == "":
		return fmt.Errorf("empty text")
	case r.HTTPStatus != nil && (*r.HTTPStatus < 100 || *r.HTTPStatus > 599):
		return fmt.Errorf("http_status %d outside 100–599", *r.HTTPStatus)
	case r.Provider == "":
		return fmt.Errorf("empty provider")
	case !slices.Contains(wildClasses, e.Class):
		return fmt.Errorf("class %q is not one of %v", e.Class, wildClasses)
	case !slices.Contains(wildFamilies, e.Family):
		return fmt.Errorf("family %q is not a corpus family", e.Family)
	case e.RetryAfterMS != nil && *e.RetryAfterMS <= 0:
		return fmt.Errorf("retry_after_ms %d: want > 0 or null", *e.RetryAfterMS)
	case !strings.HasPrefix(r.Source, "https://") && !strings.HasPrefix(r.Source, "http://"):
		// an issue's URL, or (heldout93+, the pages corpus) the page's, as the
		// corpus stores it (a few pages are http://)
		return fmt.Errorf("source %q: want the issue's or the page's URL", r.Source)
	}
	if string(ekeys["accept"]) == "null" {
		return fmt.Errorf("accept is null: want a list")
	}
	for _, a := range e.Accept {
		if !slices.Contains(wildClasses, a) || a == e.Class {
			return fmt.Errorf("accept %q: want another of the six classes", a)
		}
	}
	if e.ResetAt != nil {
		if _, err := time.Parse(time.RFC3339, *e.ResetAt); err != nil {
			return fmt.Errorf("reset_at: %v", err)
		}
	}
	return nil
}

// corpusTexts maps every public-corpus text (the package copy and the shared
// folder beside the repository, when present) to its id.
func corpusTexts(t *testing.T) map[string]string {
	t.Helper()
	files := []string{filepath.Join("testdata", "provider-errors.jsonl")}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				shared, _ := filepath.Glob(filepath.Join(dir, "..", "shared", "corpus", "*.jsonl"))
				files = append(files, shared...)
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	out := map[string]string{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("corpus: %v", err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var l struct{ ID, Text string }
			if json.Unmarshal(line, &l) == nil && l.Text != "" {
				out[l.Text] = l.ID
			}
		}
	}
	return out
}

// wildOutcome is one row measured.
type wildOutcome struct {
	row       wildRow
	got       Classification
	classOK   bool // got class is the expected one or an accepted one
	familyOK  bool // and, when it is the expected class, the expected family
	retried   bool // the default policy replays it at once (first failure, fresh turn)
	dangerous bool // retried, but the label says it must not be
	missed    bool // the label says retry, the daemon does not
	hintWant  bool // the row expects a retry-after or a reset
	hintOK    bool
}

// measureWild classifies a row the way the corpus does (the text as the
// error, the HTTP status when known) and puts the default policy's first
// decision on it.
//
//   - retried: Policy.Decide on a fresh chain (no retries yet, task budget
//     unset, no output, not cancelled) returns DecisionRetry. That is what
//     transient and in_progress classes get, less a rate limit whose hint is
//     longer than MaxShortHint (it waits instead).
//   - dangerous retry: the class is wrong (not the expected one, not an
//     accepted one), the expected class is not transient, and it is retried:
//     an agent's own progress line, a usage window, a quota, a bad key, a
//     prompt too long or an unknown error replayed as if it were an overload.
//   - missed recovery: the class is wrong, the expected class is transient,
//     and it is not retried: a blip that would reach the user as a banner.
//   - hint: a row with retry_after_ms is right when the classifier's
//     retry_after is within 10% of it; a row with reset_at, when reset_at is
//     the same instant.
func measureWild(r wildRow, pol *Policy) wildOutcome {
	ev := Evidence{Err: r.Text}
	if r.HTTPStatus != nil {
		ev.HTTPStatus = *r.HTTPStatus
	}
	c := Classify(ev, wildNow)
	e := r.Expect
	o := wildOutcome{row: r, got: c}
	o.classOK = c.Class == e.Class || slices.Contains(e.Accept, c.Class)
	o.familyOK = o.classOK && (c.Class != e.Class || c.Code == e.Family)
	o.retried = pol.Decide(c, ev, AttemptState{}, wildNow).Kind == DecisionRetry
	o.dangerous = !o.classOK && e.Class != ClassTransient && o.retried
	o.missed = !o.classOK && e.Class == ClassTransient && !o.retried
	if e.RetryAfterMS != nil || e.ResetAt != nil {
		o.hintWant, o.hintOK = true, true
		if e.RetryAfterMS != nil {
			want := float64(*e.RetryAfterMS)
			o.hintOK = c.RetryAfter != nil && math.Abs(float64(c.RetryAfter.Milliseconds())-want) <= 0.1*want
		}
		if e.ResetAt != nil {
			want, _ := time.Parse(time.RFC3339, *e.ResetAt)
			o.hintOK = o.hintOK && c.ResetAt != nil && c.ResetAt.Equal(want)
		}
	}
	return o
}

func TestWild(t *testing.T) {
	t.Parallel()
	measureSet(t, "wild set", loadWild(t), *wildRows, *wildReport)
}

// measureSet measures real rows under the default policy, logs the tables
// (and the rows still wrong, withRows), writes them all to report when
// given, and fails on a dangerous row. Accuracy is measured, never
// enforced: a fresh sample is scored as it comes. A retry of what its label
// says must not be retried (a bad key, no credits, a prompt too long) is the
// one outcome the daemon promises never to produce, on any set.
func measureSet(t *testing.T, name string, rows []wildRow, withRows bool, report string) {
	t.Helper()
	pol := NewPolicy(PolicyConfig{}, func() float64 { return 0 })
	outs := make([]wildOutcome, 0, len(rows))
	for _, r := range rows {
		outs = append(outs, measureWild(r, pol))
	}
	t.Log("\n" + name + ": " + wildMarkdown(outs, withRows))
	if report != "" {
		if err := os.WriteFile(report, []byte(wildMarkdown(outs, true)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range outs {
		if o.dangerous {
			t.Errorf("%s row %s is retried, but its label says %s: classified %s/%s", name, o.row.ID, o.row.Expect.Class, o.got.Class, o.got.Code)
		}
	}
}

// TestWildMeasure pins the definitions on hand-made outcomes, so a report
// can be trusted: it must be able to count a dangerous retry, a missed
// recovery and a wrong hint.
func TestWildMeasure(t *testing.T) {
	t.Parallel()
	pol := NewPolicy(PolicyConfig{}, func() float64 { return 0 })
	row := func(text string, class Class, ms *int64) wildRow {
		var r wildRow
		r.ID, r.Text, r.Provider, r.Source = "x", text, "t", "https://github.com/x/y/issues/1"
		r.Expect.Class, r.Expect.Family, r.Expect.RetryAfterMS = class, "unknown", ms
		return r
	}
	ms := int64(4000)
	// The corpus's own rows, whose classification the corpus test pins.
	over := `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CUeM9xfGAYzk3JbLwPq7T"}`
	if o := measureWild(row(over, ClassUserAction, nil), pol); !o.dangerous || o.missed || o.classOK {
		t.Errorf("an overload labelled user_action: %+v, want a dangerous retry", o)
	}
	if o := measureWild(row(over, ClassTransient, &ms), pol); !o.classOK || o.dangerous || o.missed || !o.hintWant || o.hintOK {
		t.Errorf("an overload labelled transient with a 4s hint it lacks: %+v, want right class, wrong hint", o)
	}
	login := "Not logged in · Please run /login"
	if o := measureWild(row(login, ClassTransient, nil), pol); !o.missed || o.dangerous {
		t.Errorf("a login error labelled transient: %+v, want a missed recovery", o)
	}
	r := row(login, ClassTransient, nil)
	r.Expect.Accept = []Class{ClassUserAction}
	if o := measureWild(r, pol); !o.classOK || o.missed {
		t.Errorf("an accepted class: %+v, want no miss", o)
	}
}

// wildMarkdown renders the measurement: totals, per file, per expected
// class, and (withRows) every row still wrong.
func wildMarkdown(outs []wildOutcome, withRows bool) string {
	var b strings.Builder
	var classOK, famOK, dangerous, missed, hints, hintsOK, wantRetry, retried int
	for _, o := range outs {
		classOK += b2i(o.classOK)
		famOK += b2i(o.familyOK)
		dangerous += b2i(o.dangerous)
		missed += b2i(o.missed)
		hints += b2i(o.hintWant)
		hintsOK += b2i(o.hintWant && o.hintOK)
		wantRetry += b2i(o.row.Expect.Class == ClassTransient)
		retried += b2i(o.retried)
	}
	n := len(outs)
	fmt.Fprintf(&b, "%d rows\n\n", n)
	fmt.Fprintf(&b, "| measure | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| class accuracy | %d/%d = %s |\n", classOK, n, pct(classOK, n))
	fmt.Fprintf(&b, "| class and family | %d/%d = %s |\n", famOK, n, pct(famOK, n))
	fmt.Fprintf(&b, "| dangerous retries | %d |\n", dangerous)
	fmt.Fprintf(&b, "| missed recoveries | %d (of %d labelled transient) |\n", missed, wantRetry)
	fmt.Fprintf(&b, "| hints right | %d/%d = %s |\n", hintsOK, hints, pct(hintsOK, hints))
	fmt.Fprintf(&b, "| retried by the default policy | %d |\n\n", retried)

	group := func(title string, key func(wildOutcome) string) {
		type agg struct{ n, ok, dang, miss int }
		m := map[string]*agg{}
		for _, o := range outs {
			k := key(o)
			if m[k] == nil {
				m[k] = &agg{}
			}
			a := m[k]
			a.n++
			a.ok += b2i(o.classOK)
			a.dang += b2i(o.dangerous)
			a.miss += b2i(o.missed)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "| %s | rows | class right | dangerous | missed |\n|---|---|---|---|---|\n", title)
		for _, k := range keys {
			a := m[k]
			fmt.Fprintf(&b, "| %s | %d | %d (%s) | %d | %d |\n", k, a.n, a.ok, pct(a.ok, a.n), a.dang, a.miss)
		}
		b.WriteString("\n")
	}
	group("file", func(o wildOutcome) string { return o.row.file })
	group("expected class", func(o wildOutcome) string { return string(o.row.Expect.Class) })
	if !withRows {
		return b.String()
	}

	b.WriteString("Rows still wrong (class, or hint):\n\n| id | expected | got | rule | note |\n|---|---|---|---|---|\n")
	for _, o := range outs {
		if o.classOK && (!o.hintWant || o.hintOK) {
			continue
		}
		note := ""
		switch {
		case o.dangerous:
			note = "DANGEROUS retry"
		case o.missed:
			note = "missed recovery"
		case o.classOK:
			note = "hint: " + hintString(o)
		}
		fmt.Fprintf(&b, "| %s | %s/%s | %s/%s | %s | %s |\n", o.row.ID, o.row.Expect.Class, o.row.Expect.Family,
			o.got.Class, o.got.Code, o.got.RuleID, note)
	}
	return b.String()
}

func hintString(o wildOutcome) string {
	e := o.row.Expect
	var parts []string
	if e.RetryAfterMS != nil {
		got := "none"
		if o.got.RetryAfter != nil {
			got = fmt.Sprint(o.got.RetryAfter.Milliseconds())
		}
		parts = append(parts, fmt.Sprintf("retry_after_ms want %d got %s", *e.RetryAfterMS, got))
	}
	if e.ResetAt != nil {
		got := "none"
		if o.got.ResetAt != nil {
			got = o.got.ResetAt.UTC().Format(time.RFC3339)
		}
		parts = append(parts, fmt.Sprintf("reset_at want %s got %s", *e.ResetAt, got))
	}
	return strings.Join(parts, "; ")
}

func pct(a, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(n))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
