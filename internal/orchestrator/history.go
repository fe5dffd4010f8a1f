package orchestrator

import (
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Session history. Start fresh keeps the chat (the earlier conversation
// stays readable) but gives the agent a new session that does not know it;
// a divider in the chat says where the new one begins.

const kindFreshStart = "fresh_start"

// freshDividerText is the divider's text.
const freshDividerText = "Started fresh — the agent does not see the messages above"

// freshDividerLocked adds the divider. A divider that cannot be saved is
// only logged: the fresh start itself goes on.
func (s *Service) freshDividerLocked(rt *sessionRT) {
	m := store.Message{ID: uuid.NewString(), Role: "status", Variant: "info", Text: freshDividerText,
		Metadata: map[string]any{"kind": kindFreshStart, "generation": rt.sess.Generation + 1}}
	if err := s.addMessageLocked(rt, m); err != nil {
		s.log.Warn("the Start fresh divider could not be saved", zap.String("session_id", rt.sess.ID), zap.Error(err))
	}
}
