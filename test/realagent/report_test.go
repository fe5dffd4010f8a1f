package realagent

import (
	"strings"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// report logs what the real agent produced and how the daemon judged it:
// the sanitised evidence of every failed execution, and every request the
// fake provider received. Shown with -v, and always when a test fails.
func report(t *testing.T, d *daemontest.Daemon, s *daemontest.Session, p *provider) {
	t.Helper()
	reportExecutions(t, d, s)
	reportDaemon(t, d)
	reportProvider(t, p)
}

// reportExecutions logs the sanitised evidence of a session's failed runs.
func reportExecutions(t *testing.T, d *daemontest.Daemon, s *daemontest.Session) {
	t.Helper()
	for _, x := range executions(t, d, s.ID) {
		c := x.Classification
		t.Logf("failed execution (attempt %d): code=%v class=%v rule_id=%v confidence=%v retry_after_ms=%v resume_safe=%v\n  evidence: %s",
			x.Attempt, c["code"], c["class"], c["rule_id"], c["confidence"], c["retry_after_ms"], c["resume_safe"], x.RawEvidence)
	}
}

// reportDaemon logs the daemon's failed turns and agent starts.
func reportDaemon(t *testing.T, d *daemontest.Daemon) {
	t.Helper()
	for _, l := range d.LogLines("agent turn failed") {
		t.Logf("daemon: agent turn failed: phase=%v code=%v class=%v rule_id=%v decision=%v reason=%v retry=%v",
			l["phase"], l["code"], l["class"], l["rule_id"], l["decision"], l["reason"], l["retry"])
	}
	for _, l := range d.LogLines("agent started") {
		t.Logf("daemon: agent started: pid=%v agent_session_id=%v resumed=%v", l["pid"], l["agent_session_id"], l["resumed"])
	}
}

// reportProvider logs every request the fake provider received.
func reportProvider(t *testing.T, p *provider) {
	t.Helper()
	var prev time.Time
	for i, r := range p.requests() {
		gap := ""
		if r.Turn && !prev.IsZero() {
			gap = " (" + r.At.Sub(prev).Round(time.Millisecond).String() + " after the previous answer)"
		}
		if r.Turn {
			prev = r.Answered
		}
		t.Logf("provider request %d at %s: %s %s → %d%s; roles=%v; last user text=%q",
			i, r.At.Format("15:04:05.000"), r.Method, r.Path, r.Status, gap, r.Roles, lastUser(r))
	}
}

func lastUser(r providerRequest) string {
	if len(r.Users) == 0 {
		return ""
	}
	return truncate(r.Users[len(r.Users)-1], 200)
}

// promptCopies counts how often text reaches the model in one request.
func promptCopies(r providerRequest, text string) int {
	n := 0
	for _, u := range r.Users {
		n += strings.Count(u, text)
	}
	return n
}
