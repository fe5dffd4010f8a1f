package orchestrator

// The writes of a turn's start and of a successful turn's end go to the
// store as one batch each (emitAllLocked: one commit), not one commit per
// event: the overload gate releases thousands of sessions within seconds,
// and each commit is most of a small write's cost.

import (
	"slices"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// markEventsLocked is markAgentMsgsLocked as events for a batch: the
// replace of each agent text message of the attempt (its last one only
// when lastOnly) with metadata key=value. Each message is read alone, and
// its text includes what the stream buffer still holds for it (flushed
// first in the same batch), so the replace is the whole text: it folds the
// message's chunks, and the message needs no seal afterwards.
func (s *Service) markEventsLocked(rt *sessionRT, t *turn, key string, value any, lastOnly bool) []pendingEvent {
	ids := t.agentMsgs
	if lastOnly && len(ids) > 0 {
		ids = ids[len(ids)-1:]
	}
	var evs []pendingEvent
	for _, id := range ids {
		if m := rt.stagedAdd(id); m != nil {
			// Not in the store yet: it is added with its mark, no read,
			// no second write.
			if m.Metadata == nil {
				m.Metadata = map[string]any{}
			}
			m.Metadata[key] = value
			continue
		}
		m, err := s.store.GetMessage(s.storeCtx(), id)
		if err != nil {
			s.log.Error("read a reply to mark it failed", zap.String("session_id", rt.sess.ID),
				zap.String("mark", key), zap.Error(err))
			continue
		}
		if m.SessionID != rt.sess.ID || m.Role != "agent" || m.Metadata[key] == value {
			continue
		}
		if b := rt.stream; b != nil {
			for _, seg := range b.segs {
				if seg.id == id {
					m.Text += string(seg.text)
				}
			}
		}
		if m.Metadata == nil {
			m.Metadata = map[string]any{}
		}
		m.Metadata[key] = value
		m.UpdatedAt = s.now()
		sanitizeMessage(&m)
		evs = append(evs, pendingEvent{action: "session.message.updated", body: map[string]any{"message": m}, c: change{upsert: &m}})
		t.streamed = slices.DeleteFunc(t.streamed, func(x string) bool { return x == id }) // whole again: nothing to seal
	}
	return evs
}

// succeededEndLocked records a successful turn's end in one batch: the
// "retries" mark on its reply, the notice's delete, turn.completed (with
// the pending retry row's delete when hadRetry) and the session's move to
// WAITING_FOR_INPUT with the task's to REVIEW. A batch the store refuses
// is handled as each of those writes failing: the notice goes from memory
// (deleted at reconcile), the row is reconciled, and the turn's write
// error ends it with the could-not-save banner (finishTurn).
func (s *Service) succeededEndLocked(rt *sessionRT, t *turn, stopReason string, mark, hadRetry bool) {
	var evs []pendingEvent
	if mark {
		evs = s.markEventsLocked(rt, t, "retries", t.retry, true)
	}
	notice := rt.notice
	if notice != "" {
		evs = append(evs, pendingEvent{action: "session.message.deleted", body: map[string]any{"message_id": notice}, c: change{delete: notice}})
	}
	evs = append(evs,
		pendingEvent{action: "session.turn.completed", body: map[string]any{"turn_id": t.id, "stop_reason": stopReason}, c: change{deleteRetry: hadRetry}},
		stateEvent(store.SessionWaitingForInput, store.TaskReview))
	err := s.emitAllLocked(rt, evs)
	if notice != "" {
		if err != nil {
			s.deleteLaterLocked(rt, notice) // gone for the user now, from the store at reconcile
		}
		rt.notice = ""
	}
	if hadRetry {
		s.retryRowDeletedLocked(rt, err)
	}
	s.armIdleLocked(rt)
}
