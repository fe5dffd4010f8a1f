package lifecycle

import (
	"context"
	"errors"
	"github.com/stretchr/testify/assert"
	"sync"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

func TestCrashYieldsEvidence(t *testing.T) {
	t.Parallel()
	for name, env := range map[string][]string{
		"plain": nil,
		// The grandchild keeps stdout open: no EOF, the exit must still be noticed.
		"grandchild holds pipes": {envGrandchild, "1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t)
			e, _ := startAgent(t, m, agentOpts{env: env})
			begin := time.Now()
			_, err := prompt(t, e, "/crash")
			assert.True(t, time.Since(begin) < 12*time.Second, "took %v (bounded, not hung)", time.Since(begin))
			ev := mustFail(t, err).Evidence
			assert.Equal(t, "exit status 1", ev.ExitStatus)
			assert.True(t, !ev.HasRPCError)
			assert.True(t, len(ev.Err) > 0)
			assert.Equal(t, routingerr.PhaseStreaming, ev.Phase)
			assert.True(t, ev.HadOutput)
			assert.True(t, !ev.Cancelled)

			// The next prompt fails at once, before anything streams.
			_, err = prompt(t, e, "anyone there?")
			ev = mustFail(t, err).Evidence
			assert.Equal(t, routingerr.PhasePromptSend, ev.Phase)
			assert.Equal(t, "exit status 1", ev.ExitStatus)

			pgid := e.PID()
			noErr(t, e.Close())
			requireGroupGone(t, pgid)
		})
	}
}

func TestCloseLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	for name, env := range map[string][]string{
		"grandchild ignores SIGTERM": {envGrandchild, "1"},
		"agent ignores SIGTERM":      {envGrandchild, "1", envIgnoreTerm, "1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t)
			e, _ := startAgent(t, m, agentOpts{env: env})
			pgid := e.PID()
			assert.True(t, len(groupMembers(t, pgid)) >= 2, "agent and grandchild share the group")
			noErr(t, e.Close())
			noErr(t, e.Close()) // "idempotent"
			requireGroupGone(t, pgid)
			_, err := prompt(t, e, "after close")
			assert.True(t, errors.Is(err, ErrClosed), "%v", err)
		})
	}
}

func TestCloseDuringTurn(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	started := make(chan struct{})
	var once sync.Once
	e, _ := startAgent(t, m, agentOpts{onEvent: func(Event) { once.Do(func() { close(started) }) }})
	var wg sync.WaitGroup
	var err error
	wg.Go(func() { _, err = prompt(t, e, "/slow:20000") })
	<-started
	noErr(t, e.Close())
	wg.Wait()
	// Either the agent answered the session/cancel in time or the pipe went away.
	if err != nil {
		assert.True(t, mustFail(t, err).Evidence.Cancelled, "a daemon-ended turn is not a provider failure")
	}
}

func TestManagerCloseWithLiveExecutions(t *testing.T) {
	t.Parallel()
	m, err := NewManager(Config{KillGrace: time.Second})
	noErr(t, err)
	var execs []*Execution
	for range 3 {
		e, _, err := tryStart(t, m, agentOpts{env: []string{envGrandchild, "1"}})
		noErr(t, err)
		execs = append(execs, e)
	}
	started := make(chan struct{})
	var once sync.Once
	slowExec, _ := startAgent(t, m, agentOpts{onEvent: func(Event) { once.Do(func() { close(started) }) }})
	var wg sync.WaitGroup
	var promptErr error
	wg.Go(func() { _, promptErr = slowExec.Prompt(context.Background(), "/slow:20000") })
	<-started

	begin := time.Now()
	noErr(t, m.Close())
	wg.Wait()
	assert.True(t, time.Since(begin) < 12*time.Second, "took %v (bounded, not hung)", time.Since(begin))
	if promptErr != nil {
		assert.True(t, mustFail(t, promptErr).Evidence.Cancelled)
	}
	for _, e := range append(execs, slowExec) {
		requireGroupGone(t, e.PID())
	}
	noErr(t, m.Close()) // "idempotent"
	_, _, err = tryStart(t, m, agentOpts{})
	assert.True(t, errors.Is(err, ErrClosed), "%v", err)
}
