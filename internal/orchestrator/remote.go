package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/orchestratord/orchestratord/internal/store"
)

// RemoteSessions is how this daemon shows a session that another daemon of
// its fleet runs (issue 17): read from the shared store, never loaded into
// this daemon's memory (it writes none of its events). cmd/orchestratord
// wires the PostgreSQL store and internal/fleet's Relay; wsapi decides
// which sessions go this way.
type RemoteSessions interface {
	// SessionPageAsOf reads the session, the page p of its messages
	// (p.MaxSeq < 0: up to its LastSeq) and, when eventsAfter >= 0, its
	// events after eventsAfter, all as of one commit (the session's
	// LastSeq). The events stop before their payloads (each counted 64
	// bytes more) pass eventsMaxBytes, one at least: all of them are there
	// when the last one's seq is the session's LastSeq.
	SessionPageAsOf(ctx context.Context, sessionID string, p store.MessagePage, eventsAfter int64, eventsMaxBytes int) (store.PageAsOf, error)
	// Watch feeds deliver every event of the session after seq after, in
	// order, whichever daemon writes them; deliver never blocks and
	// returning false ends the watch, as stop does.
	Watch(sessionID string, after int64, deliver func(store.Event) bool) (stop func())
	// Marks asks the daemons that own those of sessionIDs another daemon
	// owns for their marks (Service.Marks), best effort within ctx: a
	// daemon that does not answer leaves its sessions out.
	Marks(ctx context.Context, sessionIDs []string) map[string]Marks
}

// SubscribeRemote is SubscribeSession for a session another daemon runs:
// the same answer (a snapshot, or with AfterSeq the replay of the events
// after it) and then every later event, relayed from the store by src —
// so a reconnecting client catches up with after_seq exactly as on the
// session's own daemon. The snapshot is paged as a local one is: its first
// page here, the next ones on session.page, each read as of one commit
// and put into the feed in order with the events (remotefeed.go).
func (s *Service) SubscribeRemote(ctx context.Context, req SubscribeRequest, buffer int, src RemoteSessions) (SubscribeResult, *Subscription, error) {
	if req.SessionID == "" {
		return SubscribeResult{}, nil, fmt.Errorf("%w: session_id is required", ErrValidation)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return SubscribeResult{}, nil, ErrClosed
	}
	if buffer <= 0 {
		buffer = s.cfg.SubscriberBuffer
	}
	sess, err := s.store.GetSession(ctx, req.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return SubscribeResult{}, nil, fmt.Errorf("%w: session %q", ErrNotFound, req.SessionID)
	}
	if err != nil {
		return SubscribeResult{}, nil, fmt.Errorf("get session: %w", err)
	}
	if req.TaskID != "" && sess.TaskID != req.TaskID {
		return SubscribeResult{}, nil, fmt.Errorf("%w: session %q does not belong to task %q", ErrForbidden, req.SessionID, req.TaskID)
	}
	res := SubscribeResult{Session: sess, LastSeq: sess.LastSeq}
	after := req.AfterSeq
	if after != nil && (*after < 0 || *after > sess.LastSeq || sess.LastSeq-*after > maxReplayEvents) {
		after = nil // unknown position: start from a snapshot
	}
	if after != nil {
		evs, complete, err := s.store.ListEventsUpTo(ctx, sess.ID, *after, 4*s.cfg.SnapshotPageBytes)
		if err != nil {
			return SubscribeResult{}, nil, fmt.Errorf("list events: %w", err)
		}
		if complete {
			// Every event up to now: the feed goes on from the last one
			// (the owner may have written more since the session was read).
			res.Mode, res.LastSeq = "replay", *after
			res.Events = make([]Notification, 0, len(evs))
			for _, e := range evs {
				res.Events = append(res.Events, Notification{Action: e.Type, Seq: e.Seq, Payload: e.Payload, At: e.At})
				res.LastSeq = e.Seq
			}
		} else {
			after = nil
		}
	}
	if after == nil {
		pg, err := src.SessionPageAsOf(ctx, sess.ID, store.MessagePage{MaxSeq: -1, AfterSeq: -1, MaxBytes: s.cfg.SnapshotPageBytes}, -1, 0)
		if err != nil {
			return SubscribeResult{}, nil, fmt.Errorf("read session: %w", err)
		}
		res.Mode, res.Session, res.Messages, res.LastSeq = "snapshot", pg.Session, pg.Messages, pg.Session.LastSeq
		if pg.More && len(pg.Messages) > 0 {
			last := pg.Messages[len(pg.Messages)-1]
			res.NextCursor = snapshotCursor{until: res.LastSeq, afterSeq: last.Seq, afterID: last.ID}.String()
		}
	}
	if res.Task, err = s.store.GetTask(ctx, sess.TaskID); err != nil {
		return SubscribeResult{}, nil, fmt.Errorf("get task of session: %w", err)
	}
	sub := newSubscription(buffer)
	watchRemote(src, sub, sess.TaskID, sess.ID, res.LastSeq)
	s.keepRemoteWatch(src, sub, sess.ID)
	return res, sub, nil
}

// PublishStoredTask publishes task.updated for a task as the store has it
// now, or task.deleted when it is gone: a change another daemon of the
// fleet made (the relay's wake-up on postgres.TasksChannel), so this
// daemon's task lists follow tasks it does not run. What only this daemon
// knows (a queue position, a paused retry) is added as task.list adds it.
func (s *Service) PublishStoredTask(ctx context.Context, taskID string) error {
	task, err := s.store.GetTask(ctx, taskID)
	if errors.Is(err, store.ErrNotFound) {
		if payload, err := jsonOf(map[string]any{"task_id": taskID}); err == nil {
			s.tasks.publish(Notification{Action: "task.deleted", Payload: payload, At: s.now()})
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("get task: %w", err)
	}
	sessions, err := s.store.ListSessions(ctx, taskID)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	v := newTaskView(task, sessions)
	if n := len(sessions); n > 0 {
		if rt := s.loaded(sessions[n-1].ID); rt != nil {
			if s.slots.waiting() {
				v.QueuePosition = s.slots.positions()[rt]
			}
			rt.mu.Lock()
			v.Paused = pausedLocked(rt)
			rt.mu.Unlock()
		}
	}
	vs := []TaskView{v}
	s.remoteMarks(ctx, vs)
	s.publishTaskView(vs[0])
	return nil
}
