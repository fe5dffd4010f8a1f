package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/test/daemontest"
)

// daemonRow is one daemon as the fleet panel shows it.
type daemonRow struct {
	ID, Health, Self, Addr, Load, Profiles, Badge string
}

const fleetRowsJS = `[...document.querySelectorAll('#fleet-list .daemon')].map((r) => ({
	ID: r.dataset.daemonId, Health: r.dataset.health, Self: r.dataset.self,
	Addr: r.querySelector('.daemon-addr').textContent, Load: r.querySelector('.daemon-load-text').textContent,
	Profiles: r.querySelector('.daemon-profiles').textContent, Badge: r.querySelector('.daemon-health').textContent,
}))`

func readDaemonID(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "daemon-id"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// The header's Daemons button opens the fleet panel: on SQLite this daemon
// alone, marked, healthy, with its address, its profiles and its load,
// which follows a running task while the panel is open; closing it stops
// the refreshes.
func TestFleetPanelShowsThisDaemon(t *testing.T) {
	dir := t.TempDir()
	d := daemontest.Start(t, dir, "--max-agents", "3")
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))
	tb.waitJS("connected", `document.getElementById('conn').dataset.state === 'ok'`, 10*time.Second)
	tb.click("fleet-btn")
	tb.waitJS("the panel lists one daemon", `document.getElementById('fleet-dialog').open && document.querySelectorAll('#fleet-list .daemon').length === 1`, 10*time.Second)
	rows := eval[[]daemonRow](tb, fleetRowsJS)
	r := rows[0]
	if r.ID != readDaemonID(t, dir) || r.Self != "true" || r.Health != "healthy" || r.Badge != "Healthy" {
		t.Errorf("the daemon's row: %+v", r)
	}
	if r.Addr != strings.TrimPrefix(d.URL, "http://") || r.Load != "0 / 3 agents" || !strings.Contains(r.Profiles, "mock") {
		t.Errorf("address, load or profiles: %+v", r)
	}
	if s := eval[string](tb, `document.getElementById('fleet-summary').textContent`); s != "1 daemon, all healthy" {
		t.Errorf("the summary says %q", s)
	}
	if !eval[bool](tb, `!!document.querySelector('#fleet-list .daemon.self .daemon-self')`) {
		t.Error("this daemon is not marked")
	}

	// A running agent shows as load while the panel stays open.
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/slow:6000 busy", "agent": "mock"})
	tb.waitJS("the load follows the running agent", `document.querySelector('#fleet-list .daemon-load-text').textContent === '1 / 3 agents'`, 15*time.Second)
	tb.screenshotPage("fleet-panel.png")
	s.Until(30*time.Second, daemontest.TurnEnded)

	tb.click("fleet-close")
	tb.waitJS("closed, not polling", `!document.getElementById('fleet-dialog').open && document.getElementById('fleet-dialog').dataset.polling === 'false'`, 5*time.Second)
}

// Health as the panel judges it from the lease: a heartbeat more than half
// a lease old is late; an expired or stopped member is gone.
func TestFleetHealthOfMembers(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 800, 600)
	tb.open(d.PageURL(""))
	got := evalAwait[[]string](tb, `import('./fleet.js').then(({ healthOf }) => {
		const now = Date.parse('2026-12-02T03:00:20Z');
		const m = (health, beat, expires) => ({ health, last_heartbeat: beat, expires_at: expires });
		return [
			healthOf(m('live', '2026-12-02T03:00:15Z', '2026-12-02T03:00:30Z'), now),
			healthOf(m('live', '2026-12-02T03:00:10Z', '2026-12-02T03:00:25Z'), now),
			healthOf(m('expired', '2026-12-02T02:59:50Z', '2026-12-02T03:00:05Z'), now),
			healthOf(m('stopped', '2026-12-02T02:50:20Z', '2026-12-02T02:50:20Z'), now),
			healthOf(m('live', '2026-12-02T03:00:20Z', '2026-12-02T03:00:20Z'), now),
		].map((h) => h.key + ':' + h.detail);
	})`)
	want := []string{"healthy:", "late:last heartbeat 10 s ago", "gone:no heartbeat for 30 s", "gone:shut down 10 min ago", "healthy:"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("healthOf: %q, want %q", got, want)
	}
}

// On PostgreSQL (--fleet) the panel lists every daemon sharing the
// database, the one serving the page marked: one that shuts down is gone,
// one that is killed turns late and then gone as its lease runs out (by
// the database's clock).
func TestFleetPanelOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	// A 6s lease: late from 3s after the last heartbeat (the panel asks
	// every 2s), gone at 6s.
	fleet := []string{"--store", dsn, "--fleet", "--fleet-lease", "6s"}
	a := daemontest.Start(t, dirA, fleet...)
	b := daemontest.Start(t, dirB, fleet...)
	c := daemontest.Start(t, dirC, append(fleet, "--max-agents", "2")...)
	idA, idB, idC := readDaemonID(t, dirA), readDaemonID(t, dirB), readDaemonID(t, dirC)

	tb := newBrowser(t, 1280, 900)
	tb.open(a.PageURL(""))
	tb.waitJS("connected", `document.getElementById('conn').dataset.state === 'ok'`, 10*time.Second)
	tb.click("fleet-btn")
	rowIs := func(id, health string) string {
		return fmt.Sprintf(`(document.querySelector('#fleet-list .daemon[data-daemon-id=%q]') || {dataset: {}}).dataset.health === %q`, id, health)
	}
	tb.waitJS("three healthy daemons", rowIs(idA, "healthy")+" && "+rowIs(idB, "healthy")+" && "+rowIs(idC, "healthy"), 15*time.Second)
	for _, r := range eval[[]daemonRow](tb, fleetRowsJS) {
		if (r.ID == idA) != (r.Self == "true") {
			t.Errorf("only the page's daemon is marked: %+v", r)
		}
		if r.ID == idC && r.Load != "0 / 2 agents" {
			t.Errorf("the third daemon's load: %q", r.Load)
		}
	}
	if s := eval[string](tb, `document.getElementById('fleet-summary').textContent`); s != "3 daemons, all healthy" {
		t.Errorf("the summary says %q", s)
	}

	b.Stop(t)
	tb.waitJS("the stopped daemon is gone", rowIs(idB, "gone"), 15*time.Second)
	c.Kill() // SIGKILL: no goodbye
	seen := fmt.Sprintf(`(window.__seenC = window.__seenC || new Set()).add((document.querySelector('#fleet-list .daemon[data-daemon-id=%q]') || {dataset: {}}).dataset.health)`, idC)
	tb.waitJS("the killed daemon turns late", `(`+seen+`, window.__seenC.has('late') || window.__seenC.has('gone'))`, 20*time.Second)
	tb.screenshotPage("fleet-panel-late.png")
	tb.waitJS("then gone when its lease runs out", `(`+seen+`, window.__seenC.has('gone'))`, 30*time.Second)
	if states := eval[[]string](tb, `[...window.__seenC]`); !slices.Contains(states, "late") {
		t.Errorf("the killed daemon went %v: never late", states)
	}
	if s := eval[string](tb, `document.getElementById('fleet-summary').textContent`); s != "3 daemons · 2 gone" {
		t.Errorf("the summary says %q", s)
	}
}
