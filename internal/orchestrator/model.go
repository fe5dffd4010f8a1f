package orchestrator

import (
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
)

// Which model a task uses. The agent says it over ACP when a process
// starts (lifecycle.Execution.Model) and when it announces another
// (lifecycle.EventModel); the session keeps its name, else its id (store.Session.Model,
// written apart from the event log with SetSessionModel, so a session
// replace never loses it), and TaskView.Model shows it — or, while the
// agent has reported none, the model the task's profile names. Never a
// guess: an agent that reports nothing under a profile that names nothing
// shows no model.

// modelReporter is an Execution that knows its agent's model
// (*lifecycle.Execution; test fakes need not).
type modelReporter interface{ Model() lifecycle.Model }

// modelOf is the model as the page shows it: the agent's name for it, else
// its id (Qwen Code's ids read "$runtime|openai|qwen3-coder(openai)", its
// names "qwen3-coder").
func modelOf(ex Execution) string {
	r, ok := ex.(modelReporter)
	if !ok {
		return ""
	}
	if m := r.Model(); m.Name != "" {
		return m.Name
	}
	return r.Model().ID
}

// Model forwards the wrapped execution's model (queue.go).
func (e *slotExec) Model() lifecycle.Model {
	if r, ok := e.Execution.(modelReporter); ok {
		return r.Model()
	}
	return lifecycle.Model{}
}

// setModelLocked records the model the session's agent reports; it reports
// whether it changed. A model that cannot be saved is still shown (it is
// what runs): it is cosmetic, so the failure is logged, not a banner.
func (s *Service) setModelLocked(rt *sessionRT, model string) bool {
	if model == rt.sess.Model {
		return false
	}
	if err := s.store.SetSessionModel(s.storeCtx(), rt.sess.ID, model); err != nil {
		s.log.Warn("the session's model could not be saved", zap.String("session_id", rt.sess.ID),
			zap.String("model", model), zap.Error(err))
	}
	rt.sess.Model = model
	s.log.Info("agent model", zap.String("session_id", rt.sess.ID), zap.String("model", model))
	return true
}

// onModelLocked: the agent announced another model mid-session.
func (s *Service) onModelLocked(rt *sessionRT, ev lifecycle.Event) {
	if ev.Model == nil {
		return
	}
	label := ev.Model.Name
	if label == "" {
		label = ev.Model.ID
	}
	if s.setModelLocked(rt, label) {
		s.publishTask(rt)
	}
}

// withModel fills TaskView.Model: the newest session's reported model,
// else the configured one of the profile it runs on (the task's, or the
// fallback it continues on: fallback.go).
func (s *Service) withModel(v TaskView, profile string) TaskView {
	if n := len(v.Sessions); n > 0 && v.Sessions[n-1].Model != "" {
		v.Model = v.Sessions[n-1].Model
		return v
	}
	v.Model = s.cfg.Profiles[profile].Model
	return v
}

// viewModel is withModel for a view built from the store: the newest
// session's runtime, when loaded, says which profile it runs on. Not
// with a session's lock held.
func (s *Service) viewModel(v TaskView) TaskView {
	profile := v.Agent
	if n := len(v.Sessions); n > 0 {
		if rt := s.loaded(v.Sessions[n-1].ID); rt != nil {
			rt.mu.Lock()
			profile = rt.agent()
			rt.mu.Unlock()
		}
	}
	return s.withModel(v, profile)
}
