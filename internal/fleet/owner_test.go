package fleet_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
)

// recorder is a fleet.Runner that records what it was asked.
type recorder struct {
	mu      sync.Mutex
	adopted []string
	lost    []string
	started []string
}

func (r *recorder) Adopt(_ context.Context, ids []string, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adopted = append(r.adopted, ids...)
	return nil
}

func (r *recorder) Disown(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lost = append(r.lost, id)
}

func (r *recorder) StartHanded(_ context.Context, id, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, id)
	return nil
}

func (r *recorder) ReleaseIdle(context.Context, []string) {}

func owner(t *testing.T, cfg fleet.OwnerConfig) *fleet.Owner {
	t.Helper()
	if cfg.Self == "" {
		cfg.Self = uuid.NewString()
	}
	if cfg.Clock == nil {
		cfg.Clock = quartz.NewMock(t) // the loop never ticks by itself: the test calls its steps
	}
	o, err := fleet.NewOwner(cfg)
	require.NoError(t, err)
	return o
}

// A claimed session stays this daemon's as long as it renews, past its
// lease; a dead owner's sessions are taken over once, by one taker, and
// the old owner learns it lost them at its next renewal.
func TestOwnerRenewsTakesOverAndLoses(t *testing.T) {
	p := pool(t)
	a := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Second})
	ra := &recorder{}
	a.Start(ra)
	defer func() { require.NoError(t, a.Close()) }()
	sessions := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	for _, s := range sessions {
		ok, fresh, err := a.Claim(t.Context(), s)
		require.NoError(t, err)
		require.True(t, ok)
		require.True(t, fresh)
		ok, fresh, err = a.Claim(t.Context(), s)
		require.NoError(t, err)
		require.True(t, ok && !fresh, "a second claim is the same lease")
	}
	b := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Second})
	rb := &recorder{}
	b.Start(rb)
	defer func() { require.NoError(t, b.Close()) }()
	ok, _, err := b.Claim(t.Context(), sessions[0])
	require.NoError(t, err)
	require.False(t, ok, "another daemon's current lease")

	// a renews for three lease lengths (the database's clock runs them):
	// nothing is taken from it.
	require.Never(t, func() bool {
		require.NoError(t, a.Renew(t.Context()))
		require.NoError(t, b.TakeOver(t.Context()))
		rb.mu.Lock()
		defer rb.mu.Unlock()
		return len(rb.adopted) > 0
	}, 3*time.Second, 200*time.Millisecond, "a renewing owner keeps its sessions")
	holder, err := b.Holder(t.Context(), sessions[1])
	require.NoError(t, err)
	require.Equal(t, a.Self(), holder)

	// a stops renewing (dies): b takes its sessions once its leases run out.
	require.Eventually(t, func() bool {
		require.NoError(t, b.TakeOver(t.Context()))
		rb.mu.Lock()
		defer rb.mu.Unlock()
		return len(rb.adopted) == len(sessions)
	}, 10*time.Second, 50*time.Millisecond)
	require.ElementsMatch(t, sessions, rb.adopted)
	require.True(t, b.Owns(sessions[2]))
	require.NoError(t, a.Renew(t.Context()))
	require.ElementsMatch(t, sessions, ra.lost, "the old owner drops what it lost")
	require.False(t, a.Owns(sessions[0]))
}

// A task handed to a daemon is started by it; if it dies first, the
// taker of its lease starts it.
func TestOwnerHandsATaskOver(t *testing.T) {
	p := pool(t)
	a := owner(t, fleet.OwnerConfig{Pool: p, Lease: time.Second})
	ra := &recorder{}
	a.Start(ra)
	defer func() { require.NoError(t, a.Close()) }()
	_, err := p.Exec(t.Context(), `INSERT INTO tasks (id, title, agent, workdir, state, created_at, updated_at) VALUES ('t1', 'x', 'mock', '', 'TODO', 'now', 'now')`)
	require.NoError(t, err)
	_, err = p.Exec(t.Context(), `INSERT INTO sessions (id, task_id, state, created_at, updated_at) VALUES ('s1', 't1', 'CREATED', 'now', 'now')`)
	require.NoError(t, err)
	dead := uuid.NewString()
	require.NoError(t, a.Hand(t.Context(), "s1", dead, "hello"))
	holder, err := a.Holder(t.Context(), "s1")
	require.NoError(t, err)
	require.Equal(t, dead, holder, "the lease is the chosen daemon's")
	require.NoError(t, a.StartHanded(t.Context()))
	require.Empty(t, ra.started, "not this daemon's to start")

	require.Eventually(t, func() bool {
		require.NoError(t, a.TakeOver(t.Context()))
		return a.Owns("s1")
	}, 10*time.Second, 50*time.Millisecond)
	require.NoError(t, a.StartHanded(t.Context()))
	require.Equal(t, []string{"s1"}, ra.started, "the taker starts it")
	var left int
	require.NoError(t, p.QueryRow(t.Context(), `SELECT count(*) FROM fleet_starts`).Scan(&left))
	require.Zero(t, left)
}
