package fleet

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// Three daemons on one database see each other live; a task on each runs
// its turn; a SIGKILLed one is expired for the others once its lease runs
// out, and a restart on its data dir brings it back with the same id.
func TestFleetSmoke(t *testing.T) {
	f := Start(t, Options{N: 3})
	c0 := f.Dial(t, 0)
	ms := Members(t, c0)
	require.Len(t, ms, 3)
	for i := range 3 {
		m := ms[f.D(i).ID]
		assert.Equal(t, "live", m.Health, "daemon %d", i)
		assert.Equal(t, i == 0, m.Self)
		assert.Contains(t, m.Profiles, "mock")
	}
	for i := range 3 {
		s := Task(t, f.Dial(t, i), fmt.Sprintf("hello from %d", i), nil)
		done := s.Until(30*time.Second, daemontest.TurnDone)
		assert.Equal(t, "end_turn", done.Body().StopReason, "daemon %d", i)
	}

	f.Kill(2)
	took := WaitFor(t, f.Opts.Lease+10*time.Second, "the killed daemon to expire", func() (bool, string) {
		h := Members(t, c0)[f.D(2).ID].Health
		return h == "expired", h
	})
	t.Logf("a SIGKILLed daemon was expired %v after the kill (lease %v)", took.Round(10*time.Millisecond), f.Opts.Lease)
	assert.Equal(t, "live", Members(t, c0)[f.D(1).ID].Health)

	id := f.D(2).ID
	f.Restart(t, 2)
	assert.Equal(t, id, f.D(2).ID)
	assert.Equal(t, "live", Members(t, c0)[id].Health)
}
