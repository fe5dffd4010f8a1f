package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Paging walks every task once, in ListTasks' order (ties on created_at
// included), each with its sessions oldest first.
func testListTaskPageWalksEveryTaskInOrder(t *testing.T, f Factory) {
	t.Parallel()
	db := f.New(t)
	ctx := t.Context()
	for i := range 25 {
		id := fmt.Sprintf("t%02d", i)
		require.NoError(t, db.CreateTask(ctx, newTask(id, i/3), newSession("s"+id, id, i/3))) // three share each created_at
		if i%4 == 0 {
			require.NoError(t, db.CreateSession(ctx, newSession("s2"+id, id, 100+i)))
		}
	}
	require.NoError(t, db.CreateTask(ctx, newTask("bare", 1), store.Session{}))
	all, err := db.ListTasks(ctx)
	require.NoError(t, err)

	var walked []string
	cursor, pages := "", 0
	for {
		page, next, err := db.ListTaskPage(ctx, 10, cursor)
		require.NoError(t, err)
		pages++
		for _, p := range page {
			walked = append(walked, p.Task.ID)
			want, err := db.ListSessions(ctx, p.Task.ID)
			require.NoError(t, err)
			require.Equal(t, want, p.Sessions, p.Task.ID)
			got, err := db.GetTask(ctx, p.Task.ID)
			require.NoError(t, err)
			require.Equal(t, got, p.Task)
		}
		if next == "" {
			break
		}
		require.Len(t, page, 10, "only the last page is short")
		cursor = next
	}
	require.Equal(t, 3, pages)
	var want []string
	for _, x := range all {
		want = append(want, x.ID)
	}
	require.Equal(t, want, walked)

	one, next, err := db.ListTaskPage(ctx, 0, "")
	require.NoError(t, err)
	require.Len(t, one, 26, "0 is the largest page")
	require.Empty(t, next)

	_, _, err = db.ListTaskPage(ctx, 10, "not-a-cursor")
	require.ErrorIs(t, err, store.ErrInvalid)
}
