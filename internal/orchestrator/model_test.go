package orchestrator

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
)

// withModelProfiles adds profiles of the mock that name a model, or whose
// agent reports none.
func withModelProfiles(cfg *Config) {
	base := cfg.Profiles["mock"]
	quiet := base
	quiet.Env = maps.Clone(base.Env)
	quiet.Env["MOCK_MODELS"] = "none"
	smart, claimed, silent := base, quiet, quiet
	smart.Name, smart.Model = "mock-smart", "mock-smart"
	claimed.Name, claimed.Model = "mock-claimed", "claimed-model"
	silent.Name = "mock-silent"
	for _, p := range []lifecycle.Profile{smart, claimed, silent} {
		cfg.Profiles[p.Name] = p
	}
}

func (h *harness) runToReview(agent, prompt string) TaskView {
	h.t.Helper()
	v, err := h.svc.CreateTask(h.ctx, CreateTaskRequest{Prompt: prompt, Agent: agent})
	require.NoError(h.t, err)
	h.follow(v.Sessions[0].ID, 0).until(isTurnDone)
	got, err := h.svc.GetTask(h.ctx, v.ID)
	require.NoError(h.t, err)
	return got
}

// The task shows the model its agent reported, the one its profile chose,
// or — when the agent reports none — the profile's, else nothing; and it
// is still there after a restart.
func TestTaskShowsTheAgentsModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withModelProfiles)

	plain := h.runToReview("mock", "hello")
	require.Equal(t, "Mock Fast", plain.Model, "the model the mock reports, by its name")
	require.Equal(t, "Mock Fast", plain.Sessions[0].Model)
	require.Equal(t, "Mock Smart", h.runToReview("mock-smart", "hello").Model, "the profile's model, chosen over ACP")
	require.Equal(t, "claimed-model", h.runToReview("mock-claimed", "hello").Model, "no report: the profile's model")
	require.Empty(t, h.runToReview("mock-silent", "hello").Model, "neither: nothing rather than a guess")

	page, err := h.svc.ListTasks(h.ctx, ListTasksRequest{})
	require.NoError(t, err)
	byID := map[string]string{}
	for _, v := range page.Tasks {
		byID[v.ID] = v.Model
	}
	require.Equal(t, "Mock Fast", byID[plain.ID])

	h.stop()
	h.start(withModelProfiles)
	again, err := h.svc.GetTask(h.ctx, plain.ID)
	require.NoError(t, err)
	require.Equal(t, "Mock Fast", again.Model, "persisted with the session")
}

// A model the agent announces mid-session reaches task.updated.
func TestModelChangeIsPublished(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tasks := h.svc.SubscribeTasks(1000)
	t.Cleanup(tasks.Close)
	v := h.runToReview("mock", "hello")
	require.Equal(t, "Mock Fast", v.Model)
	err := h.svc.Prompt(h.ctx, PromptRequest{SessionID: v.Sessions[0].ID, Text: "/model@mock-smart think harder"})
	require.NoError(t, err)
	deadline := time.After(waitLong)
	for {
		select {
		case n := <-tasks.C():
			var p struct{ Task TaskView }
			require.NoError(t, json.Unmarshal(n.Payload, &p))
			if p.Task.ID == v.ID && p.Task.Model == "Mock Smart" {
				got, err := h.svc.GetTask(h.ctx, v.ID)
				require.NoError(t, err)
				require.Equal(t, "Mock Smart", got.Model)
				return
			}
		case <-deadline:
			t.Fatal("no task.updated with the new model")
		}
	}
}
