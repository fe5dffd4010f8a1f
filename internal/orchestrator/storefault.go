package orchestrator

// Storage faults (disk full, read-only data dir): a write that fails must
// never leave a silent hole in a reply or a session stuck RUNNING. Here:
//
//   - A persist that fails while a turn runs ends the turn at once (emitLocked
//     cancels it): the chunk that could not be saved is not sent, and the turn
//     ends with a recovery banner saying the daemon could not save, with
//     Resume — never as a success.
//   - When the turn's end cannot be saved either, the session moves on in
//     memory anyway: the banner and the new state reach every client as
//     notifications without a seq (they are not in the event log), are part
//     of every snapshot, and are written for real as soon as the store takes
//     writes again (reconcile, every reconcileEvery), or superseded by the
//     user's next action. Should the daemon die first, the next start finds
//     the session RUNNING in the store and shows the "interrupted" banner.
//
// The in-memory seq never runs ahead of the store: only saved events get
// one, so a client's after_seq always means the same thing to the store.

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/store"
)

// ErrStorage: the daemon cannot save right now (disk full, read-only data
// dir); nothing was changed. Its text says why, for the user.
var ErrStorage = errors.New("the daemon cannot save its data")

// kindStoreFailed is the recovery banner reason for a turn that could not
// be saved.
const kindStoreFailed = "store_failed"

// reconcileEvery is how often unsaved session state is written again.
const reconcileEvery = 2 * time.Second

// storageErr turns a store write failure into ErrStorage for the user.
func storageErr(err error) error {
	if errors.Is(err, store.ErrUnwritable) {
		return fmt.Errorf("%w: %s; nothing was changed (%w)", ErrStorage, store.FaultReason(err), err)
	}
	return err
}

// storeFailedLocked ends a turn whose events could not be saved with the
// recovery banner (saved if the store takes it, else held in memory).
func (s *Service) storeFailedLocked(rt *sessionRT, t *turn, cause error) {
	s.log.Error("a turn could not be saved; it ends with a recovery banner",
		zap.String("session_id", rt.sess.ID), zap.String("task_id", rt.task.ID), zap.Error(cause))
	s.gateAbandonLocked(rt, s.now())
	s.recoveryBannerLocked(rt, t, recoveryReason{kind: kindStoreFailed, cause: cause})
}

// holdUnsavedLocked shows a banner that could not be saved: to the clients
// now, to the store at the next reconcile.
func (s *Service) holdUnsavedLocked(rt *sessionRT, m store.Message) {
	m.SessionID = rt.sess.ID
	m.Seq = rt.sess.LastSeq + 1 // its place among the messages, not an event seq
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	m.Metadata["unsaved"] = true
	now := s.now()
	m.CreatedAt, m.UpdatedAt = now, now
	rt.unsaved = &m
	s.publishUnsavedLocked(rt, "session.message.added", map[string]any{"message": m})
	s.armReconcileLocked(rt)
}

// forceStateLocked moves the session (and task) to a state that could not
// be saved, so nothing is left RUNNING; reconcile saves it later.
func (s *Service) forceStateLocked(rt *sessionRT, state, taskState string) {
	rt.sess.State = state
	if taskState != "" && taskState != rt.task.State {
		rt.task.State = taskState
		rt.task.UpdatedAt = s.now()
	}
	rt.dirty = true
	s.publishUnsavedLocked(rt, "session.state_changed", map[string]any{"task_id": rt.task.ID, "state": state})
	s.publishTask(rt)
	s.armReconcileLocked(rt)
}

// publishUnsavedLocked sends clients an event that is not in the event log:
// no seq, marked unsaved.
func (s *Service) publishUnsavedLocked(rt *sessionRT, action string, body map[string]any) {
	body["session_id"] = rt.sess.ID
	body["unsaved"] = true
	payload, err := jsonOf(body)
	if err != nil {
		return
	}
	rt.subs.publish(Notification{Action: action, Payload: payload, At: s.now()})
	s.attentionLocked(rt, action, body)
}

// deleteLaterLocked withdraws a message whose deletion the store refused:
// from the clients now, from the store at the next reconcile.
func (s *Service) deleteLaterLocked(rt *sessionRT, id string) {
	rt.deletes = append(rt.deletes, id)
	s.publishUnsavedLocked(rt, "session.message.deleted", map[string]any{"message_id": id})
	s.armReconcileLocked(rt)
}

// dropUnsavedLocked withdraws a banner that was never saved.
func (s *Service) dropUnsavedLocked(rt *sessionRT) {
	if rt.unsaved == nil {
		return
	}
	id := rt.unsaved.ID
	rt.unsaved = nil
	s.publishUnsavedLocked(rt, "session.message.deleted", map[string]any{"message_id": id})
}

func (s *Service) armReconcileLocked(rt *sessionRT) {
	if rt.reconcile != nil {
		return
	}
	id := rt.sess.ID
	rt.reconcile = s.cfg.Clock.AfterFunc(reconcileEvery, func() { s.reconcileFire(id) }, "reconcile")
}

func (s *Service) stopReconcileLocked(rt *sessionRT) {
	if rt.reconcile != nil {
		rt.reconcile.Stop()
		rt.reconcile = nil
	}
}

func (s *Service) reconcileFire(sessionID string) {
	if !s.enter() {
		return
	}
	defer s.leave()
	rt := s.loaded(sessionID)
	if rt == nil {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.reconcile = nil
	if err := s.reconcileLocked(rt); err != nil {
		s.armReconcileLocked(rt)
	}
}

// reconcileLocked writes what the session holds only in memory: the
// unsaved banner, the session and task rows, and the deletion of a retry
// row that no longer stands. nil when nothing is left.
func (s *Service) reconcileLocked(rt *sessionRT) error {
	for len(rt.deletes) > 0 {
		if err := s.deleteMessageLocked(rt, rt.deletes[0]); err != nil {
			return storageErr(err)
		}
		rt.deletes = rt.deletes[1:]
	}
	if rt.unsaved != nil {
		m := *rt.unsaved
		m.Metadata = make(map[string]any, len(rt.unsaved.Metadata))
		for k, v := range rt.unsaved.Metadata {
			if k != "unsaved" {
				m.Metadata[k] = v
			}
		}
		if err := s.addMessageLocked(rt, m); err != nil {
			return storageErr(err)
		}
		rt.unsaved, rt.banner = nil, m.ID
		rt.bannerReason, _ = m.Metadata["reason"].(string)
	}
	if rt.staleRow && rt.retry == nil {
		if err := s.store.DeletePendingRetry(s.storeCtx(), rt.sess.ID); err != nil {
			return storageErr(err)
		}
		rt.staleRow = false
	}
	if rt.dirty {
		next, task := rt.sess, rt.task
		if err := s.emitLocked(rt, "session.state_changed", map[string]any{"task_id": rt.task.ID, "state": next.State},
			change{sess: &next, task: &task}); err != nil {
			return storageErr(err)
		}
		rt.dirty = false
	}
	s.stopReconcileLocked(rt)
	return nil
}
