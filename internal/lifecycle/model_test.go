package lifecycle

import (
	"encoding/json"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What real agents answer to session/new (captured with
// ../shared/realagents/capture.sh): Gemini CLI 0.61 sends the unstable
// models state, naming a current model that is not among its available
// ones; codex-acp 0.16 sends a config option of category "model".
const (
	geminiNewSession = `{"sessionId":"bc24","modes":{"availableModes":[{"id":"default","name":"Default"}],"currentModeId":"default"},
		"models":{"availableModels":[{"modelId":"auto","name":"Auto","description":"Let Gemini CLI decide"},
		{"modelId":"gemini-2.5-pro","name":"gemini-2.5-pro"}],"currentModelId":"gemini-2.5-flash"}}`
	codexNewSession = `{"sessionId":"019a","configOptions":[{"id":"model","name":"Model","category":"model","type":"select","currentValue":"gpt-5.4",
		"options":[{"value":"gpt-5.5","name":"GPT-5.5"},{"value":"gpt-5.4","name":"gpt-5.4"}]},
		{"id":"reasoning_effort","name":"Reasoning Effort","category":"thought_level","type":"select","currentValue":"medium",
		"options":[{"value":"medium","name":"Medium"}]}]}`
	// opencode 1.18 sends the option; Qwen Code 0.24 both, with ids that
	// only its names make readable.
	opencodeNewSession = `{"sessionId":"ses_dcb7","configOptions":[{"id":"model","name":"Model","category":"model","type":"select",
		"currentValue":"fake/fake-model","options":[{"value":"fake/fake-model","name":"Fake (loopback)/Fake model"}]},
		{"id":"mode","name":"Session Mode","category":"mode","type":"select","currentValue":"build","options":[{"value":"build","name":"build"}]}]}`
	qwenNewSession = `{"sessionId":"2b8f","models":{"currentModelId":"$runtime|openai|fake-model(openai)","availableModels":[
		{"modelId":"$runtime|openai|fake-model(openai)","name":"fake-model","description":null,"_meta":{"contextLimit":200000}}]},
		"configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"auto","options":[{"value":"auto","name":"Auto"}]},
		{"id":"model","name":"Model","description":"AI model to use","category":"model","type":"select","currentValue":"$runtime|openai|fake-model(openai)",
		"options":[{"value":"$runtime|openai|fake-model(openai)","name":"fake-model","description":""}]}]}`
	noModelNewSession = `{"sessionId":"ses_1"}`
)

func TestReportedModelOfRealAgents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, wire string
		want       Model
	}{
		{"gemini models state", geminiNewSession, Model{ID: "gemini-2.5-flash"}},
		{"codex config option", codexNewSession, Model{ID: "gpt-5.4"}},
		{"opencode config option", opencodeNewSession, Model{ID: "fake/fake-model", Name: "Fake (loopback)/Fake model"}},
		{"qwen both", qwenNewSession, Model{ID: "$runtime|openai|fake-model(openai)", Name: "fake-model"}},
		{"no model reported", noModelNewSession, Model{}},
		{"grouped option with a name", `{"sessionId":"x","configOptions":[{"id":"m","name":"Model","category":"model","type":"select","currentValue":"o3",
			"options":[{"group":"openai","name":"OpenAI","options":[{"value":"o3","name":"OpenAI o3"}]}]}]}`, Model{ID: "o3", Name: "OpenAI o3"}},
		{"the option wins over the state", `{"sessionId":"x","configOptions":[{"id":"model","name":"Model","type":"select","currentValue":"a","options":[]}],
			"models":{"availableModels":[],"currentModelId":"b"}}`, Model{ID: "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp acp.NewSessionResponse
			require.NoError(t, json.Unmarshal([]byte(tc.wire), &resp))
			assert.Equal(t, tc.want, reportedModel(resp.ConfigOptions, resp.Models))
		})
	}
}

// The mock reports its model the ways real agents do; the execution knows
// it from the start, asks for the profile's model, and keeps it across a
// session/load.
func TestModelCapturedAndChosen(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", "models", "options", "none"} {
		t.Run("models="+mode, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t)
			state := t.TempDir()
			env := []string{envModels, mode}
			plain, _ := startAgent(t, m, agentOpts{stateDir: state, env: env})
			chosen, _ := startAgent(t, m, agentOpts{stateDir: state, env: env, model: "mock-smart"})
			if mode == "none" {
				assert.Equal(t, Model{}, plain.Model(), "an agent that reports no model has none here")
				assert.Equal(t, Model{}, chosen.Model(), "the profile's model is not invented as the agent's")
				return
			}
			assert.Equal(t, Model{ID: "mock-fast", Name: "Mock Fast"}, plain.Model())
			assert.Equal(t, Model{ID: "mock-smart", Name: "Mock Smart"}, chosen.Model())

			_, err := prompt(t, chosen, "hello")
			noErr(t, err)
			noErr(t, chosen.Close())
			resumed, _ := startAgent(t, m, agentOpts{stateDir: state, env: env, resume: chosen.AgentSessionID()})
			require.True(t, resumed.Resumed())
			assert.Equal(t, "mock-smart", resumed.Model().ID, "session/load reports the session's model")
		})
	}
}

func TestModelTheAgentRefusesIsNotShown(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, _ := startAgent(t, m, agentOpts{model: "gpt-9"})
	assert.Equal(t, "mock-fast", e.Model().ID, "the agent kept its own model: that is what runs")
}

// A model the agent announces later (config_option_update) reaches OnEvent
// as EventModel and Model() follows it; it is not output.
func TestModelChangeIsAnEvent(t *testing.T) {
	t.Parallel()
	m := newTestManager(t)
	e, rec := startAgent(t, m, agentOpts{})
	res, err := prompt(t, e, "/model@mock-smart think harder")
	noErr(t, err)
	assert.Equal(t, "end_turn", res.StopReason)
	var models []Model
	for _, ev := range rec.take() {
		if ev.Kind == EventModel {
			require.NotNil(t, ev.Model)
			models = append(models, *ev.Model)
		}
	}
	assert.Equal(t, []Model{{ID: "mock-smart", Name: "Mock Smart"}}, models)
	assert.Equal(t, "mock-smart", e.Model().ID)
}
