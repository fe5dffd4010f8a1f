package routingerr

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var validClasses = map[Class]bool{
	ClassTransient: true, ClassWaitForReset: true, ClassUserAction: true,
	ClassTerminal: true, ClassInProgress: true, ClassUnclassified: true,
}

// FuzzClassify: any evidence (up to 64 KiB a field) classifies without
// panicking into a well-formed answer that a policy can act on.
func FuzzClassify(f *testing.F) {
	for _, text := range fuzzSeeds(f) {
		f.Add(text, "", 0, uint8(0))
	}
	f.Add("", "API Error (529) · Retrying in 4 seconds… (attempt 4/10)", 0, uint8(0))
	f.Add("resets 11:59pm (Europe/Paris)", "You've hit your limit", 429, uint8(1))
	f.Add("Authorization: Bearer abcdefghijk sk-ant-api03-xxxxxxxxxxxx /home/u/x", "", 200, uint8(2))
	f.Fuzz(func(t *testing.T, text, stderr string, httpStatus int, flags uint8) {
		if len(text) > 64<<10 || len(stderr) > 64<<10 {
			t.Skip()
		}
		ev := Evidence{
			Err: text, StderrTail: stderr, HTTPStatus: httpStatus,
			Phase: PhaseStreaming, HadOutput: flags&1 != 0, Cancelled: flags&2 != 0,
		}
		if flags&4 != 0 {
			ev.ExitStatus = "exit status 1"
		}
		if flags&8 != 0 {
			ev.HasRPCError, ev.RPCCode, ev.RPCMessage, ev.Err = true, -32603, text, ""
		}
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		c, trace := ClassifyExplain(ev, now)
		if !validClasses[c.Class] || c.Code == "" || c.RuleID == "" {
			t.Fatalf("malformed classification %+v", c)
		}
		if c.Confidence < 0 || c.Confidence > 1 {
			t.Fatalf("confidence %v", c.Confidence)
		}
		if len(c.Excerpt) > ExcerptMax {
			t.Fatalf("excerpt of %d bytes", len(c.Excerpt))
		}
		if utf8.ValidString(text) && utf8.ValidString(stderr) && !utf8.ValidString(c.Excerpt) {
			t.Fatalf("excerpt cut a rune: %q", c.Excerpt)
		}
		if c.RetryAfter != nil && (*c.RetryAfter < 0 || *c.RetryAfter > maxHint) {
			t.Fatalf("retry_after %v", *c.RetryAfter)
		}
		if c.Class == ClassWaitForReset && c.ResetAt != nil && c.ResetAt.Location() != time.UTC {
			t.Fatalf("reset_at not UTC")
		}
		if len(trace) == 0 || trace[len(trace)-1].Matched != (c.RuleID != ruleUnclassified) {
			t.Fatalf("trace does not end at the result")
		}
		// Classify skips the rules no found keyword lets through; it must
		// land where trying every rule in order does.
		if q := Classify(ev, now); q.RuleID != c.RuleID || q.Excerpt != c.Excerpt {
			t.Fatalf("Classify decided %s, every rule in order %s", q.RuleID, c.RuleID)
		}
		if _, x := Explain(ev, now); x.RuleID != c.RuleID || x.Span != nil && (x.Span[0] < 0 || x.Span[0] > x.Span[1] || x.Span[1] > len(x.Text)) {
			t.Fatalf("explanation %+v does not fit %s", x, c.RuleID)
		}
		if c.Model != "" && (!validModel(c.Model) || Sanitize(c.Model) != c.Model) {
			t.Fatalf("implausible model %q", c.Model)
		}
		if s := Sanitize(c.Excerpt); s != c.Excerpt {
			t.Fatalf("Sanitize is not idempotent:\n%q\n%q", c.Excerpt, s)
		}
		d := NewPolicy(PolicyConfig{}, func() float64 { return 0.5 }).Decide(c, ev, AttemptState{}, now)
		if d.Kind == DecisionRetry && (d.Delay < 0 || d.Retry < 1 || d.Retry > d.MaxAttempts) {
			t.Fatalf("bad decision %+v", d)
		}
		if ev.Cancelled && d.Kind != DecisionManual {
			t.Fatalf("a cancel was retried: %+v", d)
		}
	})
}

// fuzzSeeds are the corpus and catalogue texts.
func fuzzSeeds(f *testing.F) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "catalogue", "*.jsonl"))
	files = append([]string{filepath.Join("testdata", "provider-errors.jsonl")}, files...)
	var out []string
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var l struct{ Text string }
			if json.Unmarshal(sc.Bytes(), &l) == nil && strings.TrimSpace(l.Text) != "" {
				out = append(out, l.Text)
			}
		}
		fh.Close()
	}
	return out
}
