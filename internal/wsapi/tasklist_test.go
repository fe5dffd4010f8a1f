package wsapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// task.list pages: {limit, cursor} in, {tasks, next_cursor} out; a bad
// limit is a typed validation error naming the field.
func TestTaskListPages(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, nil)
	c := e.dial(t)
	var page struct {
		Tasks      []orchestrator.TaskView `json:"tasks"`
		NextCursor *string                 `json:"next_cursor"`
	}
	c.ok(c.call(ActionTaskList, nil), &page)
	assert.Len(t, page.Tasks, 2, "no payload: the largest page")
	assert.Nil(t, page.NextCursor, "no next_cursor after the last page")

	c.ok(c.call(ActionTaskList, map[string]any{"limit": 1}), &page)
	require.Len(t, page.Tasks, 1)
	require.NotNil(t, page.NextCursor)
	assert.Equal(t, "t1", page.Tasks[0].ID)
	cursor := *page.NextCursor
	page.NextCursor = nil
	c.ok(c.call(ActionTaskList, map[string]any{"limit": 1, "cursor": cursor}), &page)
	require.Len(t, page.Tasks, 1)
	assert.Equal(t, "t2", page.Tasks[0].ID)
	e.svc.mu.Lock()
	assert.Equal(t, orchestrator.ListTasksRequest{Limit: 1, Cursor: cursor}, e.svc.lastList)
	e.svc.mu.Unlock()

	for _, bad := range []any{-1, orchestrator.MaxTaskPage + 1, "ten"} {
		er := c.errorOf(c.call(ActionTaskList, map[string]any{"limit": bad}), CodeValidationError)
		assert.Equal(t, "limit", er.Details["field"], "limit %v", bad)
	}
	c.healthy()
}
