package wsapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/fleet"
)

type fakeFleet struct {
	members []fleet.Member
	err     error
}

func (f fakeFleet) Members(context.Context) ([]fleet.Member, error) { return f.members, f.err }

// fleet.list: the daemons with their health, load and profiles; the
// caller's own id; live_only filters; the typed errors.
func TestFleetList(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	members := []fleet.Member{
		{ID: "a", Addr: "127.0.0.1:7001", Health: fleet.HealthLive, Self: true, Load: 2, MaxAgents: 8, Profiles: []string{"claude", "mock"},
			StartedAt: at, LastHeartbeat: at.Add(time.Minute), ExpiresAt: at.Add(time.Minute + 15*time.Second)},
		{ID: "b", Addr: "127.0.0.1:7002", Health: fleet.HealthExpired, Load: 0, MaxAgents: 4, Profiles: []string{}},
	}
	e := newTestEnv(t, func(c *Config) { c.Fleet = fakeFleet{members: members} })
	c := e.dial(t)
	var got struct {
		SelfID  string           `json:"self_id"`
		Daemons []map[string]any `json:"daemons"`
	}
	c.ok(c.call(ActionFleetList, nil), &got)
	assert.Equal(t, "a", got.SelfID)
	require.Len(t, got.Daemons, 2)
	d := got.Daemons[0]
	assert.Equal(t, "a", d["id"])
	assert.Equal(t, "127.0.0.1:7001", d["addr"])
	assert.Equal(t, "live", d["health"])
	assert.Equal(t, float64(2), d["load"])
	assert.Equal(t, float64(8), d["max_agents"])
	assert.Equal(t, []any{"claude", "mock"}, d["profiles"])
	assert.Equal(t, "2026-12-02T00:01:00Z", d["last_heartbeat"])
	assert.Equal(t, "expired", got.Daemons[1]["health"])

	c.ok(c.call(ActionFleetList, map[string]any{"live_only": true}), &got)
	require.Len(t, got.Daemons, 1)
	assert.Equal(t, "a", got.Daemons[0]["id"])

	er := c.errorOf(c.call(ActionFleetList, map[string]any{"live_only": "yes"}), CodeValidationError)
	assert.Equal(t, "live_only", er.Details["field"])
	c.errorOf(c.call(ActionFleetList, []int{1}), CodeValidationError)
	c.healthy()
}

func TestFleetListErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fleet   fleet.Lister
		code    string
		message string
	}{
		"database unreachable": {fakeFleet{err: fmt.Errorf("%w: dial tcp 127.0.0.1:5432: connection refused", fleet.ErrUnavailable)},
			CodeUnavailable, "database unreachable"},
		"no membership":  {nil, CodeUnavailable, "no fleet membership"},
		"other failures": {fakeFleet{err: errors.New("SELECT secret FROM x")}, CodeInternalError, errInternalMessage},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t, func(c *Config) { c.Fleet = tc.fleet })
			c := e.dial(t)
			er := c.errorOf(c.call(ActionFleetList, nil), tc.code)
			assert.Contains(t, er.Message, tc.message)
			assert.NotContains(t, er.Message, "5432", "the cause is logged, not sent")
			assert.NotContains(t, er.Message, "secret")
			c.healthy()
		})
	}
}
