package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

var classifyNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func TestRunClassify(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		``,
		`   `,
		`{"text": "{\"error\":{\"message\":\"Please try again in 644ms.\",\"code\":\"rate_limit_exceeded\"}}", "http_status": 429}`,
		`{"http_status": 500}`,
		`{not json`,
		`Claude AI usage limit reached|1751385600` + "\r",
		`{"text": "x", "http_status": "529"}`,
		`Incorrect API key provided: sk-proj-abcdefghijklmnop at /home/alice/x`,
	}, "\n")
	var out, errOut bytes.Buffer
	bad, err := runClassify(strings.NewReader(in), &out, &errOut, classifyJSON, classifyNow)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 3 {
		t.Errorf("bad lines = %d, want 3; stderr:\n%s", bad, errOut.String())
	}
	for _, want := range []string{"line 5: ", "line 6: invalid JSON", "line 8: invalid JSON"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d output lines, want 4:\n%s", len(lines), out.String())
	}
	wantPrefix := `{"code":"overloaded","class":"transient","confidence":0.95,"rule_id":"anthropic.overloaded_error.v1","retry_after_ms":null,"reset_at":null,"resume_safe":false,"excerpt":`
	if !strings.HasPrefix(lines[0], wantPrefix) {
		t.Errorf("line 1:\n got %s\nwant %s…", lines[0], wantPrefix)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &o); err != nil {
		t.Fatal(err)
	}
	if o["code"] != "rate_limited" || o["retry_after_ms"] != float64(644) {
		t.Errorf("JSON input line: %s", lines[1])
	}
	if err := json.Unmarshal([]byte(lines[2]), &o); err != nil {
		t.Fatal(err)
	}
	if o["class"] != "wait_for_reset" || o["reset_at"] != "2025-07-01T16:00:00Z" {
		t.Errorf("epoch line: %s", lines[2])
	}
	if strings.Contains(lines[3], "abcdefghijklmnop") || strings.Contains(lines[3], "alice") {
		t.Errorf("excerpt not sanitised: %s", lines[3])
	}
}

func TestRunClassifyExactFields(t *testing.T) {
	t.Parallel()
	for _, explain := range []bool{false, true} {
		var out, errOut bytes.Buffer
		mode := classifyJSON
		if explain {
			mode = classifyExplainJSON
		}
		if _, err := runClassify(strings.NewReader("connect ETIMEDOUT 1.2.3.4:443\n"), &out, &errOut, mode, classifyNow); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(&out)
		tok, _ := dec.Token() // {
		if tok != json.Delim('{') {
			t.Fatalf("not an object: %s", out.String())
		}
		var keys []string
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		want := "code,class,confidence,rule_id,retry_after_ms,reset_at,resume_safe,excerpt"
		if explain {
			want += ",explain"
		}
		if got := strings.Join(keys, ","); got != want {
			t.Errorf("explain=%v keys = %s, want %s", explain, got, want)
		}
	}
}

func TestRunClassifyExplain(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	in := "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n"
	if _, err := runClassify(strings.NewReader(in), &out, &errOut, classifyExplainJSON, classifyNow); err != nil {
		t.Fatal(err)
	}
	var o struct {
		RuleID  string `json:"rule_id"`
		Explain struct {
			RuleID  string `json:"rule_id"`
			Span    []int  `json:"span"`
			Matched string `json:"matched"`
		} `json:"explain"`
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if o.Explain.RuleID != o.RuleID || len(o.Explain.Span) != 2 || !strings.Contains(o.Explain.Matched, "overloaded_error") {
		t.Errorf("explain does not point at the match: %s", out.String())
	}
}

// TestRunClassifyExplainText: a person reads which rule decided, the text
// it matched, and why a near miss did not apply — in a few lines, not a
// list of every rule.
func TestRunClassifyExplainText(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	in := "I changed the handler so the queue returns 529 when overloaded\n" +
		"API Error (Request timed out.) · Retrying in 1 seconds… (attempt 2/10)\n"
	if _, err := runClassify(strings.NewReader(in), &out, &errOut, classifyExplainText, classifyNow); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"line 1: unclassified (unknown), rule unclassified.v1",
		`not generic.overloaded_text.v2: found "overloaded", but not on an error line`,
		"line 2: in_progress, rule claude_code.retrying.v1",
		"»Retrying in «",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explain text lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n"); n > 12 {
		t.Errorf("explain text has %d lines for 2 errors:\n%s", n, text)
	}
}

func TestRunClassifyLongLines(t *testing.T) {
	t.Parallel()
	suffix := " API Error: Request timed out."
	long := strings.Repeat("a", maxClassifyLine-len(suffix)) + suffix // exactly the limit
	tooLong := strings.Repeat("b", maxClassifyLine+10)
	in := long + "\n" + tooLong + "\nconnect ECONNREFUSED 127.0.0.1:8082"
	var out, errOut bytes.Buffer
	bad, err := runClassify(strings.NewReader(in), &out, &errOut, classifyJSON, classifyNow)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 1 || !strings.HasPrefix(errOut.String(), "line 2: longer than") {
		t.Errorf("bad=%d stderr=%q", bad, errOut.String())
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 4<<20)
	var codes []string
	for sc.Scan() {
		var o struct{ Code string }
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		codes = append(codes, o.Code)
	}
	// The whole 1 MiB line is read; its final error counts.
	if len(codes) != 2 || codes[0] != "network" || codes[1] != "network" {
		t.Errorf("codes = %v", codes)
	}
}

// The corpus file is valid input as it is: every line has "text".
func TestRunClassifyCorpusFile(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../internal/routingerr/testdata/provider-errors.jsonl")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var out, errOut bytes.Buffer
	bad, err := runClassify(f, &out, &errOut, classifyJSON, classifyNow)
	if err != nil || bad != 0 {
		t.Fatalf("bad=%d err=%v stderr=%s", bad, err, errOut.String())
	}
	if n := strings.Count(out.String(), "\n"); n < 96 {
		t.Errorf("%d lines out", n)
	}
}

func TestClassifyCmdExitCode(t *testing.T) {
	t.Parallel()
	cmd := newClassifyCmd()
	var out, errOut bytes.Buffer
	cmd.SetIn(strings.NewReader("ok line\n{\"nope\":1}\n"))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"--now", "2026-06-01T12:00:00Z"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	var ec exitCodeError
	if !errors.As(err, &ec) || int(ec) != 2 {
		t.Fatalf("err = %v, want exit code 2", err)
	}
	if strings.Count(out.String(), "\n") != 1 || !strings.Contains(errOut.String(), "line 2:") {
		t.Errorf("out=%q err=%q", out.String(), errOut.String())
	}

	cmd = newClassifyCmd()
	cmd.SetIn(strings.NewReader("You've hit your limit · resets 3pm (Europe/Paris)\n"))
	out.Reset()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--now", "2026-06-01T12:00:00Z"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"reset_at":"2026-06-01T13:00:00Z"`) {
		t.Errorf("--now not used: %s", out.String())
	}
}
