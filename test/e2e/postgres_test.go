package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

// migrateStore runs `orchestratord migrate-store` and returns its exit
// code and output.
func migrateStore(t *testing.T, from, to string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, daemontest.Binary, "migrate-store", "--from", from, "--to", to).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "migrate-store: %s", out)
		return ee.ExitCode(), string(out)
	}
	return 0, string(out)
}

// A daemon on SQLite, moved with migrate-store, carries on on PostgreSQL:
// the history replays whole from another data dir's daemon (so it comes
// from the database, not the file), and new turns stream on.
func TestMoveToPostgresAndCarryOn(t *testing.T) {
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	d := daemontest.Start(t, dir)
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "hello there", "agent": "mock"})
	s.Until(20*time.Second, daemontest.TurnDone)
	s.Until(5*time.Second, func(e daemontest.Event) bool {
		return e.Action == "session.state_changed" && e.Body().State == "WAITING_FOR_INPUT"
	})

	// Not while the daemon runs: the data dir is locked.
	code, out := migrateStore(t, "sqlite:"+dir, dsn)
	require.NotZero(t, code, out)
	d.Stop(t)

	code, out = migrateStore(t, "sqlite:"+dir, dsn)
	require.Zero(t, code, out)
	assert.Contains(t, out, "1 tasks, 1 sessions")
	assert.NotContains(t, out, "password")

	// Twice is refused: the target is no longer empty.
	code, out = migrateStore(t, "sqlite:"+dir, dsn)
	require.NotZero(t, code)
	assert.Contains(t, out, "not empty")

	d2 := daemontest.Start(t, t.TempDir(), "--store", dsn)
	c2 := daemontest.Dial(t, d2)
	var res daemontest.SubscribeResult
	require.NoError(t, json.Unmarshal(c2.Call("session.subscribe", map[string]any{"session_id": s.ID, "after_seq": 0}), &res))
	require.Len(t, res.Events, len(s.Seen), "the full history is in PostgreSQL")
	for i := range s.Seen {
		assert.Equal(t, s.Seen[i].Seq, res.Events[i].Seq)
		assert.JSONEq(t, string(s.Seen[i].Payload), string(res.Events[i].Payload))
	}

	s2 := daemontest.Follow(t, c2, s.TaskID, s.ID, res.Events[len(res.Events)-1].Seq)
	c2.Call("session.prompt", map[string]any{"session_id": s.ID, "text": "and on postgres"})
	done := s2.Until(20*time.Second, daemontest.TurnDone)
	assert.Equal(t, "end_turn", done.Body().StopReason)
	for i, e := range s2.Seen {
		require.Equal(t, int64(len(s.Seen)+i+1), e.Seq, "the log continues without a gap")
	}
	snap := s2.Snapshot()
	var texts []string
	for _, m := range snap.Messages {
		texts = append(texts, m.Role+": "+m.Text)
	}
	assert.Contains(t, strings.Join(texts, "\n"), "user: and on postgres")
}

func TestServeRefusesAnUnknownStore(t *testing.T) {
	code, stderr := runServe(t, t.TempDir(), "--store", "mysql://x")
	require.NotZero(t, code)
	assert.Contains(t, stderr, "--store must be sqlite or a postgres:// URL")
}

// One daemon per database: a second one, from another data dir, is
// refused with the holder named; once the first stops, it starts.
func TestSecondDaemonOnOneDatabaseIsRefused(t *testing.T) {
	dsn := pgtest.DSN(t)
	d := daemontest.Start(t, t.TempDir(), "--store", dsn)
	code, stderr := runServe(t, t.TempDir(), "--store", dsn)
	require.NotZero(t, code)
	assert.Contains(t, stderr, "in use by another orchestratord")
	assert.Contains(t, stderr, "pid "+strconv.Itoa(d.PID()))
	d.Stop(t)
	d2 := daemontest.Start(t, t.TempDir(), "--store", dsn)
	d2.Stop(t)
}
