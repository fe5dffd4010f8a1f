package orchestrator

// What a task view shows that only the daemon running its session knows
// (issue 17): its place in the agents' line, and whether its banner is a
// pause the user chose. A daemon of a fleet asks the owner for them
// (RemoteSessions.Marks, through the relay) when it shows a task another
// daemon runs, so task.list, task.get and task.updated say the same on
// every daemon.

import (
	"context"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Marks are the memory-only parts of a task view (TaskView's fields of
// the same names).
type Marks struct {
	QueuePosition int  `json:"queue_position,omitempty"`
	Paused        bool `json:"paused,omitempty"`
}

// marksTimeout bounds asking the owners: a list never waits on a daemon
// that is gone for longer than this; it shows the task without its marks.
const marksTimeout = time.Second

// Marks are this daemon's marks of those of sessionIDs it has in memory
// (the owner's answer to RemoteSessions.Marks). The asker shows those
// sessions to someone: their waiting notices are kept current for a while
// (remotewatch.go).
func (s *Service) Marks(sessionIDs []string) map[string]Marks {
	out := map[string]Marks{}
	var pos map[*sessionRT]int
	if s.slots.waiting() {
		pos = s.slots.positions()
	}
	for _, id := range sessionIDs {
		rt := s.loaded(id)
		if rt == nil {
			continue
		}
		rt.mu.Lock()
		m := Marks{QueuePosition: pos[rt], Paused: pausedLocked(rt)}
		s.remotelyWatchedLocked(rt)
		rt.mu.Unlock()
		if m != (Marks{}) {
			out[id] = m
		}
	}
	return out
}

// remoteMarks fills in the marks of views whose newest session could have
// some (queued, or failed behind a banner) and has none here: another
// daemon of the fleet runs it, and says.
func (s *Service) remoteMarks(ctx context.Context, views []TaskView) {
	src := s.remoteSessions()
	if src == nil {
		return
	}
	var ids []string
	at := map[string]int{}
	for i, v := range views {
		n := len(v.Sessions)
		if n == 0 || v.QueuePosition != 0 || v.Paused {
			continue
		}
		switch sess := v.Sessions[n-1]; sess.State {
		case store.SessionQueued, store.SessionFailed:
			ids = append(ids, sess.ID)
			at[sess.ID] = i
		}
	}
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, marksTimeout)
	defer cancel()
	for id, m := range src.Marks(ctx, ids) {
		if i, ok := at[id]; ok {
			views[i].QueuePosition, views[i].Paused = m.QueuePosition, m.Paused
		}
	}
}
