package fleet_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
)

// A task handed to a daemon starts on the NOTIFY of it: this daemon's
// clock never ticks (a mock), so its StartPoll backstop never runs, and
// without the word the task would wait for it.
func TestOwnerStartsAHandedTaskOnItsNotify(t *testing.T) {
	p := pool(t)
	for i := range 2 {
		_, err := p.Exec(t.Context(), `INSERT INTO tasks (id, title, agent, workdir, state, created_at, updated_at) VALUES ($1, 'x', 'mock', '', 'TODO', 'now', 'now')`, fmt.Sprint("t", i))
		require.NoError(t, err)
		_, err = p.Exec(t.Context(), `INSERT INTO sessions (id, task_id, state, created_at, updated_at) VALUES ($1, $2, 'CREATED', 'now', 'now')`, fmt.Sprint("s", i), fmt.Sprint("t", i))
		require.NoError(t, err)
	}
	b := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Minute, StartPoll: time.Hour})
	rb := &recorder{}
	b.Start(rb)
	defer func() { require.NoError(t, b.Close()) }()
	a := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Minute})
	started := func(id string) func() bool {
		return func() bool {
			rb.mu.Lock()
			defer rb.mu.Unlock()
			return slices.Contains(rb.started, id)
		}
	}
	// The first may be found when b's listener connects (it looks once
	// then); the second can only be heard of.
	require.NoError(t, a.Hand(t.Context(), "s0", b.Self(), "hello"))
	require.Eventually(t, started("s0"), 10*time.Second, 10*time.Millisecond)
	handed := time.Now()
	require.NoError(t, a.Hand(t.Context(), "s1", b.Self(), "hello again"))
	require.Eventually(t, started("s1"), 10*time.Second, time.Millisecond, "started on the NOTIFY, not at a poll")
	t.Logf("handed → started: %v", time.Since(handed).Round(time.Millisecond))
	rb.mu.Lock()
	defer rb.mu.Unlock()
	require.Equal(t, []string{"s0", "s1"}, rb.started, "each once")
}
