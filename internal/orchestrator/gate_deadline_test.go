package orchestrator

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Each task's wait on the gate ends at its own deadline: a task with a
// shorter one gets its banner first while the others still wait, a task
// on the daemon's default next, and one with a longer deadline keeps
// waiting past the daemon's.
func TestTaskGateDeadlineEndsOnlyItsOwnWait(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Overload.Deadline = 2 * time.Minute
		// No probe before the last deadline: only deadlines end these waits.
		c.Overload.FirstProbe = 24 * time.Hour
		c.Overload.Backoff = []time.Duration{24 * time.Hour}
	})
	h.setWall(true)
	t0 := h.clock.Now()
	own := []time.Duration{time.Minute, 0, 10 * time.Minute} // 0: the daemon's 2 minutes
	var sids []string
	var fs []*feed
	for i, d := range own {
		v, f := h.createWith(CreateTaskRequest{Prompt: fmt.Sprintf("/wall job %d", i), Agent: "mock", GateDeadline: d})
		assert.Equal(t, d, v.GateDeadline)
		assert.Equal(t, d.Seconds(), v.GateDeadlineSeconds)
		f.until(isNotice)
		f.until(isState(store.SessionWaitingForInput))
		sids, fs = append(sids, v.Sessions[0].ID), append(fs, f)
	}
	// The first two wait on their own 5s timers, then join the gate the
	// third opened; the deadlines count from each chain's first failure.
	h.advanceTo(t0.Add(5 * time.Second))
	g, ok := h.gateInfo("mock")
	require.True(t, ok)
	require.Equal(t, 3, g.Waiting)
	for i, want := range []time.Duration{time.Minute, 2 * time.Minute, 10 * time.Minute} {
		row, ok := h.pending(sids[i])
		require.True(t, ok)
		assert.Equal(t, t0.Add(want).UTC().Format(time.RFC3339Nano), row.Extra[extraGateDeadline], "task %d", i)
	}

	for _, step := range []struct {
		at      time.Duration
		ends    int
		text    string
		waiting int
	}{
		{time.Minute, 0, "The provider stayed overloaded for 1 minute.", 2},
		{2 * time.Minute, 1, "The provider stayed overloaded for 2 minutes.", 1},
		{10 * time.Minute, 2, "The provider stayed overloaded for 10 minutes.", 0},
	} {
		h.advanceTo(t0.Add(step.at - time.Nanosecond))
		_, ok := h.pending(sids[step.ends])
		require.True(t, ok, "task %d still waits just before its deadline", step.ends)
		h.advanceTo(t0.Add(step.at))
		b := fs[step.ends].until(isBanner)
		assert.Equal(t, step.text, b.Message.Text)
		assert.Equal(t, kindGateDeadline, b.Message.Metadata["reason"])
		fs[step.ends].until(isState(store.SessionFailed))
		_, ok = h.pending(sids[step.ends])
		assert.False(t, ok, "task %d stopped waiting", step.ends)
		for _, later := range sids[step.ends+1:] {
			_, ok := h.pending(later)
			assert.True(t, ok, "a task with a later deadline still waits at %s", step.at)
		}
		if g, ok := h.gateInfo("mock"); ok {
			assert.Equal(t, step.waiting, g.Waiting)
		}
	}
	assert.Equal(t, 3, h.providerRequests(), "nothing was retried while waiting")
}

// A manual Resume through an open gate starts a new chain with the task's
// own deadline, not the daemon's.
func TestResumeThroughTheGateUsesTheTaskDeadline(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Overload.FirstProbe = 24 * time.Hour
		c.Overload.Backoff = []time.Duration{24 * time.Hour}
	})
	h.setWall(true)
	t0 := h.clock.Now()
	var vs []TaskView
	var fs []*feed
	for i, d := range []time.Duration{0, 0, 0, 3 * time.Hour} {
		v, f := h.createWith(CreateTaskRequest{Prompt: fmt.Sprintf("/wall job %d", i), Agent: "mock", GateDeadline: d})
		f.until(isNotice)
		f.until(isState(store.SessionWaitingForInput))
		vs, fs = append(vs, v), append(fs, f)
	}
	h.advanceTo(t0.Add(5 * time.Second)) // everyone waits on the gate now
	v, f := vs[3], fs[3]
	sid := v.Sessions[0].ID
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverCancelRetry}))
	f.until(isBanner)
	h.advanceTo(t0.Add(time.Minute))
	resumed := h.clock.Now()
	require.NoError(t, h.svc.Recover(h.ctx, RecoverRequest{TaskID: v.ID, SessionID: sid, Action: RecoverResume}))
	n := f.until(isNotice)
	assert.Contains(t, n.Message.Text, "waiting for it to recover")
	assert.Equal(t, resumed.Add(3*time.Hour).UTC().Format(time.RFC3339Nano), n.Message.Metadata["deadline"])
}

func TestCreateTaskValidatesGateDeadline(t *testing.T) {
	h := newHarness(t)
	for _, d := range []time.Duration{-time.Second, MaxGateDeadline + time.Second} {
		_, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: "x", GateDeadline: d})
		errIs(t, err, ErrValidation)
		assert.Contains(t, err.Error(), "gate deadline")
	}
	page, err := h.svc.ListTasks(h.ctx, ListTasksRequest{})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks, "a refused task is not created")

	v, f := h.createWith(CreateTaskRequest{Prompt: "hello", Agent: "mock", GateDeadline: MaxGateDeadline})
	f.until(isTurnDone)
	got, err := h.svc.GetTask(h.ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, MaxGateDeadline, got.GateDeadline)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"gate_deadline_seconds":604800`)

	d, _ := h.createWith(CreateTaskRequest{Prompt: "hi", Agent: "mock"})
	b, err = json.Marshal(d)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "gate_deadline", "the daemon's default is not repeated in every task")
}

func (h *harness) createWith(req CreateTaskRequest) (TaskView, *feed) {
	h.t.Helper()
	v, err := h.svc.CreateTask(h.ctx, req)
	require.NoError(h.t, err)
	return v, h.follow(v.Sessions[0].ID, 0)
}
