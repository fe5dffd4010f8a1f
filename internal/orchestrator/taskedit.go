package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Task management outside a turn: rename, mark done (and reopen),
// archive (and restore), delete. A change is made under the lock of the
// task's sessions, so it never races the task row a session event writes.

// UpdateTaskRequest is task.update: every field given changes, a nil one
// stays.
type UpdateTaskRequest struct {
	TaskID   string  `json:"task_id"`
	Title    *string `json:"title"`
	Done     *bool   `json:"done"`     // true: DONE; false: a done task back to REVIEW
	Archived *bool   `json:"archived"` // true: archived now (kept if already); false: not archived
}

// DeleteTaskRequest is task.delete.
type DeleteTaskRequest struct {
	TaskID string `json:"task_id"`
}

// DeleteTaskResult says what became of the task's work directory: the
// daemon's own (under the data dir) is removed with the task; one the user
// chose is never touched.
type DeleteTaskResult struct {
	TaskID         string `json:"task_id"`
	Workdir        string `json:"workdir"`
	WorkdirRemoved bool   `json:"workdir_removed"`
}

// maxTitleBytes bounds a task title.
const maxTitleBytes = 200

// taskSessions returns the runtimes of a task's sessions, locked (in the
// order of the store), and the task; unlock releases them. Sessions not
// in memory are loaded, so no runtime holds a stale copy of the task.
func (s *Service) taskSessions(ctx context.Context, taskID string) (store.Task, []*sessionRT, func(), error) {
	if strings.TrimSpace(taskID) == "" {
		return store.Task{}, nil, nil, fmt.Errorf("%w: task_id is required", ErrValidation)
	}
	task, err := s.store.GetTask(ctx, taskID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Task{}, nil, nil, fmt.Errorf("%w: task %q", ErrNotFound, taskID)
	}
	if err != nil {
		return store.Task{}, nil, nil, fmt.Errorf("get task: %w", storageErr(err))
	}
	sessions, err := s.store.ListSessions(ctx, taskID)
	if err != nil {
		return store.Task{}, nil, nil, fmt.Errorf("list sessions: %w", storageErr(err))
	}
	rts := make([]*sessionRT, 0, len(sessions))
	for _, x := range sessions {
		rt, err := s.session(ctx, x.ID, taskID)
		if err != nil {
			return store.Task{}, nil, nil, err
		}
		rts = append(rts, rt)
	}
	for _, rt := range rts {
		rt.mu.Lock()
	}
	unlock := func() {
		for _, rt := range slices.Backward(rts) {
			rt.mu.Unlock()
		}
	}
	if len(rts) > 0 {
		task = rts[len(rts)-1].task // the live copy: a turn may have moved its state
	}
	return task, rts, unlock, nil
}

// busy reports whether any of the sessions runs a turn (or waits in line
// for one) or has a retry parked. Their locks are held.
func busy(rts []*sessionRT) bool {
	for _, rt := range rts {
		if rt.turn != nil || rt.retry != nil {
			return true
		}
	}
	return false
}

// UpdateTask renames, marks done or reopens, archives or restores a task
// and publishes task.updated.
func (s *Service) UpdateTask(ctx context.Context, req UpdateTaskRequest) (TaskView, error) {
	if req.Title == nil && req.Done == nil && req.Archived == nil {
		return TaskView{}, fmt.Errorf("%w: nothing to change: give title, done or archived", ErrValidation)
	}
	var title string
	if req.Title != nil {
		title = routingerr.Sanitize(strings.TrimSpace(*req.Title))
		if title == "" {
			return TaskView{}, fmt.Errorf("%w: title must not be empty", ErrValidation)
		}
		if len(title) > maxTitleBytes {
			return TaskView{}, fmt.Errorf("%w: title is longer than %d bytes", ErrValidation, maxTitleBytes)
		}
	}
	task, rts, unlock, err := s.taskSessions(ctx, req.TaskID)
	if err != nil {
		return TaskView{}, err
	}
	defer unlock()
	now := s.now()
	if req.Title != nil {
		task.Title = title
	}
	if req.Done != nil {
		switch {
		case *req.Done && busy(rts):
			return TaskView{}, fmt.Errorf("%w: the task is still working (or waiting to retry); stop it before marking it done", ErrConflict)
		case *req.Done:
			task.State = store.TaskDone
		case task.State == store.TaskDone:
			task.State = store.TaskReview
		}
	}
	if req.Archived != nil {
		switch {
		case *req.Archived && task.ArchivedAt == nil:
			task.ArchivedAt = &now
		case !*req.Archived:
			task.ArchivedAt = nil
		}
	}
	task.UpdatedAt = now
	if err := s.store.UpdateTask(ctx, task); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return TaskView{}, fmt.Errorf("%w: task %q", ErrNotFound, req.TaskID)
		}
		return TaskView{}, fmt.Errorf("update task: %w", storageErr(err))
	}
	sessions := make([]store.Session, 0, len(rts))
	for _, rt := range rts {
		rt.task = task
		sessions = append(sessions, rt.sess)
	}
	profile := task.Agent // the sessions' locks are held: no viewModel
	if len(rts) > 0 {
		profile = rts[len(rts)-1].agent()
	}
	v := s.withModel(newTaskView(task, sessions), profile)
	if len(rts) > 0 {
		s.publishTask(rts[len(rts)-1])
	} else {
		s.publishTaskView(v)
	}
	s.log.Info("task updated", zap.String("task_id", task.ID), zap.String("state", task.State),
		zap.Bool("archived", task.ArchivedAt != nil))
	return v, nil
}

// DeleteTask removes a task with its history and, when the daemon made it,
// its work directory; a directory the user chose (task.create workdir) is
// never deleted. A task that is working or waiting to retry is refused:
// stop it first. Publishes task.deleted.
func (s *Service) DeleteTask(ctx context.Context, req DeleteTaskRequest) (DeleteTaskResult, error) {
	task, rts, unlock, err := s.taskSessions(ctx, req.TaskID)
	if err != nil {
		return DeleteTaskResult{}, err
	}
	if busy(rts) {
		unlock()
		return DeleteTaskResult{}, fmt.Errorf("%w: the task is still working (or waiting to retry); stop it before deleting it", ErrConflict)
	}
	if err := s.store.DeleteTask(ctx, task.ID); err != nil {
		unlock()
		if errors.Is(err, store.ErrNotFound) {
			return DeleteTaskResult{}, fmt.Errorf("%w: task %q", ErrNotFound, task.ID)
		}
		return DeleteTaskResult{}, fmt.Errorf("delete task: %w", storageErr(err))
	}
	var execs []Execution
	s.mu.Lock()
	for _, rt := range rts {
		delete(s.sessions, rt.sess.ID)
	}
	s.mu.Unlock()
	if f := s.cfg.Fleet; f != nil {
		for _, rt := range rts {
			f.Forget(rt.sess.ID) // its lease row went with it
		}
	}
	for _, rt := range rts {
		rt.gone = true
		s.stopIdleLocked(rt)
		s.stopReconcileLocked(rt)
		if rt.exec != nil {
			execs = append(execs, rt.exec)
			rt.exec = nil
		}
		rt.subs.closeAll()
	}
	unlock()
	for _, ex := range execs {
		if !s.goTurn(func() { _ = ex.Close() }) {
			_ = ex.Close()
		}
	}
	res := DeleteTaskResult{TaskID: task.ID, Workdir: task.Workdir}
	if own := filepath.Join(s.cfg.DataDir, "workspaces", task.ID); filepath.Clean(task.Workdir) == own {
		if err := os.RemoveAll(own); err != nil {
			s.log.Warn("task deleted; its workspace could not be removed", zap.String("task_id", task.ID), zap.Error(err))
		} else {
			res.WorkdirRemoved = true
		}
	}
	if payload, err := json.Marshal(map[string]any{"task_id": task.ID}); err == nil {
		s.tasks.publish(Notification{Action: "task.deleted", Payload: payload, At: s.now()})
	}
	s.log.Info("task deleted", zap.String("task_id", task.ID), zap.Bool("workdir_removed", res.WorkdirRemoved))
	return res, nil
}

// publishTaskView publishes task.updated for a task with no session runtime.
func (s *Service) publishTaskView(v TaskView) {
	if payload, err := encodeTaskUpdated(&v); err == nil {
		s.tasks.publish(Notification{Action: "task.updated", Payload: payload, At: s.now()})
	}
}
