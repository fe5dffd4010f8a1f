package mockagent

import (
	"context"
	"slices"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// The mock's models: it reports the session's model the two ways real
// agents do (Config.Models), takes a choice of model through
// session/set_config_option and session/set_model, and "/model@ID …"
// switches model mid-session with a config_option_update, then echoes.

// Config.Models values.
const (
	ModelsBoth    = ""        // a config option of category "model" and the unstable models state
	ModelsState   = "models"  // only the models state (as Gemini CLI 0.61)
	ModelsOptions = "options" // only the config option (as codex-acp 0.16)
	ModelsNone    = "none"    // no model at all (an agent without model reporting)
)

// DefaultModel is the model of a new mock session, unless Config.Model
// names the one the mock stands for.
const DefaultModel = "mock-fast"

// scModel switches the session's model: "/model@mock-smart hi".
const scModel = "model"

var mockModels = []acp.ModelInfo{
	{ModelId: DefaultModel, Name: "Mock Fast"},
	{ModelId: "mock-smart", Name: "Mock Smart"},
}

// modelConfigID is the id of the mock's model config option.
const modelConfigID = "model"

// defaultModel is a new session's model: the one the mock stands for, if any.
func (a *agent) defaultModel() string {
	if a.cfg.Model != "" {
		return a.cfg.Model
	}
	return DefaultModel
}

// models are the mock's models, and the one it stands for.
func (a *agent) models() []acp.ModelInfo {
	out := append([]acp.ModelInfo(nil), mockModels...)
	if a.cfg.Model != "" && !slices.ContainsFunc(out, func(m acp.ModelInfo) bool { return string(m.ModelId) == a.cfg.Model }) {
		out = append(out, acp.ModelInfo{ModelId: acp.ModelId(a.cfg.Model), Name: a.cfg.Model})
	}
	return out
}

func (a *agent) knownModel(id string) bool {
	return slices.ContainsFunc(a.models(), func(m acp.ModelInfo) bool { return string(m.ModelId) == id })
}

func (a *agent) modelOf(f sessionFile) string {
	if f.Model == "" {
		return a.defaultModel()
	}
	return f.Model
}

// modelReport is what a session answer carries about model id.
func (a *agent) modelReport(id string) ([]acp.SessionConfigOption, *acp.SessionModelState) {
	var opts []acp.SessionConfigOption
	var state *acp.SessionModelState
	if a.cfg.Models == ModelsBoth || a.cfg.Models == ModelsOptions {
		opts = a.modelOptions(id)
	}
	if a.cfg.Models == ModelsBoth || a.cfg.Models == ModelsState {
		state = &acp.SessionModelState{AvailableModels: a.models(), CurrentModelId: acp.ModelId(id)}
	}
	return opts, state
}

func (a *agent) modelOptions(id string) []acp.SessionConfigOption {
	models := a.models()
	values := make(acp.SessionConfigSelectOptionsUngrouped, 0, len(models))
	for _, m := range models {
		values = append(values, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.ModelId), Name: m.Name})
	}
	cat := acp.SessionConfigOptionCategoryModel
	return []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{
		Id: modelConfigID, Name: "Model", Category: &cat, Type: "select",
		CurrentValue: acp.SessionConfigValueId(id), Options: acp.SessionConfigSelectOptions{Ungrouped: &values},
	}}}
}

// setModel stores the session's model; an unknown one is invalid params,
// as a real agent refuses a model it does not offer.
func (a *agent) setModel(sid, id string) error {
	if !a.known(sid) {
		return acp.NewInvalidParams(map[string]any{"error": "unknown session " + sid})
	}
	if !a.knownModel(id) {
		return acp.NewInvalidParams(map[string]any{"error": "unknown model " + id})
	}
	if err := a.store.updateSession(sid, func(f *sessionFile) { f.Model = id }); err != nil {
		return acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	a.log.Info("model set", zap.String("session", sid), zap.String("model", id))
	return nil
}

func (a *agent) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil || v.ConfigId != modelConfigID || a.cfg.Models == ModelsState || a.cfg.Models == ModelsNone {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "no such config option"})
	}
	if err := a.setModel(string(v.SessionId), string(v.Value)); err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: a.modelOptions(string(v.Value))}, nil
}

func (a *agent) UnstableSetSessionModel(_ context.Context, p acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	if a.cfg.Models == ModelsOptions || a.cfg.Models == ModelsNone {
		return acp.UnstableSetSessionModelResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetModel)
	}
	return acp.UnstableSetSessionModelResponse{}, a.setModel(string(p.SessionId), string(p.ModelId))
}

// switchModel plays "/model@ID": the session's model becomes ID, announced
// as a config_option_update, and the prompt is echoed.
func (a *agent) switchModel(ctx context.Context, sid, id, reply string) (acp.PromptResponse, error) {
	if err := a.setModel(sid, id); err != nil {
		return acp.PromptResponse{}, err
	}
	if a.cfg.Models == ModelsBoth || a.cfg.Models == ModelsOptions {
		u := acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: a.modelOptions(id)}}
		if err := a.send(ctx, sid, u); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	return a.reply(ctx, sid, reply)
}
