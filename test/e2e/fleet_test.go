package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

type fleetList struct {
	SelfID  string `json:"self_id"`
	Daemons []struct {
		ID        string   `json:"id"`
		Addr      string   `json:"addr"`
		Health    string   `json:"health"`
		Self      bool     `json:"self"`
		Load      int      `json:"load"`
		MaxAgents int      `json:"max_agents"`
		Profiles  []string `json:"profiles"`
	} `json:"daemons"`
}

func listFleet(t *testing.T, c *daemontest.Client) fleetList {
	t.Helper()
	var l fleetList
	require.NoError(t, json.Unmarshal(c.Call("fleet.list", map[string]any{}), &l))
	return l
}

func daemonID(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "daemon-id"))
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// On SQLite the fleet is this daemon alone, with the id its data dir keeps
// across restarts.
func TestFleetOfOneOnSQLite(t *testing.T) {
	dir := t.TempDir()
	d := daemontest.Start(t, dir, "--max-agents", "3")
	l := listFleet(t, daemontest.Dial(t, d))
	require.Len(t, l.Daemons, 1)
	m := l.Daemons[0]
	id := daemonID(t, dir)
	assert.Equal(t, id, m.ID)
	assert.Equal(t, id, l.SelfID)
	assert.True(t, m.Self)
	assert.Equal(t, "live", m.Health)
	assert.Equal(t, 3, m.MaxAgents)
	assert.Contains(t, m.Profiles, "mock")
	assert.Equal(t, strings.TrimPrefix(d.URL, "http://"), m.Addr)
	d.Stop(t)

	d = daemontest.Start(t, dir, "--advertise-addr", "127.0.0.1:9999")
	l = listFleet(t, daemontest.Dial(t, d))
	require.Len(t, l.Daemons, 1)
	assert.Equal(t, id, l.Daemons[0].ID, "a restart keeps the daemon id")
	assert.Equal(t, "127.0.0.1:9999", l.Daemons[0].Addr)
}

// On PostgreSQL every daemon that used the database is listed: one that
// shut down as stopped, one that was killed as live until its lease runs
// out by the database's clock, then expired.
func TestFleetMembersOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	a := daemontest.Start(t, dirA, "--store", dsn)
	l := listFleet(t, daemontest.Dial(t, a))
	require.Len(t, l.Daemons, 1)
	assert.Equal(t, daemonID(t, dirA), l.SelfID)
	assert.Equal(t, "live", l.Daemons[0].Health)
	a.Stop(t)

	b := daemontest.Start(t, dirB, "--store", dsn)
	health := func(l fleetList) map[string]string {
		out := map[string]string{}
		for _, m := range l.Daemons {
			out[m.ID] = m.Health
		}
		return out
	}
	l = listFleet(t, daemontest.Dial(t, b))
	assert.Equal(t, map[string]string{daemonID(t, dirA): "stopped", daemonID(t, dirB): "live"}, health(l))
	assert.Equal(t, daemonID(t, dirB), l.Daemons[0].ID, "live first")
	b.Kill() // SIGKILL: no goodbye

	c := daemontest.Dial(t, daemontest.Start(t, dirC, "--store", dsn))
	l = listFleet(t, c)
	assert.Equal(t, "live", health(l)[daemonID(t, dirB)], "a killed daemon is live until its lease runs out")
	require.Eventually(t, func() bool {
		return health(listFleet(t, c))[daemonID(t, dirB)] == "expired"
	}, 40*time.Second, 250*time.Millisecond, "the killed daemon's lease expires (15s)")
	assert.Equal(t, "live", health(listFleet(t, c))[daemonID(t, dirC)])
}
