package lifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// An agent that writes its stderr only as it exits (Gemini CLI) still gets
// its last words into the evidence when the caller ends it and settles
// until exit; the evidence Prompt returns is taken at once, without them.
func TestSettleUntilExitCollectsStderrWrittenAtExit(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{env: []string{envLogAtExit, "1"}})
	_, err := prompt(t, e, "/overloaded")
	fe := mustFail(t, err)
	assert.NotContains(t, fe.Evidence.StderrTail, "scenario failing", "nothing is written before exit")

	live := fe.Settle(time.Second, false)
	assert.NotContains(t, live.StderrTail, "scenario failing", "a live agent that holds its stderr adds nothing")

	closed := make(chan struct{})
	go func() { _ = e.Close(); close(closed) }()
	start := time.Now()
	ev := fe.Settle(10*time.Second, true)
	waited := time.Since(start)
	<-closed
	assert.Contains(t, ev.StderrTail, "scenario failing", "the words written at exit are evidence")
	assert.Less(t, waited, 5*time.Second, "settling ends with the agent's stderr, not at the bound")
}

// Without a caller ending it, settling a live, silent agent returns after
// the quiet period, not at the bound.
func TestSettleLiveReturnsWhenQuiet(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{})
	_, err := prompt(t, e, "/overloaded")
	fe := mustFail(t, err)
	start := time.Now()
	ev := fe.Settle(30*time.Second, false)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Contains(t, ev.StderrTail, "scenario failing")
	assert.Empty(t, ev.ExitStatus, "the agent still runs")
}
