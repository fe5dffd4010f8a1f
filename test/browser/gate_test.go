package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// gateConfig opens the "mock" gate on the second failing session and keeps
// it open for 5s: long enough to see, short enough for a test. The
// sessions' own retry (3s) comes due while the gate is open, so they join it.
func gateConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := "retry:\n" +
		"  overloaded: {delays: [3s], budget: 3}\n" +
		"  jitter: 0.01\n" +
		"overload:\n" +
		"  threshold: 2\n" +
		"  window: 30s\n" +
		"  first_probe: 5s\n" +
		"  backoff: [5s]\n" +
		"  release_window: 300ms\n" +
		"  deadline: 2h\n" // not reached here; the New task form names it
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type gateInfo struct {
	Key         string `json:"key"`
	State       string `json:"state"`
	NextProbeAt string `json:"next_probe_at"`
	Probing     bool   `json:"probing"`
	Waiting     int    `json:"waiting"`
	ProbesSent  int    `json:"probes_sent"`
}

type gatePanel struct {
	Hidden     bool
	Role       string
	Heading    string
	Keys       []string
	State      string
	Status     string
	Remaining  int
	Waiting    int
	Probes     int
	Text       string
	Now        int64
	PageWidth  int
	PanelWidth int
}

const gatePanelJS = `(() => {
	const r = document.getElementById('gates');
	const li = r.querySelector('.gate[data-key="mock"]');
	const q = (s) => li && li.querySelector(s);
	return {
		Hidden: r.hidden || r.getBoundingClientRect().height === 0,
		Role: r.getAttribute('role'),
		Heading: document.getElementById(r.getAttribute('aria-labelledby')).textContent,
		Keys: [...r.querySelectorAll('.gate')].map((x) => x.dataset.key),
		State: li ? li.dataset.state : '',
		Status: li ? q('.gate-status').textContent : '',
		Remaining: li ? Number(q('.gate-when').dataset.remaining) : -1,
		Waiting: li ? Number(q('.gate-waiting').dataset.count) : -1,
		Probes: li ? Number(q('.gate-probes').dataset.count) : -1,
		Text: r.textContent,
		Now: Date.now(),
		PageWidth: document.documentElement.scrollWidth,
		PanelWidth: Math.ceil(r.getBoundingClientRect().right),
	};
})()`

// mockGate asks the daemon (not the page) for the "mock" gate.
func mockGate(t *testing.T, c *daemontest.Client) gateInfo {
	t.Helper()
	var list struct {
		Enabled bool       `json:"enabled"`
		Gates   []gateInfo `json:"gates"`
	}
	if err := json.Unmarshal(c.Call("gate.list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	if !list.Enabled {
		t.Fatal("gate.list says the gate is off")
	}
	for _, g := range list.Gates {
		if g.Key == "mock" {
			return g
		}
	}
	return gateInfo{Key: "mock", State: "closed"}
}

// The Providers panel: hidden while healthy; when sessions of the mock
// agent fail with 529s and open its gate, it shows the gate with a countdown
// to the next check (from next_probe_at), the sessions waiting and the
// checks sent, in step with gate.list, through a reload; it says "Checking
// now…" during the probe and goes away when the probe succeeds. At 375px.
func TestGatePanelFollowsOverloadGate(t *testing.T) {
	d := startDaemon(t, gateConfig(t))
	c := daemontest.Dial(t, d)
	tb := newBrowser(t, 375, 812)
	tb.open(d.PageURL(""))
	if p := eval[gatePanel](tb, gatePanelJS); !p.Hidden || len(p.Keys) != 0 {
		t.Fatalf("with every provider healthy the panel shows %+v", p)
	}
	tb.waitJS("the daemon's deadline in the New task form",
		`document.getElementById('nt-gate-default').textContent === '2 h (default)'`, 10*time.Second)

	start := time.Now()
	var tasks []string
	for i := range 3 {
		var created struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		}
		raw := c.Call("task.create", map[string]any{"prompt": fmt.Sprintf("/overloaded:1 gated task %d", i+1), "agent": "mock"})
		if err := json.Unmarshal(raw, &created); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, created.Task.ID)
	}

	visible := `(() => { const r = document.getElementById('gates'); return !r.hidden && r.querySelector('.gate[data-key="mock"]') && r.getBoundingClientRect().height > 0; })()`
	tb.waitJS("the mock gate in the panel", visible, 10*time.Second)
	t.Logf("gate open in the panel after %s", time.Since(start).Round(time.Millisecond))

	// A reload while the gate is open: gate.list on connect brings it back.
	tb.do(chromedp.Reload())
	tb.waitJS("the page to reconnect", `document.querySelector('#conn[data-state="ok"]')`, 10*time.Second)
	tb.waitJS("the mock gate after the reload", visible, 5*time.Second)

	// Everything the panel shows from now on, through the probe and the close.
	eval[bool](tb, `(() => {
		window.__gateSeen = [];
		const r = document.getElementById('gates');
		const note = () => {
			const li = r.querySelector('.gate[data-key="mock"]');
			const s = r.hidden ? 'hidden' : li ? li.dataset.state + ':' + li.querySelector('.gate-status').textContent : 'empty';
			if (window.__gateSeen[window.__gateSeen.length - 1] !== s) window.__gateSeen.push(s);
		};
		new MutationObserver(note).observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
		return true;
	})()`)

	// The panel agrees with gate.list: same waiting count, same checks, and
	// a countdown that matches next_probe_at. (Read the daemon, then wait
	// for the page to show it: gate.updated may trail by a moment.)
	var g gateInfo
	var p gatePanel
	for deadline := time.Now().Add(5 * time.Second); ; {
		g = mockGate(t, c)
		if g.State != "open" || g.Probing {
			t.Fatalf("the gate is %s (probing %v) before its first check; the test is too slow", g.State, g.Probing)
		}
		p = eval[gatePanel](tb, gatePanelJS)
		if p.State == "open" && p.Waiting == g.Waiting && p.Probes == g.ProbesSent && g.Waiting >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the panel %+v does not match gate.list %+v", p, g)
		}
		tb.waitJS("a moment", `new Promise((r) => setTimeout(() => r(true), 100))`, time.Second)
	}
	if p.Role != "region" || p.Heading != "Providers" || len(p.Keys) != 1 {
		t.Errorf("panel role %q heading %q keys %v; want one gate in a region called Providers", p.Role, p.Heading, p.Keys)
	}
	next, err := time.Parse(time.RFC3339Nano, g.NextProbeAt)
	if err != nil {
		t.Fatalf("next_probe_at %q: %v", g.NextProbeAt, err)
	}
	want := int((next.UnixMilli() - p.Now + 999) / 1000)
	if abs(p.Remaining-want) > 1 || p.Remaining < 1 {
		t.Errorf("the panel counts down %ds; next_probe_at is %ds away", p.Remaining, want)
	}
	for _, s := range []string{"mock", "Overloaded", fmt.Sprintf("Next check in %ds", p.Remaining), fmt.Sprintf("%d sessions waiting", g.Waiting), "0 checks so far"} {
		if !strings.Contains(p.Text, s) {
			t.Errorf("panel %q lacks %q", p.Text, s)
		}
	}
	if p.PageWidth > 375 || p.PanelWidth > 375 {
		t.Errorf("at 375px the page is %dpx wide and the panel ends at %dpx", p.PageWidth, p.PanelWidth)
	}
	tb.screenshot("#gates", "gate-panel.png")
	tb.screenshotPage("gate-panel-375px.png")

	// The probe succeeds (each task fails once): the panel goes away and
	// every session replies.
	tb.waitJS("the panel to go after the probe", `document.getElementById('gates').hidden`, 15*time.Second)
	t.Logf("gate closed in the panel after %s", time.Since(start).Round(time.Millisecond))
	if g := mockGate(t, c); g.State != "closed" {
		t.Errorf("the panel is gone but gate.list says %+v", g)
	}
	var seen []string
	_ = json.Unmarshal(tb.waitJS("the states seen", `window.__gateSeen`, time.Second), &seen)
	if !slices.Contains(seen, "probing:Checking now…") || seen[len(seen)-1] != "hidden" {
		t.Errorf("the panel went through %q; want the probe as \"Checking now…\", then hidden", seen)
	}
	if got := eval[string](tb, `document.getElementById('gates-announce').textContent`); got != "Provider mock recovered." {
		t.Errorf("announced %q when the gate closed", got)
	}
	tb.waitJS("every task to reply", fmt.Sprintf(`(() => {
		const ids = %s;
		return ids.every((id) => { const b = document.querySelector('#tasks [data-task-id="' + id + '"]'); return b && b.dataset.state === 'REVIEW'; });
	})()`, jsJSON(t, tasks)), 10*time.Second)
}
