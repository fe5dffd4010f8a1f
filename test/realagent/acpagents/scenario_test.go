package acpagents

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// The test's two prompts and the model's answers; no prompt contains
// another, and no answer contains a prompt.
var (
	prompts = []string{"Name the capital of France, please.", "And which river runs through that city?"}
	replies = []string{"The capital of France is Paris (first answer).", "The Seine runs through Paris (second answer)."}
)

// scenario is one row of the matrix: the provider fails the turns of prompt
// failAt (0: the first turn; 1: the second, after a first turn that went
// well) with fails, in order, then answers.
type scenario struct {
	name   string
	failAt int
	fails  []failure
}

func (sc scenario) String() string { return sc.name }

// scenarios are what every agent is tested with: each of its failures once
// on the first turn, and a 500 and a dropped stream on the second turn.
func (a agent) scenarios() []scenario {
	var out []scenario
	for _, f := range a.failures {
		out = append(out, scenario{name: string(f), failAt: 0, fails: []failure{f}})
	}
	for _, f := range []failure{serverError, dropped} {
		out = append(out, scenario{name: "second_turn_" + string(f), failAt: 1, fails: []failure{f}})
	}
	if a.exhaust > 0 {
		// More failures in a row than the agent's own silent retries absorb.
		out = append(out, scenario{name: fmt.Sprintf("%s_x%d", a.exhaustWith, a.exhaust), failAt: 0, fails: repeat(a.exhaustWith, a.exhaust)})
	}
	return out
}

func repeat(f failure, n int) []failure {
	out := make([]failure, n)
	for i := range out {
		out[i] = f
	}
	return out
}

func TestGeminiRecovers(t *testing.T)   { runAgent(t, gemini) }
func TestCodexRecovers(t *testing.T)    { runAgent(t, codex) }
func TestOpencodeRecovers(t *testing.T) { runAgent(t, opencode) }
func TestQwenRecovers(t *testing.T)     { runAgent(t, qwen) }

// runAgent runs an agent's scenarios, in parallel with each other (bounded
// by -parallel) but not with another agent's.
func runAgent(t *testing.T, a agent) {
	exe := a.exe(t)
	for _, sc := range a.scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, a, exe, sc)
		})
	}
}

// turnLog is what the chat showed during one turn, up to its end.
type turnLog struct {
	notices []string          // ids of the retry notices, first seen order
	texts   map[string]string // message id → last text of a notice or other status message
	others  []string          // ids of status messages that are neither notice nor banner (e.g. a silence notice)
	banner  *daemontest.Message
	replays int           // retries the daemon started (turn.started with replay)
	delay   time.Duration // the first notice's retry_at after its updated_at
	end     daemontest.Event
	endStop string
}

func (l *turnLog) see(e daemontest.Event) {
	b := e.Body()
	switch {
	case e.Action == "session.turn.started" && b.Replay:
		l.replays++
	case daemontest.IsBanner(e):
		l.banner = b.Message
	case b.Message != nil && b.Message.Role == "status":
		m := b.Message
		if _, ok := l.texts[m.ID]; !ok {
			if m.Metadata["kind"] == "retry_notice" {
				l.notices = append(l.notices, m.ID)
				if at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m.Metadata["retry_at"])); err == nil {
					l.delay = at.Sub(m.UpdatedAt)
				}
			} else if m.Metadata["kind"] != "recovery" {
				l.others = append(l.others, m.ID)
			}
		}
		l.texts[m.ID] = m.Text
	}
}

// follow reads the session's events until the turn ends (end_turn or any
// other final stop) or the recovery banner shows, each within wait.
func follow(t *testing.T, s *daemontest.Session, wait time.Duration, l *turnLog) {
	t.Helper()
	for {
		e := s.Next(wait)
		l.see(e)
		if l.banner != nil {
			return
		}
		if daemontest.TurnEnded(e) {
			l.end, l.endStop = e, e.Body().StopReason
			if l.endStop != "end_turn" {
				l.banner = bannerAfter(s)
			}
			return
		}
	}
}

// bannerAfter finds the recovery banner a failed turn leaves: it is added
// after the turn's end event, so it is looked for in the session's messages.
func bannerAfter(s *daemontest.Session) *daemontest.Message {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, m := range s.Snapshot().Messages {
			if m.Metadata["kind"] == "recovery" {
				return &m
			}
		}
	}
	return nil
}

func runScenario(t *testing.T, a agent, exe string, sc scenario) {
	ps := prompts[:sc.failAt+1]
	fake := a.newFake(t, ps, replies, map[int][]failure{sc.failAt: sc.fails})
	d := startDaemon(t, a, a.profile(t, exe, agentHome(t), fake.URL()))
	c := daemontest.Dial(t, d)

	row := &row{Agent: a.name, Failure: sc.name}
	var (
		logs []*turnLog
		sess *daemontest.Session
	)
	started := time.Now()
	t.Cleanup(func() { // also after a Fatal: the matrix shows what happened until then
		row.Wall = time.Since(started)
		row.fill(t, sc, logs, fake, d, sess)
		addRow(row)
		t.Logf("matrix: %s", row)
		reportEvidence(t, d, fake, sess)
	})

	s := daemontest.CreateTask(t, c, map[string]any{"prompt": ps[0], "agent": a.name})
	sess = s
	for i, p := range ps {
		if i > 0 {
			c.Call("session.prompt", map[string]any{"session_id": s.ID, "text": p})
		}
		l := &turnLog{texts: map[string]string{}}
		logs = append(logs, l)
		follow(t, s, a.wait, l)
		if l.banner != nil || l.endStop != "end_turn" {
			break
		}
	}
	last := logs[len(logs)-1]
	failed := last
	if len(logs) > sc.failAt {
		failed = logs[sc.failAt]
	}

	// What the user sees: the turn ends well, with no banner.
	if last.banner != nil {
		m := last.banner
		t.Fatalf("the recovery banner instead of a recovery: %q\n  reason=%v failure_code=%v class=%v rule_id=%v excerpt=%q",
			m.Text, m.Metadata["reason"], m.Metadata["failure_code"], m.Metadata["class"], m.Metadata["rule_id"], m.Metadata["excerpt"])
	}
	require.Equal(t, "end_turn", last.endStop, "the turn ends normally")
	require.Len(t, logs, len(ps), "every prompt was answered")

	// One notice for the failed turn: the daemon's retry, or none at all
	// when the agent's own silent retry absorbed the failure first.
	if failed.replays > 0 || !a.silentRetries {
		assert.Len(t, failed.notices, 1, "one retry notice for the failed turn, updated in place")
		assert.GreaterOrEqual(t, failed.replays, 1, "the daemon retried the failed turn (%s has no retries of its own here)", a.name)
	} else {
		assert.Empty(t, failed.notices, "no notice when the agent recovered by itself")
	}
	for i, l := range logs {
		if i != sc.failAt {
			assert.Empty(t, l.notices, "no notice on turn %d, which did not fail", i+1)
		}
	}

	// What the model saw: each prompt once in the last request, and on a
	// later turn, the first turn's prompt and answer in its history.
	turns := fake.turns()
	require.NotEmpty(t, turns)
	final := turns[len(turns)-1]
	for _, p := range ps {
		assert.Equal(t, 1, copies(final.Users, p), "the model sees %q once in the last request, not a duplicate user turn", p)
	}
	if sc.failAt > 0 {
		// In the agent's own history, or in a transcript the daemon re-sent
		// to an agent that could not reopen its session.
		switch {
		case copies(final.Assistants, replies[0]) > 0:
			row.FirstTurn = "in the agent's history"
		case copies(final.Users, replies[0]) > 0:
			row.FirstTurn = "re-sent by the daemon as a transcript"
		default:
			row.FirstTurn = "LOST"
		}
		assert.NotEqual(t, "LOST", row.FirstTurn, "the agent still knows the first turn: its answer is in the last request")
	}

	// A 429's hint is a lower bound on the retry where the agent passed it on.
	if sc.fails[0] == rateLimited && len(failed.notices) > 0 {
		hinted := false
		for _, x := range executions(t, d, s.ID) {
			hinted = hinted || hintRe.MatchString(x.RawEvidence)
		}
		if hinted {
			assert.GreaterOrEqual(t, failed.delay, hintSeconds*time.Second-slack, "the retry waits for the provider's hint (%ds)", hintSeconds)
		} else {
			row.Partial = "the agent's error dropped the provider's retry hint"
		}
	}

	// What the chat shows: each prompt once, each answer once, the partial
	// text of a failed attempt the daemon retried (if kept) marked as
	// interrupted.
	expectChat(t, s, ps, row, failed.replays > 0)
}

// hintRe finds the 429's hint in a failed execution's evidence.
var hintRe = regexp.MustCompile(fmt.Sprintf(`(retry|try again) in %ds|retryDelay|retry_after`, hintSeconds))

// slack: the notice's updated_at is stamped after the instant the daemon
// computed retry_at from, so the measured delay may fall short by that much.
const slack = 250 * time.Millisecond

// copies counts how often text occurs in texts.
func copies(texts []string, text string) int {
	n := 0
	for _, s := range texts {
		n += strings.Count(s, text)
	}
	return n
}

// expectChat checks the session's messages after recovery.
func expectChat(t *testing.T, s *daemontest.Session, ps []string, row *row, daemonRetried bool) {
	t.Helper()
	users := 0
	answers := make([]int, len(ps))
	for _, m := range s.Snapshot().Messages {
		switch m.Role {
		case "user":
			if users < len(ps) {
				assert.Equal(t, ps[users], m.Text, "user message %d", users+1)
			}
			users++
		case "agent":
			for i := range ps {
				answers[i] += strings.Count(m.Text, replies[i])
			}
			if strings.Contains(m.Text, partialMarker) {
				row.Partial = fmt.Sprintf("partial text kept: %q %v", truncate(m.Text, 80), m.Metadata)
				if daemonRetried {
					assert.True(t, isInterrupted(m), "the partial text of a failed attempt is marked as interrupted: %q %v", m.Text, m.Metadata)
				} else {
					// The agent's own silent retry streamed both attempts into one
					// reply; the daemon never saw a failure to mark.
					row.Partial = "the agent's own retry glued the partial text to its reply: " + fmt.Sprintf("%q", truncate(m.Text, 80))
				}
			}
		case "status":
			if k := m.Metadata["kind"]; k == "retry_notice" || k == "recovery" {
				assert.Failf(t, "a retry notice or banner is left after recovery", "%q %v", m.Text, m.Metadata)
			}
		}
	}
	assert.Equal(t, len(ps), users, "one user message per prompt")
	for i, n := range answers {
		assert.Equal(t, 1, n, "the answer to prompt %d, once", i+1)
	}
}

// isInterrupted: the daemon marked an agent message as a failed attempt's.
func isInterrupted(m daemontest.Message) bool {
	for _, k := range []string{"interrupted", "failed_attempt"} {
		if v, ok := m.Metadata[k]; ok && v != false {
			return true
		}
	}
	return m.Variant == "interrupted"
}
