package orchestrator

// Attention: the moments a person who walked away wants to hear about — a
// task that needs them (a recovery banner), a task that finished its turn,
// a task parked on a retry (a usage window, a long wait). The orchestrator
// only says that they happened; delivering them (webhooks) belongs to
// internal/notify, wired in cmd/orchestratord.

import (
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Attention kinds.
const (
	AttentionNeedsYou = "needs_you" // a recovery banner: a person must act
	AttentionFinished = "finished"  // a turn ended and the task is idle
	AttentionWaiting  = "waiting"   // a parked retry (its RetryAt says until when)
)

// Attention is one such moment. Strings are as the chat shows them
// (sanitised).
type Attention struct {
	Kind string
	// Key identifies the moment: the same banner, notice or turn seen twice
	// (a notice updated in place, an unsaved banner saved later) has the
	// same key, so a sink can tell each once.
	Key       string
	TaskID    string
	SessionID string
	Title     string // the task's title
	Agent     string // the task's agent profile
	Text      string // the banner's or notice's text; for finished, the stop reason in words
	// Reason: the banner's reason (exhausted, user_action…), the notice's
	// failure code, or the turn's stop reason.
	Reason string
	// UsageWindow: a waiting notice of a usage window (class wait_for_reset),
	// as opposed to a long retry hint.
	UsageWindow bool
	RetryAt     time.Time // waiting: when the retry is due
	At          time.Time
}

// AttentionSink receives Attention. It is called with a session's lock
// held, so it must return at once (queue, never block or call back into
// the Service).
type AttentionSink interface {
	Attention(Attention)
}

// attentionLocked looks at one published session event and tells the sink
// when it is such a moment. rt.mu is held.
func (s *Service) attentionLocked(rt *sessionRT, action string, body map[string]any) {
	sink := s.cfg.Attention
	if sink == nil {
		return
	}
	a := Attention{TaskID: rt.task.ID, SessionID: rt.sess.ID, Title: rt.task.Title, Agent: rt.task.Agent, At: s.now()}
	switch action {
	case "session.message.added", "session.message.updated":
		m, ok := body["message"].(store.Message)
		if !ok {
			return
		}
		switch m.Metadata["kind"] {
		case kindRecovery:
			a.Kind, a.Key, a.Text = AttentionNeedsYou, "banner:"+m.ID, m.Text
			a.Reason, _ = m.Metadata["reason"].(string)
		case kindRetryNotice:
			if _, gated := m.Metadata["gate"]; gated || m.Metadata["retrying"] != true {
				return // an overload gate's wait is the gate's business, not a reset
			}
			at, _ := m.Metadata["retry_at"].(string)
			retryAt, err := time.Parse(time.RFC3339Nano, at)
			if err != nil {
				return
			}
			a.Kind, a.Key, a.Text, a.RetryAt = AttentionWaiting, "wait:"+m.ID, m.Text, retryAt
			a.Reason, _ = m.Metadata["failure_code"].(string)
			a.UsageWindow = m.Metadata["class"] == "wait_for_reset" || a.Reason == "quota"
			if u, ok := m.Metadata["usage"].(map[string]any); ok {
				// A usage-window wait; "hint" marks a long retry-after instead.
				a.UsageWindow = u["hint"] != true
			}
		default:
			return
		}
	case "session.turn.completed":
		reason, _ := body["stop_reason"].(string)
		switch reason {
		case "failed", "retry_scheduled", "cancelled", "":
			return // a banner or notice follows, or the user stopped it
		}
		turn, _ := body["turn_id"].(string)
		a.Kind, a.Key, a.Reason, a.Text = AttentionFinished, "turn:"+turn, reason, finishedText(reason)
	default:
		return
	}
	sink.Attention(a)
}

func finishedText(stopReason string) string {
	switch stopReason {
	case "end_turn":
		return "The agent finished its turn."
	case "max_tokens":
		return "The agent stopped: it reached its output limit."
	case "max_turn_requests":
		return "The agent stopped: it reached its limit of requests for one turn."
	case "refusal":
		return "The agent refused to continue."
	}
	return "The agent's turn ended (" + stopReason + ")."
}
