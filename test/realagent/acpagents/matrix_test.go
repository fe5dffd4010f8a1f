package acpagents

// The evidence matrix: one row per agent × failure, printed as a Markdown
// table when the run ends (and appended as JSON lines to
// ORCHESTRATORD_REAL_MATRIX when that names a file).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

const matrixEnv = "ORCHESTRATORD_REAL_MATRIX"

// row is what one scenario ended in.
type row struct {
	Agent, Failure string
	Outcome        string        // recovered (how), or the banner and why
	Notices        int           // retry notices shown for the failed turn
	NoticeText     string        // the notice's last text
	Others         []string      // other status messages (a silence notice)
	Retries        int           // retries the daemon started
	Requests       []string      // every agent turn the provider saw, with what it answered
	Classified     []string      // code / rule_id of each failed execution
	Delay          time.Duration // the first retry's delay: the notice's retry_at after its updated_at
	Recovery       time.Duration // from the first failure sent to the end of the turn
	Partial        string        // what became of a failed attempt's partial text
	FirstTurn      string        // where the last request carried the first turn (second-turn failures)
	Wall           time.Duration // the whole scenario
}

func (r *row) String() string {
	return fmt.Sprintf("%s × %s → %s; notices %d %q; daemon retries %d (first after %s); provider turns [%s]; recovery %s; classified [%s]; first turn: %s; %s",
		r.Agent, r.Failure, r.Outcome, r.Notices, r.NoticeText, r.Retries, r.delay(), strings.Join(r.Requests, " "), dur(r.Recovery),
		strings.Join(r.Classified, "; "), r.FirstTurn, r.Partial)
}

func dur(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return d.Round(100 * time.Millisecond).String()
}

// delay is the first retry's delay, "-" without a notice.
func (r *row) delay() string {
	if r.Notices == 0 {
		return "-"
	}
	return r.Delay.Round(100 * time.Millisecond).String()
}

// fill derives the row from what the chat, the fake and the daemon's
// executions showed.
func (r *row) fill(t *testing.T, sc scenario, logs []*turnLog, fake *recorder, d *daemontest.Daemon, s *daemontest.Session) {
	for _, q := range fake.turns() {
		r.Requests = append(r.Requests, q.Outcome)
	}
	if s != nil {
		for _, x := range executions(t, d, s.ID) {
			if c := x.Classification; c != nil {
				r.Classified = append(r.Classified, fmt.Sprintf("%v %v/%v", x.Outcome, c["code"], c["rule_id"]))
			}
		}
	}
	if len(logs) == 0 {
		r.Outcome = "no task"
		return
	}
	failed, last := logs[len(logs)-1], logs[len(logs)-1]
	if len(logs) > sc.failAt {
		failed = logs[sc.failAt]
	}
	r.Notices, r.Retries = len(failed.notices), failed.replays
	if len(failed.notices) > 0 {
		r.NoticeText = failed.texts[failed.notices[0]]
		r.Delay = failed.delay
	}
	for _, id := range failed.others {
		r.Others = append(r.Others, failed.texts[id])
	}
	if first := fake.firstFailure(); !first.IsZero() && last.endStop == "end_turn" && last.banner == nil {
		r.Recovery = last.end.At.Sub(first)
	}
	switch {
	case last.banner != nil:
		m := last.banner.Metadata
		r.Outcome = fmt.Sprintf("BANNER (%v, %v): %q", m["failure_code"], m["reason"], truncate(last.banner.Text, 120))
	case last.endStop == "end_turn" && len(logs) == sc.failAt+1 && failed.replays > 0:
		r.Outcome = "recovered (daemon retry)"
	case last.endStop == "end_turn" && len(logs) == sc.failAt+1 && fake.failuresSent() > 0:
		r.Outcome = "recovered by the agent itself (silent retry)"
	case last.endStop == "end_turn" && len(logs) == sc.failAt+1:
		r.Outcome = "answered, no failure reached the agent"
	case last.endStop != "":
		r.Outcome = "turn ended: " + last.endStop
	default:
		r.Outcome = "no end within the test's bounds"
	}
	if r.Partial == "" && sc.fails[0] == dropped {
		r.Partial = "partial text not in the chat"
	}
}

var (
	rowsMu sync.Mutex // guards rows
	rows   []*row
)

func addRow(r *row) {
	rowsMu.Lock()
	rows = append(rows, r)
	rowsMu.Unlock()
	if path := os.Getenv(matrixEnv); path != "" {
		b, _ := json.Marshal(r)
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, _ = f.Write(append(b, '\n'))
			_ = f.Close()
		}
	}
}

// printMatrix writes the rows of this run as a Markdown table.
func printMatrix(w io.Writer) {
	rowsMu.Lock()
	defer rowsMu.Unlock()
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Agent < rows[j].Agent })
	fmt.Fprintln(w, "\n| agent | failure | outcome | notices | daemon retries (first delay) | provider turns | time to recovery | classified as | notes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		notes := r.Partial
		if r.FirstTurn != "" {
			notes = strings.TrimSpace("first turn " + r.FirstTurn + ". " + notes)
		}
		if len(r.Others) > 0 {
			notes = strings.TrimSpace(notes + " other notices: " + strings.Join(r.Others, " / "))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d (%s) | %s | %s | %s | %s |\n", r.Agent, r.Failure, r.Outcome, r.Notices, r.Retries, r.delay(),
			strings.Join(r.Requests, " "), dur(r.Recovery), strings.Join(r.Classified, "; "), strings.ReplaceAll(notes, "|", "/"))
	}
}

// reportEvidence logs, with -v or when the test failed, the sanitised
// evidence of every failed execution and every request of the fake.
func reportEvidence(t *testing.T, d *daemontest.Daemon, fake *recorder, s *daemontest.Session) {
	if !testing.Verbose() && !t.Failed() {
		return
	}
	if s != nil {
		for _, x := range executions(t, d, s.ID) {
			if x.RawEvidence != "" {
				t.Logf("failed execution (attempt %d, %s): classification %v\n  evidence: %s", x.Attempt, x.Outcome, x.Classification, truncate(x.RawEvidence, 1500))
			}
		}
	}
	for _, l := range d.LogLines("agent turn failed") {
		t.Logf("daemon: agent turn failed: phase=%v code=%v class=%v rule_id=%v decision=%v reason=%v",
			l["phase"], l["code"], l["class"], l["rule_id"], l["decision"], l["reason"])
	}
	for _, l := range d.LogLines("agent started") {
		t.Logf("daemon: agent started: pid=%v agent_session_id=%v resumed=%v", l["pid"], l["agent_session_id"], l["resumed"])
	}
	if s != nil {
		for i, m := range s.Snapshot().Messages {
			t.Logf("chat message %d: %s/%s %q %v", i, m.Role, m.Variant, truncate(m.Text, 200), m.Metadata)
		}
	}
	for i, q := range fake.requests() {
		t.Logf("provider request %d at %s: %s %s turn=%v prompt=%d → %s (%d); users=%d assistants=%d",
			i, q.At.Format("15:04:05.000"), q.Method, q.Path, q.Turn, q.Prompt, q.Outcome, q.Status, len(q.Users), len(q.Assistants))
	}
}
