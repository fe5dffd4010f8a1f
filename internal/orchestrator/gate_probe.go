package orchestrator

import (
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// A probe's turn may run for minutes (a real agent works through a task),
// but the provider has answered as soon as the model streams work: the gate
// closes then, not when the turn ends, so the waiting sessions do not wait
// for someone else's task.

// probeAnswerText is how much streamed reply text proves an answer: enough
// to tell work from an error line an agent streams before failing
// (claude-agent-acp streams "API Error: 529 …" as text).
const probeAnswerText = 40

// probeTextMax bounds the text a probe keeps to decide.
const probeTextMax = 4 << 10

// noteProbeOutputLocked closes the session's gate on the probe's first
// proof that the provider answers. rt.mu is held.
func (s *Service) noteProbeOutputLocked(rt *sessionRT, t *turn, ev lifecycle.Event) {
	if !t.probe || t.answered {
		return
	}
	switch ev.Kind {
	case lifecycle.EventToolCall, lifecycle.EventAgentThought, lifecycle.EventPlan:
		// Only a model's answer calls tools, thinks or plans.
	case lifecycle.EventAgentMessage:
		if len(t.probeText) < probeTextMax {
			t.probeText += ev.Text[:min(len(ev.Text), probeTextMax-len(t.probeText))]
		}
		text := strings.TrimSpace(t.probeText)
		if len(text) < probeAnswerText || looksLikeError(text) {
			return
		}
	default:
		return
	}
	t.answered = true
	s.flushOrFailLocked(rt) // its RUNNING (stream.go) is saved before the gate says the provider is back
	s.log.Info("overload gate probe answered; closing the gate before its turn ends",
		zap.String("session_id", rt.sess.ID), zap.String("evidence", string(ev.Kind)))
	s.gateSucceededLocked(rt, s.now())
}

// looksLikeError: the text classifies as a provider or agent error.
func looksLikeError(text string) bool {
	c := routingerr.Classify(routingerr.Evidence{RPCMessage: text, HasRPCError: true}, time.Time{})
	return c.Class != routingerr.ClassUnclassified
}
