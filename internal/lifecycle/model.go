package lifecycle

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// Which model an agent's session uses, as the agent reports it. Agents say
// it in one of two ways in the session/new (and session/load) answer:
//
//   - a session config option of category "model" (the ACP spec; Codex
//     sends {"id":"model","category":"model","currentValue":"gpt-5.4",…}),
//     changed later by a config_option_update;
//   - the unstable "models" state {availableModels, currentModelId}
//     (Gemini CLI 0.61: "currentModelId":"gemini-2.5-flash", a model that
//     is not among its availableModels).
//
// opencode 1.18 sends the config option ("fake/fake-model"), Qwen Code
// 0.24 both, with ids such as "$runtime|openai|fake-model(openai)" named
// "fake-model". The config option wins when both are sent. An agent that reports neither
// has no model here: the orchestrator shows the profile's, if it names one,
// and otherwise nothing.

// Model is the model of an agent session; the zero value means the agent
// reported none.
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"` // human-readable, when the agent gives one
}

// reportedModel reads the model from a session answer or a config update.
func reportedModel(opts []acp.SessionConfigOption, ms *acp.SessionModelState) Model {
	if sel := modelOption(opts); sel != nil {
		id := string(sel.CurrentValue)
		return Model{ID: id, Name: optionName(sel, id)}
	}
	if ms != nil && ms.CurrentModelId != "" {
		m := Model{ID: string(ms.CurrentModelId)}
		m.Name = availableName(ms, m.ID)
		return m
	}
	return Model{}
}

// modelOption is the select option of category "model" (else one with the
// id "model"), or nil.
func modelOption(opts []acp.SessionConfigOption) *acp.SessionConfigOptionSelect {
	var byID *acp.SessionConfigOptionSelect
	for _, o := range opts {
		sel := o.Select
		if sel == nil {
			continue
		}
		if sel.Category != nil && *sel.Category == acp.SessionConfigOptionCategoryModel {
			return sel
		}
		if sel.Id == "model" && byID == nil {
			byID = sel
		}
	}
	return byID
}

// optionName is the name the option gives value, or "" (also when it is
// the id itself: nothing to add).
func optionName(sel *acp.SessionConfigOptionSelect, value string) string {
	name := ""
	if u := sel.Options.Ungrouped; u != nil {
		for _, o := range *u {
			if string(o.Value) == value {
				name = o.Name
			}
		}
	}
	if g := sel.Options.Grouped; g != nil {
		for _, grp := range *g {
			for _, o := range grp.Options {
				if string(o.Value) == value {
					name = o.Name
				}
			}
		}
	}
	if name == value {
		return ""
	}
	return name
}

func availableName(ms *acp.SessionModelState, id string) string {
	for _, am := range ms.AvailableModels {
		if string(am.ModelId) == id && am.Name != id {
			return am.Name
		}
	}
	return ""
}

// chooseModel asks the agent for the profile's model when it offers a
// choice and uses another, the way it reports models: session/set_config_option
// for a model config option, else the unstable session/set_model. It returns
// the model the session uses afterwards. A refusal is logged and leaves the
// agent's own model (the page shows what runs, not what was asked for).
func (e *Execution) chooseModel(ctx context.Context, want string, opts []acp.SessionConfigOption, ms *acp.SessionModelState) Model {
	have := reportedModel(opts, ms)
	if want == "" || want == have.ID || have.ID == "" {
		return have
	}
	sid := acp.SessionId(e.sessionID)
	if sel := modelOption(opts); sel != nil {
		resp, err := e.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
			ConfigId: sel.Id, SessionId: sid, Value: acp.SessionConfigValueId(want),
		}})
		if err != nil {
			e.log.Warn("the agent refused the profile's model; it keeps its own", zap.String("model", want),
				zap.String("agent_model", have.ID), zap.Error(err))
			return have
		}
		if m := reportedModel(resp.ConfigOptions, nil); m.ID != "" {
			return m
		}
		return Model{ID: want, Name: optionName(sel, want)}
	}
	if _, err := e.conn.UnstableSetSessionModel(ctx, acp.UnstableSetSessionModelRequest{SessionId: sid, ModelId: acp.UnstableModelId(want)}); err != nil {
		e.log.Warn("the agent refused the profile's model; it keeps its own", zap.String("model", want),
			zap.String("agent_model", have.ID), zap.Error(err))
		return have
	}
	return Model{ID: want, Name: availableName(ms, want)}
}

// Model is the model the agent reported for its session (after the
// profile's choice, and any change it announced since); zero when it
// reported none.
func (e *Execution) Model() Model { return e.client.currentModel() }

func (c *acpClient) currentModel() Model {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

func (c *acpClient) setModel(m Model) {
	c.mu.Lock()
	c.model = m
	c.mu.Unlock()
}

// modelUpdateLocked notes a config_option_update; a new model outside a
// session/load replay becomes an EventModel (not activity: a model change
// never counts as output).
func (c *acpClient) modelUpdateLocked(u *acp.SessionConfigOptionUpdate) {
	m := reportedModel(u.ConfigOptions, nil)
	if m.ID == "" || m == c.model {
		return
	}
	c.model = m
	if !c.loading {
		c.events.push(Event{Kind: EventModel, Model: &m})
	}
}
