package orchestrator

// Never lose the conversation silently (issue 11). When a new agent process
// was asked to resume the session and could not (the agent cannot load
// sessions, or its session/load failed — Gemini CLI 0.61 in a new process:
// "No previous sessions found for this project."), the agent no longer
// knows the conversation. Agents that cannot resume keep their healthy
// process across a provider error (keepForRetry), so this happens only when
// the process is gone (it crashed, was stopped while idle, or the daemon
// restarted) or before the daemon learnt that the profile's session/load
// fails. Then the daemon re-sends the transcript it holds with the prompt,
// and says so in the chat.

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// kindTranscriptResent marks the status line that says the conversation was re-sent.
const kindTranscriptResent = "transcript_resent"

// maxTranscriptBytes bounds the re-sent conversation; the oldest messages go first.
const maxTranscriptBytes = 96 << 10

// resumeFailer is an Execution that reports a resume that did not happen.
type resumeFailer interface{ ResumeFailure() string }

func resumeFailureOf(ex Execution) string {
	if r, ok := ex.(resumeFailer); ok {
		return r.ResumeFailure()
	}
	return ""
}

// resendTranscriptLocked returns the prompt to send to an agent that forgot
// the conversation: the transcript the daemon holds, then prompt; and adds
// a status line saying so. With no earlier conversation nothing was lost
// and prompt is returned as it is. rt.mu is held.
func (s *Service) resendTranscriptLocked(rt *sessionRT, t *turn, why, prompt string) string {
	msgs, err := s.store.ListMessages(s.storeCtx(), rt.sess.ID)
	if err != nil {
		s.log.Error("list messages for the transcript failed", zap.String("session_id", rt.sess.ID), zap.Error(err))
		msgs = nil
	}
	transcript, n := transcriptOf(msgs)
	if n == 0 {
		return prompt
	}
	s.log.Warn("agent could not resume its session; re-sending the conversation",
		zap.String("session_id", rt.sess.ID), zap.String("reason", why), zap.Int("messages", n))
	noun := "messages"
	if n == 1 {
		noun = "message"
	}
	_ = s.addMessageLocked(rt, store.Message{ID: uuid.NewString(), TurnID: t.id, Role: "status", Variant: "info",
		Text:     fmt.Sprintf("The agent could not reopen its session (%s), so the conversation so far (%d %s) was sent to it again.", why, n, noun),
		Metadata: map[string]any{"kind": kindTranscriptResent, "reason": why, "messages": n}})
	return "Your earlier session could not be restored, so here is the conversation so far, as the user saw it. " +
		"Treat it as your own history and carry on from it.\n\n<conversation>\n" + transcript +
		"</conversation>\n\nThe user's latest message:\n\n" + prompt
}

// transcriptOf renders the user and agent messages before the last user
// message (the prompt about to be sent), skipping interrupted attempts,
// newest kept when it is too long; n is how many messages it holds.
func transcriptOf(msgs []store.Message) (string, int) {
	last := -1
	for i, m := range msgs {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return "", 0
	}
	var parts []string
	size := 0
	for i := last - 1; i >= 0; i-- {
		m := msgs[i]
		var who string
		switch {
		case m.Role == "user":
			who = "User"
		case m.Role == "agent" && m.Metadata["interrupted"] != true:
			who = "Assistant"
		default:
			continue
		}
		part := who + ": " + strings.TrimSpace(m.Text) + "\n\n"
		if size+len(part) > maxTranscriptBytes {
			break
		}
		size += len(part)
		parts = append(parts, part)
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	return b.String(), len(parts)
}
