package browser

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// agentText returns JS for the text of the n-th agent message ("" if none).
func agentText(n int) string {
	return fmt.Sprintf(`((m) => m ? m.querySelector('.msg-body').textContent : '')(document.querySelectorAll('#messages [data-role="agent"]')[%d])`, n)
}

const idleJS = `document.getElementById('chat').dataset.state === 'WAITING_FOR_INPUT'`

// 1. Create a task in the form and see the reply stream in; then a follow-up
// through the prompt box (Shift+Enter is a new line, Enter sends) streams
// slowly with Stop on screen. All at 375px wide.
func TestCreateTaskAndSeeStreamedReplyAt375px(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 375, 812)
	tb.open(d.PageURL(""))
	tb.do(chromedp.SendKeys(chromedp.ID("nt-title"), "Say hello"))
	tb.screenshotPage("new-task-375px.png")

	tb.createTask("Hello **world**, echo `code` please", "")
	tb.waitJS("the reply", agentText(0)+` === 'Echo: Hello world, echo code please' && `+idleJS, 20*time.Second)

	type rendered struct {
		Strong, Code, User, Badge string
		Overflow                  bool
		SidebarShown, ChatShown   bool
		Unlabelled                []string
	}
	r := eval[rendered](tb, `(() => {
		const a = document.querySelector('#messages [data-role="agent"] .msg-body');
		const shown = (e) => !!e && e.getBoundingClientRect().width > 0;
		const unlabelled = [];
		for (const b of document.querySelectorAll('button')) {
			if (shown(b) && !(b.textContent.trim() || b.getAttribute('aria-label'))) unlabelled.push(b.outerHTML.slice(0, 80));
		}
		for (const f of document.querySelectorAll('input, textarea, select')) {
			if (!(f.labels && f.labels.length) && !f.getAttribute('aria-label')) unlabelled.push(f.id);
		}
		return {
			Strong: (a.querySelector('strong') || {}).textContent || '',
			Code: (a.querySelector('code') || {}).textContent || '',
			User: document.querySelector('#messages [data-role="user"] .msg-body').textContent,
			Badge: document.querySelector('#tasks [aria-current="true"]').dataset.state,
			Overflow: document.documentElement.scrollWidth > window.innerWidth,
			SidebarShown: shown(document.querySelector('.sidebar')),
			ChatShown: shown(document.getElementById('chat')),
			Unlabelled: unlabelled,
		};
	})()`)
	if r.Strong != "world" || r.Code != "code" {
		t.Errorf("agent Markdown: strong %q, code %q; want world, code", r.Strong, r.Code)
	}
	if r.User != "Hello **world**, echo `code` please" {
		t.Errorf("the user's text is shown as typed, got %q", r.User)
	}
	if r.Badge != "REVIEW" {
		t.Errorf("task badge after the turn = %q, want REVIEW", r.Badge)
	}
	if r.Overflow {
		t.Error("the page scrolls sideways at 375px")
	}
	if r.SidebarShown || !r.ChatShown {
		t.Errorf("at 375px the open task shows the chat only (sidebar shown %v, chat shown %v)", r.SidebarShown, r.ChatShown)
	}
	if len(r.Unlabelled) > 0 {
		t.Errorf("controls without an accessible name: %v", r.Unlabelled)
	}

	// The prompt box: Shift+Enter adds a line, Enter sends.
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "/slow:1500 first line"))
	tb.pressEnter(true)
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "second line"))
	if v := eval[string](tb, `document.getElementById('prompt').value`); v != "/slow:1500 first line\nsecond line" {
		t.Fatalf("Shift+Enter: prompt box holds %q", v)
	}
	if n := eval[int](tb, `document.querySelectorAll('#messages [data-role="user"]').length`); n != 1 {
		t.Fatalf("Shift+Enter sent the prompt (%d user messages)", n)
	}
	tb.pressEnter(false)
	tb.waitJS("the follow-up to appear", `(() => {
		const u = document.querySelectorAll('#messages [data-role="user"] .msg-body');
		return u.length === 2 && u[1].textContent === '/slow:1500 first line\nsecond line';
	})()`, 10*time.Second)
	// It streams: part of the reply is on screen before the rest, with Stop.
	tb.waitJS("a partial reply with Stop visible", agentText(1)+`.startsWith('step 1/10.') && !`+agentText(1)+`.includes('step 10/10.') && !document.getElementById('stop').hidden`, 10*time.Second)
	if v := eval[string](tb, `document.getElementById('prompt').value`); v != "" {
		t.Errorf("the prompt box keeps %q after a successful send", v)
	}
	tb.waitJS("the whole reply", agentText(1)+`.trim().endsWith('step 10/10.') && `+idleJS+` && document.getElementById('stop').hidden`, 15*time.Second)
	tb.screenshot("#chat", "chat-375px.png")
}

// 5. The WebSocket's server side goes away mid-stream: the page says
// "reconnecting…", comes back, resumes from its last seq, and ends with every
// message exactly once. A prompt queued during the turn is sent once after it.
func TestReconnectMidStreamShowsEveryMessageOnce(t *testing.T) {
	d := startDaemon(t, "")
	p := startProxy(t, strings.TrimPrefix(d.URL, "http://"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(p.Addr())) // every byte goes through the proxy

	sessionID := tb.createTask("/slow:4000 stream through the cut", "")
	tb.waitJS("the reply to start", agentText(0)+`.includes('step 2/10.')`, 15*time.Second)

	// Sending while the turn runs queues the message: it survives the cut
	// and goes out, once, when the turn ends.
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "and after that?"))
	tb.pressEnter(false)
	tb.waitJS("the message to be queued", `document.querySelectorAll('#queued .queued-item').length === 1`, 10*time.Second)

	eval[bool](tb, `(() => {
		const c = document.getElementById('conn');
		window.__connTexts = [c.textContent];
		new MutationObserver(() => window.__connTexts.push(c.textContent))
			.observe(c, { childList: true, characterData: true, subtree: true });
		return true;
	})()`)
	if partial := eval[string](tb, agentText(0)); strings.Contains(partial, "step 10/10.") {
		t.Fatalf("the reply finished before the cut (%q); the test needs a slower stream", partial)
	}
	if n := p.cutAll(); n == 0 {
		t.Fatal("the proxy had no connection to cut")
	}
	tb.waitJS(`"reconnecting…"`, `window.__connTexts.includes('reconnecting…')`, 10*time.Second)
	tb.waitJS("the page to reconnect", `document.querySelector('#conn[data-state="ok"]')`, 15*time.Second)
	tb.waitJS("the whole reply", agentText(0)+`.trim().endsWith('step 10/10.')`, 20*time.Second)
	tb.waitJS("the queued prompt's reply", agentText(1)+` === 'Echo: and after that?' && `+idleJS, 20*time.Second)

	var want []string
	for i := 1; i <= 10; i++ {
		want = append(want, fmt.Sprintf("step %d/10.", i))
	}
	if got := strings.TrimSpace(eval[string](tb, agentText(0))); got != strings.Join(want, " ") {
		t.Errorf("the reply after the reconnect:\n got %q\nwant %q", got, strings.Join(want, " "))
	}
	if mode := eval[string](tb, `document.getElementById('chat').dataset.syncMode`); mode != "replay" {
		t.Errorf("the page caught up with a %q; want a replay from its last seq", mode)
	}
	if n := eval[int](tb, `document.querySelectorAll('#messages [data-role="user"]').length`); n != 2 {
		t.Errorf("%d user messages; want the first and the queued one, once", n)
	}
	if !eval[bool](tb, `document.getElementById('queued').hidden`) {
		t.Error("the queue still shows a sent message")
	}
	compareWithDaemon(t, tb, d, sessionID)
}

// compareWithDaemon checks that the page shows exactly the daemon's messages:
// each once, in the same order, with the same text.
func compareWithDaemon(t *testing.T, tb *tab, d *daemontest.Daemon, sessionID string) {
	t.Helper()
	got := eval[[]pageMessage](tb, messagesJS)
	seen := map[string]bool{}
	for _, m := range got {
		if seen[m.ID] {
			t.Errorf("message %s (%s) is shown twice", m.ID, m.Role)
		}
		seen[m.ID] = true
	}
	var want []serverMessage
	for _, m := range snapshot(t, d, sessionID) {
		if m.Role == "status" && (m.Metadata["kind"] == "retry_notice" || m.Metadata["kind"] == "recovery") {
			continue // pinned above the prompt box, not in the log
		}
		want = append(want, m)
	}
	if len(got) != len(want) {
		t.Fatalf("the page shows %d messages, the daemon holds %d:\npage: %+v\ndaemon: %+v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || strings.TrimSpace(got[i].Text) != strings.TrimSpace(want[i].Text) {
			t.Errorf("message %d: page %s %q, daemon %s %q", i, got[i].ID, got[i].Text, want[i].ID, want[i].Text)
		}
	}
}

// 6. Agent and user text that looks like HTML stays text; only http(s) links
// become links; nothing runs.
func TestHTMLInMessagesRendersAsText(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	payload := "<img src=x onerror=alert(1)> [click](javascript:alert(2)) [docs](https://example.com/a?b=1) **safe**"
	tb.createTask(payload, "")
	tb.waitJS("the echo", agentText(0)+`.startsWith('Echo: ') && `+idleJS, 20*time.Second)

	type check struct {
		Dangerous int
		User      string
		Agent     string
		JSLinks   int
		Links     []map[string]string
		TaskTitle string
		Strong    string
	}
	c := eval[check](tb, `(() => {
		const a = document.querySelector('#messages [data-role="agent"] .msg-body');
		return {
			Dangerous: document.querySelectorAll('img, script:not([src]), iframe, object, embed, [onerror], [onload]').length,
			User: document.querySelector('#messages [data-role="user"] .msg-body').textContent,
			Agent: a.textContent,
			JSLinks: document.querySelectorAll('a[href^="javascript" i], a[href^="data" i]').length,
			Links: [...a.querySelectorAll('a')].map((l) => ({ href: l.getAttribute('href'), rel: l.rel, target: l.target, text: l.textContent })),
			TaskTitle: document.querySelector('#tasks .task-title').textContent,
			Strong: (a.querySelector('strong') || {}).textContent || '',
		};
	})()`)
	if c.Dangerous != 0 {
		t.Errorf("%d img/script/iframe/handler elements in the page", c.Dangerous)
	}
	if c.User != payload {
		t.Errorf("user message = %q, want the literal text", c.User)
	}
	for _, lit := range []string{"<img src=x onerror=alert(1)>", "[click](javascript:alert(2))"} {
		if !strings.Contains(c.Agent, lit) {
			t.Errorf("agent message %q lacks the literal %q", c.Agent, lit)
		}
		if !strings.Contains(c.TaskTitle+c.User, lit) {
			t.Errorf("the title/user text lacks the literal %q", lit)
		}
	}
	if c.JSLinks != 0 {
		t.Errorf("%d javascript:/data: links", c.JSLinks)
	}
	if len(c.Links) != 1 || c.Links[0]["href"] != "https://example.com/a?b=1" || c.Links[0]["text"] != "docs" ||
		c.Links[0]["target"] != "_blank" || !strings.Contains(c.Links[0]["rel"], "noopener") {
		t.Errorf("links = %v; want one https link, target _blank, rel noopener", c.Links)
	}
	if c.Strong != "safe" {
		t.Errorf("Markdown still works next to the HTML: strong = %q", c.Strong)
	}
	if n := tb.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialog(s) opened", n)
	}
}

// The form's max attempts reaches the daemon (1 turns automatic retry off:
// the banner at once, never the card); a tool call shows as a compact card
// before the reply; Stop ends a running turn without a banner.
func TestMaxAttemptsToolCardAndStop(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "3s"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))
	watchCardWhileRunning(tb)

	tb.createTask("/overloaded:1 no retries please", "1")
	tb.waitJS("the banner", bannerVisibleJS, 20*time.Second)
	type banner struct{ Title, Text string }
	b := eval[banner](tb, `({
		Title: document.querySelector('#recovery-banner .banner-title').textContent,
		Text: document.querySelector('#recovery-banner .banner-reason').textContent,
	})`)
	if b.Title != "Provider overloaded" || !strings.Contains(b.Text, "Automatic retry is off") {
		t.Errorf("banner %+v; want the overloaded family and that retry is off", b)
	}
	if n := eval[int](tb, `window.__cardWhileRunning + document.querySelectorAll('#retry-card .countdown').length`); n != 0 {
		t.Error("max attempts 1 must never show the retry card")
	}

	// "If the provider is down, keep waiting": the default names the
	// daemon's deadline; a choice goes with task.create.
	if got := eval[string](tb, `document.getElementById('nt-gate-default').textContent`); got != "30 min (default)" {
		t.Errorf("default wait option %q, want the daemon's 30 min", got)
	}
	tb.do(chromedp.SetValue(chromedp.ID("nt-gate"), "28800"))
	tb.createTask("/tool list the files", "")
	waits := map[string]float64{}
	var list struct {
		Tasks []struct {
			Title               string  `json:"title"`
			GateDeadlineSeconds float64 `json:"gate_deadline_seconds"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(daemontest.Dial(t, d).Call("task.list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	for _, task := range list.Tasks {
		waits[task.Title] = task.GateDeadlineSeconds
	}
	if want := map[string]float64{"/overloaded:1 no retries please": 0, "/tool list the files": 28800}; !maps.Equal(waits, want) {
		t.Errorf("gate deadlines %v, want %v (8 h sent only with the second task)", waits, want)
	}
	tb.waitJS("the reply after the tool", agentText(0)+` === 'The tool ran: the working directory is listed.' && `+idleJS, 20*time.Second)
	type tool struct{ Title, Kind, Status, Tag string }
	tc := eval[tool](tb, `(() => {
		const c = document.querySelector('#messages [data-role="tool"]');
		return { Title: c.querySelector('.tool-title').textContent, Kind: c.querySelector('.tool-kind').textContent,
			Status: c.querySelector('.tool-status').textContent, Tag: c.tagName };
	})()`)
	if tc.Title != "List files in the working directory" || tc.Kind != "read" || tc.Status != "done" {
		t.Errorf("tool card %+v", tc)
	}
	if order := eval[string](tb, `[...document.querySelectorAll('#messages [data-role]')].map((m) => m.dataset.role).join(',')`); order != "user,tool,agent" {
		t.Errorf("message order %q, want user,tool,agent", order)
	}

	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "/slow:8000 a long answer"))
	tb.pressEnter(false)
	tb.waitJS("the slow reply with Stop", agentText(1)+`.includes('step 1/10.') && !document.getElementById('stop').hidden`, 15*time.Second)
	tb.do(chromedp.Click(chromedp.ID("stop"), chromedp.NodeVisible))
	tb.waitJS("the turn to stop", idleJS+` && document.getElementById('stop').hidden`, 10*time.Second)
	if partial := eval[string](tb, agentText(1)); strings.Contains(partial, "step 10/10.") {
		t.Errorf("Stop did not stop the turn: %q", partial)
	}
	if eval[bool](tb, bannerVisibleJS) || !eval[bool](tb, cardGoneJS) {
		t.Error("a user's Stop is not a failure: no banner, no retry card")
	}
}
