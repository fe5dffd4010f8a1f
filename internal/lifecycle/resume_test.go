package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResumeReplaysHistory(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	state := t.TempDir()

	first, _ := startAgent(t, m, agentOpts{stateDir: state, taskID: "task-resume"})
	_, err := prompt(t, first, "first prompt\nsecond line")
	noErr(t, err)
	_, err = prompt(t, first, "/conn-closed retry me")
	mustFail(t, err)
	noErr(t, first.Close())

	// A retry is a new process resuming the agent session.
	second, rec := startAgent(t, m, agentOpts{stateDir: state, taskID: "task-resume", resume: first.AgentSessionID()})
	assert.True(t, second.Resumed())
	assert.Equal(t, first.AgentSessionID(), second.AgentSessionID())
	assert.Equal(t, []string{"first prompt\nsecond line", "/conn-closed retry me"}, second.ReplayedUserPrompts())
	assert.Empty(t, rec.take(), "replayed history must not reach OnEvent")

	// A continuation hits the same (now exhausted) failure counter.
	res, err := prompt(t, second, "continue")
	noErr(t, err)
	assert.Equal(t, "end_turn", res.StopReason)
	assert.Equal(t, "Recovered after 1 failures: Echo: continue", messageText(rec.take()))
}

// Gemini CLI answers session/load after its first replayed message and
// replays the rest after the answer: that history is still replay, never
// the next turn's reply, and its user prompts still count as held.
func TestReplayAfterTheLoadAnswerIsNotLiveOutput(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	state := t.TempDir()
	late := []string{envLateReplay, "1"}
	first, _ := startAgent(t, m, agentOpts{stateDir: state, env: late})
	for _, p := range []string{"first question", "second question"} {
		_, err := prompt(t, first, p)
		noErr(t, err)
	}
	noErr(t, first.Close())

	second, rec := startAgent(t, m, agentOpts{stateDir: state, resume: first.AgentSessionID(), env: late})
	assert.True(t, second.Resumed())
	assert.Equal(t, []string{"first question", "second question"}, second.ReplayedUserPrompts())
	_, err := prompt(t, second, "third question")
	noErr(t, err)
	assert.Equal(t, "Echo: third question", messageText(rec.take()), "the replayed answers are not part of the live reply")
}

func TestResumeWithoutLoadSessionStartsFresh(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	state := t.TempDir()
	first, _ := startAgent(t, m, agentOpts{stateDir: state})
	_, err := prompt(t, first, "hello")
	noErr(t, err)
	noErr(t, first.Close())

	second, _ := startAgent(t, m, agentOpts{stateDir: state, resume: first.AgentSessionID(), env: []string{envNoLoad, "1"}})
	assert.True(t, !second.Resumed())
	assert.True(t, first.AgentSessionID() != second.AgentSessionID())
	assert.Empty(t, second.ReplayedUserPrompts())
	assert.Equal(t, "the agent cannot load sessions", second.ResumeFailure(), "the caller learns the conversation is gone")
	assert.Empty(t, first.ResumeFailure(), "no resume was asked")
	_, err = prompt(t, second, "still works")
	noErr(t, err)
}

func TestResumeUnknownSessionFallsBackToNew(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{resume: "mock-doesnotexist"})
	assert.True(t, !e.Resumed())
	assert.True(t, "mock-doesnotexist" != e.AgentSessionID())
	assert.Contains(t, e.ResumeFailure(), "Resource not found")
	assert.True(t, e.CanResume(), "one unknown session says nothing about the agent")
	_, err := prompt(t, e, "hello")
	noErr(t, err)
}

// An agent that advertises session/load but fails it (Gemini CLI 0.61 in a
// new process) says why, and its profile counts as unable to resume from
// then on, so its live processes are kept rather than ended.
func TestBrokenLoadIsReportedAndRemembered(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	state := t.TempDir()
	broken := []string{envBrokenLoad, "1"}
	first, _ := startAgent(t, m, agentOpts{stateDir: state, env: broken})
	assert.True(t, first.CanResume(), "it advertises session/load")
	_, err := prompt(t, first, "hello")
	noErr(t, err)

	second, _ := startAgent(t, m, agentOpts{stateDir: state, resume: first.AgentSessionID(), env: broken})
	assert.True(t, !second.Resumed())
	assert.Equal(t, "Internal error: No previous sessions found for this project.", second.ResumeFailure())
	assert.True(t, !second.CanResume())
	assert.True(t, !first.CanResume(), "the profile is known not to resume")
}

func TestFailureCountersSurviveRestarts(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	state := t.TempDir()
	for attempt := 1; attempt <= 3; attempt++ {
		e, rec := startAgent(t, m, agentOpts{stateDir: state, taskID: "task-counter"})
		_, err := prompt(t, e, "/overloaded:2 do the thing")
		if attempt <= 2 {
			ev := mustFail(t, err).Evidence
			assert.Contains(t, ev.RPCMessage, "overloaded_error", "attempt %d", attempt)
		} else {
			noErr(t, err)
			assert.Equal(t, "Recovered after 2 failures: Echo: /overloaded:2 do the thing", messageText(rec.take()))
		}
		noErr(t, e.Close())
	}
	// Another task has its own counter.
	e, _ := startAgent(t, m, agentOpts{stateDir: state, taskID: "task-other"})
	_, err := prompt(t, e, "/overloaded:2")
	mustFail(t, err)
}
