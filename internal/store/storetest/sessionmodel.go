package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// testSessionModelSurvivesEventsAndReopen: the model an agent reported is
// read back by every session reader, a session replace (AppendEvent) keeps
// it, and so does a restart.
func testSessionModelSurvivesEventsAndReopen(t *testing.T, f Factory) {
	t.Parallel()
	open := f.Database(t)
	db := open(t)
	ctx := t.Context()
	_, sess := seed(t, db, "t1", "s1")
	require.NoError(t, db.SetSessionModel(ctx, "s1", "gpt-5.4"))
	require.ErrorIs(t, db.SetSessionModel(ctx, "nope", "gpt-5.4"), store.ErrNotFound)

	next := sess
	next.State = store.SessionRunning
	next.Model = "" // a replace never writes the model
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{
		Event: event("s1", 1, "session.state_changed", map[string]any{"state": store.SessionRunning}), Session: &next,
	}))

	check := func(db Store) {
		t.Helper()
		got, err := db.GetSession(ctx, "s1")
		require.NoError(t, err)
		require.Equal(t, "gpt-5.4", got.Model)
		require.Equal(t, store.SessionRunning, got.State)
		list, err := db.ListSessions(ctx, "t1")
		require.NoError(t, err)
		require.Equal(t, "gpt-5.4", list[0].Model)
		page, _, err := db.ListTaskPage(ctx, 0, "")
		require.NoError(t, err)
		require.Equal(t, "gpt-5.4", page[0].Sessions[0].Model)
		all, err := db.ListAllSessions(ctx)
		require.NoError(t, err)
		require.Equal(t, "gpt-5.4", all[0].Model)
	}
	check(db)
	require.NoError(t, db.Close())
	check(open(t))
}
