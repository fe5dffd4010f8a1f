package wsapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// task.update and task.delete: the answer carries the result, a missing
// task is NOT_FOUND, a working one a CONFLICT, a blank title or no task_id
// a validation error naming the field.
func TestTaskUpdateAndDelete(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, nil)
	c := e.dial(t)
	var res struct {
		Task orchestrator.TaskView `json:"task"`
	}
	c.ok(c.call(ActionTaskUpdate, map[string]any{"task_id": "t2", "title": "renamed", "done": true}), &res)
	assert.Equal(t, "renamed", res.Task.Title)
	assert.Equal(t, "DONE", res.Task.State)

	er := c.errorOf(c.call(ActionTaskUpdate, map[string]any{"task_id": "t2", "title": "  "}), CodeValidationError)
	assert.Equal(t, "title", er.Details["field"])
	er = c.errorOf(c.call(ActionTaskUpdate, map[string]any{"title": "x"}), CodeValidationError)
	assert.Equal(t, "task_id", er.Details["field"])
	er = c.errorOf(c.call(ActionTaskUpdate, map[string]any{"task_id": "t2", "done": "yes"}), CodeValidationError)
	assert.Equal(t, "done", er.Details["field"])
	c.errorOf(c.call(ActionTaskUpdate, map[string]any{"task_id": "t1", "done": true}), CodeConflict)
	c.errorOf(c.call(ActionTaskUpdate, map[string]any{"task_id": "nope", "done": true}), CodeNotFound)

	var del orchestrator.DeleteTaskResult
	c.ok(c.call(ActionTaskDelete, map[string]any{"task_id": "t2"}), &del)
	assert.Equal(t, "t2", del.TaskID)
	c.errorOf(c.call(ActionTaskDelete, map[string]any{"task_id": "t2"}), CodeNotFound)
	er = c.errorOf(c.call(ActionTaskDelete, map[string]any{}), CodeValidationError)
	assert.Equal(t, "task_id", er.Details["field"])
	c.healthy()
}

// An orchestrator.FieldError reaches the client as VALIDATION_ERROR with
// the field and reason in details, so the page can point at the field.
func TestFieldErrorNamesTheField(t *testing.T) {
	t.Parallel()
	err := error(&orchestrator.FieldError{Field: "workdir", Reason: "not_found", Msg: `workdir "/x" does not exist`})
	e, public := toError(err)
	require.True(t, public)
	assert.Equal(t, CodeValidationError, e.Code)
	assert.Equal(t, map[string]any{"field": "workdir", "reason": "not_found"}, e.Details)
	assert.Contains(t, e.Message, `workdir "/x" does not exist`)
}
