package fleet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

// gateScale is the daemons' --retry-scale here: the gate's first probe
// after 1s, its intervals 2, 4, 8, 12s ÷ the fleet's waiting sessions but
// at least 0.4s apart, the release within 1s.
const gateScale = 0.2

// One overload gate for the whole fleet (issue 17), at make-test size
// (`make overload` runs the full 3 × 300 through a 60s wall in process):
// three daemons, six sessions each, one provider behind a wall of 529s.
// Every daemon's sessions wait on the fleet's gate, probes reach the
// provider at most one per interval for all of them, nobody sees a red
// banner, and when the wall falls every daemon sends its sessions again
// within 5s. (Their replies then take as long as 15 agent processes take to
// start on the machine: on this project's loaded 2-core VM up to ten
// seconds more, so that bound is generous and the time is logged; the
// in-process benchmark measures the return itself.)
func TestFleetOverloadWallOneGate(t *testing.T) {
	const perDaemon = 5
	wall := t.TempDir() // the provider: one wall for every daemon's mock agents
	require.NoError(t, mockagent.SetWall(wall, mockagent.Wall{Up: true}))
	agents := filepath.Join(t.TempDir(), "agents.json")
	prof, err := json.Marshal(map[string]any{"agents": map[string]any{
		"mock": map[string]any{"command": daemontest.Binary, "args": []string{"mock-agent", "--state-dir", wall}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(agents, prof, 0o600))
	f := Start(t, Options{N: 3, MaxAgents: perDaemon + 2,
		Args: []string{"--agents", agents, "--retry-scale", fmt.Sprint(gateScale)}})

	type sess struct {
		*daemontest.Session
		daemon int
	}
	var ss []sess
	byTask := map[string]int{}
	for d := range 3 {
		for i := range perDaemon {
			// One connection per session: a Session reads its client's feed alone.
			s := Task(t, f.Dial(t, d), fmt.Sprintf("/wall job %d.%d", d, i), nil)
			ss = append(ss, sess{s, d})
			byTask[s.TaskID] = d
		}
	}
	for _, s := range ss {
		s.Until(60*time.Second, daemontest.IsNotice)
	}
	watchedFromAnotherDaemon(t, f)
	// The wall stands while the fleet's gate probes and backs off.
	WaitFor(t, 90*time.Second, "the fleet's gate to fail 3 probes", func() (bool, string) {
		var failed int
		err := f.Pool.QueryRow(t.Context(), `SELECT coalesce(max(failed_probes), -1) FROM fleet_gates`).Scan(&failed)
		return err == nil && failed >= 3, fmt.Sprintf("failed probes %d (%v)", failed, err)
	})
	assert.Equal(t, 1, f.Count(t, `SELECT count(*) FROM fleet_gates`), "one gate for the fleet")
	assert.Equal(t, 1, f.Count(t, `SELECT count(*) FROM fleet_leases WHERE kind = 'gate' AND expires_at > now()`), "one probe right")
	var waiting int
	require.NoError(t, f.Pool.QueryRow(t.Context(), `SELECT coalesce(sum(waiting), 0) FROM fleet_gate_waiters`).Scan(&waiting))
	assert.GreaterOrEqual(t, waiting, 3*perDaemon-3, "every daemon's sessions wait on it")

	wallEnd := time.Now()
	require.NoError(t, mockagent.SetWall(wall, mockagent.Wall{Up: false}))
	// Each session's events are read as they come (a goroutine per
	// session and its connection), so their times are the client's.
	sent, back := make([]time.Duration, len(ss)), make([]time.Duration, len(ss))
	stops, banners := make([]string, len(ss)), make([]bool, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Go(func() {
			e := s.Until(90*time.Second, daemontest.TurnEnded)
			stops[i], back[i] = e.Body().StopReason, e.At.Sub(wallEnd)
			var started time.Time
			for _, seen := range s.Seen {
				banners[i] = banners[i] || daemontest.IsBanner(seen)
				if seen.Action == "session.turn.started" {
					started = seen.At
				}
			}
			sent[i] = started.Sub(wallEnd)
		})
	}
	wg.Wait()
	for i, s := range ss {
		assert.Equal(t, "end_turn", stops[i], "daemon %d session %s", s.daemon, s.ID)
		assert.False(t, banners[i], "no red banner (daemon %d)", s.daemon)
	}
	sortDur(sent)
	sortDur(back)
	t.Logf("wall end → turn sent again: min %v, p50 %v, max %v; → reply: min %v, p50 %v, max %v (%d sessions on 3 daemons)",
		sent[0].Round(time.Millisecond), sent[len(sent)/2].Round(time.Millisecond), sent[len(sent)-1].Round(time.Millisecond),
		back[0].Round(time.Millisecond), back[len(back)/2].Round(time.Millisecond), back[len(back)-1].Round(time.Millisecond), len(back))
	assert.Less(t, sent[len(sent)-1], 5*time.Second, "every daemon sends its sessions again within 5s of the wall's end")
	assert.Less(t, back[len(back)-1], 60*time.Second, "and they reply")

	// What the provider saw during the wall: each session's first prompt,
	// then probes, at most one per interval for the whole fleet.
	reqs, err := mockagent.WallRequests(wall)
	require.NoError(t, err)
	seen := map[string]bool{}
	var retries []mockagent.WallRequest
	for _, r := range reqs {
		first := !seen[r.Task]
		seen[r.Task] = true
		if !first && r.At.Before(wallEnd) {
			retries = append(retries, r)
		}
	}
	probers := map[int]bool{}
	minGap := time.Duration(-1)
	for i, r := range retries {
		probers[byTask[r.Task]] = true
		if i > 0 {
			if gap := r.At.Sub(retries[i-1].At); minGap < 0 || gap < minGap {
				minGap = gap
			}
		}
	}
	t.Logf("during the wall: %d requests, %d of them retries (probes) from %d daemon(s), smallest gap %v",
		len(reqs)-len(ss)-countAfter(reqs, wallEnd), len(retries), len(probers), minGap.Round(time.Millisecond))
	require.GreaterOrEqual(t, len(retries), 3)
	// min_probe_interval is 2s × 0.2; a little slack for the agents' own
	// start-up between the gate's decision and the provider's log.
	assert.GreaterOrEqual(t, minGap, 300*time.Millisecond, "at most one probe per interval fleet-wide")
	WaitFor(t, 10*time.Second, "the fleet's gate row to go", func() (bool, string) {
		n := f.Count(t, `SELECT count(*) FROM fleet_gates`)
		return n == 0, fmt.Sprint(n, " open")
	})
}

// watchedFromAnotherDaemon: a waiting session of daemon 1 that only a
// client on daemon 0 watches has its notice follow the fleet's gate there
// (daemon 1 hears of the watch from daemon 0's ask for its marks): the
// next check it names moves on as the probes fail.
func watchedFromAnotherDaemon(t *testing.T, f *Fleet) {
	t.Helper()
	c1 := f.Dial(t, 1)
	lone := Task(t, c1, "/wall watched from daemon 0", nil)
	ownedBy(t, f, lone.ID, f.D(1))
	lone.Until(60*time.Second, daemontest.IsNotice)
	c1.Call("session.unsubscribe", map[string]any{"session_id": lone.ID}) // nobody watches it on daemon 1
	var snap daemontest.SubscribeResult
	require.NoError(t, json.Unmarshal(f.Dial(t, 0).Call("session.subscribe", map[string]any{"session_id": lone.ID}), &snap))
	var was any
	for _, m := range snap.Messages {
		if m.Metadata["kind"] == "retry_notice" {
			was = m.Metadata["retry_at"]
		}
	}
	require.NotNil(t, was, "the snapshot has the notice")
	fromA := daemontest.Follow(t, f.Dial(t, 0), lone.TaskID, lone.ID, snap.LastSeq)
	moved := fromA.Until(60*time.Second, func(e daemontest.Event) bool {
		return daemontest.IsNotice(e) && e.Body().Message.Metadata["retry_at"] != was
	})
	t.Logf("daemon 0's watcher saw daemon 1's notice move from %v to %v", was, moved.Body().Message.Metadata["retry_at"])
}

func sortDur(ds []time.Duration) { sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] }) }

func countAfter(reqs []mockagent.WallRequest, t time.Time) int {
	n := 0
	for _, r := range reqs {
		if !r.At.Before(t) {
			n++
		}
	}
	return n
}
