package browser

// Issue 15, "wrong today": each test here fails without the fix it names.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// pressCtrlEnter sends Ctrl+Enter to the focused element.
func (tb *tab) pressCtrlEnter() {
	tb.t.Helper()
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: "Enter", Code: "Enter",
				WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Modifiers: 2} // Ctrl
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
				return err
			}
		}
		return nil
	}))
}

// states is what the chat header and the open task's list entry say.
type states struct {
	Header, List, HeaderKey, ListKey string
}

const statesJS = `(() => {
	const h = document.getElementById('chat-state');
	const l = document.querySelector('#tasks [aria-current="true"]');
	const lb = l && l.querySelector('.badge');
	return { Header: h.hidden ? '' : h.textContent, List: lb ? lb.textContent : '',
		HeaderKey: h.dataset.state || '', ListKey: l ? l.dataset.state : '' };
})()`

// waitSameState waits until the header and the list say label (key) alike.
func (tb *tab) waitSameState(label, key string) {
	tb.t.Helper()
	tb.waitJS(fmt.Sprintf("header and list to say %q", label), fmt.Sprintf(`((s) => s.Header === %q && s.List === %q && s.HeaderKey === %q && s.ListKey === %q)(%s)`,
		label, label, key, key, statesJS), 20*time.Second)
}

// /favicon.ico is served; after Ctrl+Enter creates a task the title has the
// focus but no focus ring; Stop appearing does not change the header's
// height; and the header names the state exactly as the list does.
func TestFaviconTitleFocusHeaderHeightAndOneVocabulary(t *testing.T) {
	d := startDaemon(t, "")
	if code, body := d.Get(t, "/favicon.ico", false); code != http.StatusOK || len(body) < 22 || body[:4] != "\x00\x00\x01\x00" {
		t.Errorf("/favicon.ico: %d, %d bytes; want 200 and an ICO file", code, len(body))
	}
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))
	tb.do(chromedp.SendKeys(chromedp.ID("nt-prompt"), "/slow:2500 take your time"))
	tb.pressCtrlEnter()
	tb.waitJS("the new task's chat", `document.getElementById('chat').dataset.syncMode && document.activeElement && document.activeElement.id === 'chat-title'`, 15*time.Second)
	type ring struct {
		Shadow, Outline string
		FocusVisible    bool
	}
	r := eval[ring](tb, `(() => { const e = document.getElementById('chat-title'); const s = getComputedStyle(e);
		return { Shadow: s.boxShadow, Outline: s.outlineStyle, FocusVisible: e.matches(':focus-visible') }; })()`)
	if !r.FocusVisible {
		t.Log("the title does not match :focus-visible here; the ring check below proves nothing")
	}
	if r.Shadow != "none" || r.Outline != "none" {
		t.Errorf("the focused title shows a focus ring after Ctrl+Enter: box-shadow %q, outline %q", r.Shadow, r.Outline)
	}

	tb.waitJS("Stop during the turn", `!document.getElementById('stop').hidden && document.getElementById('chat').dataset.state === 'RUNNING'`, 15*time.Second)
	tb.waitSameState("Running", "RUNNING")
	withStop := eval[float64](tb, `document.querySelector('.chat-head').getBoundingClientRect().height`)
	tb.screenshot("#chat", "chat-running.png")
	tb.waitJS("the reply", agentText(0)+`.includes('step 10/10.') && `+idleJS+` && document.getElementById('stop').hidden`, 20*time.Second)
	tb.waitSameState("Review", "REVIEW")
	without := eval[float64](tb, `document.querySelector('.chat-head').getBoundingClientRect().height`)
	if withStop != without {
		t.Errorf("the chat header is %.1fpx high with Stop and %.1fpx without", withStop, without)
	}
}

// Tables, "##" headings a size above the text, and a Copy button on code
// blocks that puts the code (only) on the clipboard.
func TestMarkdownTablesHeadingsAndCodeCopy(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))
	type out struct {
		Cells             []string
		H2, H1, Body      float64
		Copied, Label     string
		BodyText, Labeled string
	}
	o := evalAwait[out](tb, `(async () => {
		const { renderMarkdown } = await import('/markdown.js');
		const box = document.createElement('div');
		box.className = 'msg msg-agent';
		const body = document.createElement('div');
		body.className = 'msg-body md';
		box.append(body);
		document.getElementById('messages').append(box);
		body.append(renderMarkdown('# Top\n\n## Plan\n\ntext\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n`+"```sh\\nmake test\\n```"+`'));
		let copied = '';
		Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t) => { copied = t; } } });
		const btn = body.querySelector('.md-codeblock .copy-button');
		btn.click();
		await new Promise((r) => setTimeout(r, 50));
		const px = (e) => parseFloat(getComputedStyle(e).fontSize);
		const r = {
			Cells: [...body.querySelectorAll('table th, table td')].map((c) => c.textContent),
			H1: px(body.querySelector('h3')), H2: px(body.querySelector('h4')), Body: px(body.querySelector('p')),
			Copied: copied, Label: btn.dataset.label, BodyText: body.textContent, Labeled: btn.getAttribute('aria-label'),
		};
		box.remove();
		return r;
	})()`)
	if strings.Join(o.Cells, ",") != "a,b,1,2" {
		t.Errorf("table cells %q, want a,b,1,2", o.Cells)
	}
	if o.H2 < o.Body*1.15 || o.H1 <= o.H2 {
		t.Errorf("heading sizes: # %.1fpx, ## %.1fpx, text %.1fpx; want ## well above the text and # above ##", o.H1, o.H2, o.Body)
	}
	if o.Copied != "make test" || o.Label != "Copied" || o.Labeled == "" {
		t.Errorf("code copy: clipboard %q, label %q, aria-label %q; want the code only, \"Copied\"", o.Copied, o.Label, o.Labeled)
	}
	if strings.Contains(o.BodyText, "Copy") {
		t.Errorf("the copy button adds text to the message: %q", o.BodyText)
	}
}

// A message sent while a turn runs is queued, never a raw Conflict: shown
// above the box with Cancel, sent when the turn ends; a cancelled one is
// never sent.
func TestMessageSentDuringTurnIsQueued(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))
	sessionID := tb.createTask("/slow:4000 a long first answer", "")
	tb.waitJS("the turn to stream", agentText(0)+`.includes('step 1/10.')`, 15*time.Second)

	type composer struct {
		Send, Hint, Error string
		SendDisabled      bool
	}
	c := eval[composer](tb, `(() => ({ Send: document.getElementById('send').textContent,
		Hint: document.getElementById('composer-hint').hidden ? '' : document.getElementById('composer-hint').textContent,
		Error: document.getElementById('composer-error').hidden ? '' : document.getElementById('composer-error').textContent,
		SendDisabled: document.getElementById('send').disabled }))()`)
	if c.Send != "Queue" || !strings.Contains(c.Hint, "queued and sent when this turn ends") {
		t.Errorf("while a turn runs: Send %q, hint %q; want Queue and a plain hint", c.Send, c.Hint)
	}

	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "second question"))
	tb.pressEnter(false)
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "never mind this one"))
	tb.pressEnter(false)
	tb.waitJS("two queued messages", `document.querySelectorAll('#queued .queued-item').length === 2`, 5*time.Second)
	tb.screenshot("#chat", "queued-message.png")
	type queued struct {
		Texts          []string
		Box, Error     string
		Why            string
		UserMessages   int
		ConflictShown  bool
		QueueCancelBtn int
	}
	q := eval[queued](tb, `(() => ({
		Texts: [...document.querySelectorAll('#queued .queued-text')].map((e) => e.textContent),
		Why: document.querySelector('#queued .queued-why').textContent,
		Box: document.getElementById('prompt').value,
		Error: document.getElementById('composer-error').hidden ? '' : document.getElementById('composer-error').textContent,
		UserMessages: document.querySelectorAll('#messages [data-role="user"]').length,
		ConflictShown: /conflict|already running/i.test(document.body.textContent),
		QueueCancelBtn: document.querySelectorAll('#queued .queued-cancel').length,
	}))()`)
	if strings.Join(q.Texts, "|") != "second question|never mind this one" || q.Box != "" || q.Error != "" || q.ConflictShown {
		t.Errorf("queued %q, box %q, error %q, conflict shown %v; want both queued, the box empty, no error", q.Texts, q.Box, q.Error, q.ConflictShown)
	}
	if q.UserMessages != 1 || q.QueueCancelBtn != 2 || !strings.Contains(q.Why, "when the current turn ends") {
		t.Errorf("user messages %d (want 1: nothing sent yet), cancel buttons %d, why %q", q.UserMessages, q.QueueCancelBtn, q.Why)
	}
	// Cancel the second.
	tb.do(chromedp.Click(chromedp.CSS(`#queued .queued-item:nth-child(2) .queued-cancel`)))
	tb.waitJS("one queued message", `document.querySelectorAll('#queued .queued-item').length === 1`, 5*time.Second)

	tb.waitJS("the queued message's reply", agentText(1)+` === 'Echo: second question' && `+idleJS, 30*time.Second)
	tb.waitJS("the queue to empty", `document.getElementById('queued').hidden`, 5*time.Second)
	var users []string
	for _, m := range snapshot(t, d, sessionID) {
		if m.Role == "user" {
			users = append(users, m.Text)
		}
	}
	if strings.Join(users, "|") != "/slow:4000 a long first answer|second question" {
		t.Errorf("the daemon got user messages %q; want the first and the queued one, not the cancelled one", users)
	}
	if v := eval[string](tb, `document.getElementById('send').textContent`); v != "Send" {
		t.Errorf("Send says %q between turns", v)
	}

	// Queued in a task the user then leaves: sent when that turn ends.
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "/slow:3000 another long one"))
	tb.pressEnter(false)
	tb.waitJS("the third turn to run", `document.getElementById('send').textContent === 'Queue'`, 15*time.Second)
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "asked before leaving"))
	tb.pressEnter(false)
	tb.waitJS("it to be queued", `document.querySelectorAll('#queued .queued-item').length === 1`, 5*time.Second)
	tb.createTask("meanwhile, elsewhere", "")
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got []string
		for _, m := range snapshot(t, d, sessionID) {
			if m.Role == "agent" {
				got = append(got, m.Text)
			}
		}
		if len(got) > 0 && got[len(got)-1] == "Echo: asked before leaving" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the message queued in a task left open elsewhere was never sent; its replies: %q", got)
		}
		time.Sleep(200 * time.Millisecond) // polling the daemon for the reply, not a backoff
	}
}

// With the daemon unreachable the retry card stops promising "Retrying
// now…", its Cancel and the composer's Send are disabled, and both say the
// daemon is unreachable and what happens when it is back; when it is, the
// card and Send come back.
func TestDaemonUnreachableRetryCardAndComposer(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "4s"))
	p := startProxy(t, strings.TrimPrefix(d.URL, "http://"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(p.Addr()))
	tb.createTask("/overloaded:1 wait for me", "")
	tb.waitJS("the retry card", cardVisibleJS, 15*time.Second)
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "typed while down"))

	p.setDown(true)
	tb.waitJS("the page to notice", `document.getElementById('conn').dataset.state === 'down'`, 10*time.Second)
	type down struct {
		Card, Countdown, Hint, Box string
		CancelDisabled, Send       bool
	}
	// Past retry_at: the old card said "Retrying now…" forever.
	tb.waitJS("the retry time to pass", `Number(document.querySelector('#retry-card .countdown').dataset.remaining) === 0`, 10*time.Second)
	s := eval[down](tb, `(() => ({
		Card: document.getElementById('retry-card').textContent,
		Countdown: document.querySelector('#retry-card .countdown').textContent,
		CancelDisabled: document.querySelector('#retry-card .retry-cancel').disabled,
		Send: document.getElementById('send').disabled,
		Hint: document.getElementById('composer-hint').hidden ? '' : document.getElementById('composer-hint').textContent,
		Box: document.getElementById('prompt').value,
	}))()`)
	tb.screenshot("#chat", "retry-card-daemon-unreachable.png")
	if strings.Contains(s.Card, "Retrying now") || !strings.Contains(s.Card, "daemon is unreachable") || !strings.Contains(s.Card, "as soon as the page reconnects") {
		t.Errorf("retry card while the daemon is unreachable: %q", s.Card)
	}
	if !s.CancelDisabled || !s.Send {
		t.Errorf("Cancel disabled %v, Send disabled %v; want both disabled while unreachable", s.CancelDisabled, s.Send)
	}
	if !strings.Contains(s.Hint, "daemon is unreachable") || !strings.Contains(s.Hint, "once the connection is back") || s.Box != "typed while down" {
		t.Errorf("composer hint %q, box %q", s.Hint, s.Box)
	}

	p.setDown(false)
	tb.waitJS("the page to reconnect", `document.querySelector('#conn[data-state="ok"]')`, 20*time.Second)
	tb.waitJS("the retry's reply", agentText(0)+`.startsWith('Recovered after 1 failures') && `+idleJS, 20*time.Second)
	if e := eval[bool](tb, `!document.getElementById('send').disabled && document.getElementById('composer-hint').hidden`); !e {
		t.Error("Send stays disabled (or the hint stays) after the daemon is back")
	}
}

// A token the daemon refuses is said to be refused, and the page stops
// retrying with it.
func TestWrongTokenSaysRefused(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	tb.do(chromedp.Navigate(d.URL + "/?token=not-the-token"))
	tb.waitJS("the refusal", `document.getElementById('conn').dataset.state === 'refused'`, 15*time.Second)
	notice := eval[string](tb, `document.getElementById('notice').hidden ? '' : document.getElementById('notice-text').textContent`)
	if !strings.Contains(notice, "refused the access token") || strings.Contains(notice, "Cannot reach") {
		t.Errorf("notice %q; want it to say the token was refused", notice)
	}
	if c := eval[string](tb, `document.getElementById('conn').textContent`); c != "token refused" {
		t.Errorf("connection indicator %q", c)
	}
	tb.screenshotPage("token-refused.png")
}

// bannerJS reads the recovery banner.
const bannerJS = `(() => {
	const b = document.getElementById('recovery-banner');
	const q = (s) => b.querySelector(s);
	return {
		Visible: !b.hidden, ID: b.dataset.messageId || '', Title: q('.banner-title') ? q('.banner-title').textContent : '',
		Fix: q('.banner-fix') ? q('.banner-fix').textContent : '', Again: q('.banner-again') ? q('.banner-again').textContent : '',
		Primary: q('.banner-actions .primary') ? q('.banner-actions .primary').dataset.action + ':' + q('.banner-actions .primary').textContent : '',
		Error: q('.banner-details pre') ? q('.banner-details pre').textContent : '',
		Calm: b.classList.contains('calm'), Icon: q('.banner-icon') ? getComputedStyle(q('.banner-icon')).backgroundColor : '',
		Background: getComputedStyle(b).backgroundColor,
	};
})()`

type bannerState struct {
	Visible                        bool
	ID, Title, Fix, Again, Primary string
	Error, Icon, Background        string
	Calm                           bool
}

// Failures a retry cannot fix say what to fix and make that the main path;
// a Resume that fails again says so; the details show the error itself,
// whole, with a copy button. A Cancel the user chose is a calm "Paused",
// named alike in the header and the list.
func TestBannersSayWhatToFixAndCalmPause(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "30s"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	tb.createTask("/auth please", "")
	tb.waitJS("the auth banner", bannerVisibleJS, 20*time.Second)
	b := eval[bannerState](tb, bannerJS)
	tb.screenshot("#chat", "banner-auth.png")
	if !strings.Contains(b.Fix, "Sign the agent in") || b.Primary != "resume:Resume after fixing" {
		t.Errorf("auth banner: fix %q, main button %q; want the sign-in fix and Resume after fixing", b.Fix, b.Primary)
	}
	if !strings.Contains(b.Error, "JSON-RPC error -32000: Authentication required") || !strings.Contains(b.Error, "Invalid API key") ||
		strings.Contains(b.Error, "…") || strings.Contains(b.Error, "mock-agent") {
		t.Errorf("details show %q; want the JSON-RPC error and its data, whole", b.Error)
	}
	if b.Calm {
		t.Error("an auth failure is styled as a calm pause")
	}
	tb.waitSameState("Needs you", "FAILED")
	copied := evalAwait[string](tb, `(async () => {
		let copied = '';
		Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t) => { copied = t; } } });
		document.querySelector('#recovery-banner .banner-details').open = true;
		document.querySelector('#recovery-banner .banner-details .copy-button').click();
		await new Promise((r) => setTimeout(r, 50));
		return copied;
	})()`)
	if !strings.Contains(copied, "Code: auth") || !strings.Contains(copied, "Authentication required") {
		t.Errorf("Copy details copied %q", copied)
	}
	tb.screenshot("#recovery-banner", "banner-details.png")

	// Resume without fixing: the banner comes back, and says Resume did not help.
	tb.do(chromedp.Click(chromedp.CSS(`#recovery-banner .banner-actions .primary`)))
	tb.waitJS("the banner to come back", fmt.Sprintf(`((b) => b.Visible && b.ID !== %q)(%s)`, b.ID, bannerJS), 20*time.Second)
	again := eval[bannerState](tb, bannerJS)
	if !strings.Contains(again.Again, "did not help: it failed again the same way") {
		t.Errorf("after a Resume that failed again the banner says %q", again.Again)
	}
	tb.screenshot("#chat", "banner-resume-failed-again.png")

	// Prompt too long: Start fresh is the main path.
	tb.createTask("/too-long summarise everything", "")
	tb.waitJS("the too-long banner", bannerVisibleJS, 20*time.Second)
	b = eval[bannerState](tb, bannerJS)
	if !strings.HasPrefix(b.Primary, "fresh_start:") || !strings.Contains(b.Fix, "Start fresh") {
		t.Errorf("too-long banner: main button %q, fix %q; want Start fresh first", b.Primary, b.Fix)
	}

	// Cancel on a retry: calm.
	tb.createTask("/overloaded:1 cancel me", "")
	tb.waitJS("the retry card", cardVisibleJS, 20*time.Second)
	tb.waitSameState("Retrying", "WAITING_FOR_INPUT")
	tb.do(chromedp.Click(chromedp.CSS(`#retry-card .retry-cancel`)))
	tb.waitJS("the pause banner", bannerVisibleJS, 20*time.Second)
	b = eval[bannerState](tb, bannerJS)
	tb.screenshot("#chat", "banner-paused.png")
	if !b.Calm || b.Title != "Paused" || strings.Contains(b.Icon, "197, 48, 48") || strings.Contains(b.Background, "253, 240, 240") {
		t.Errorf("paused banner: calm %v, title %q, icon %s, background %s; want calm grey/blue, not the red of a failure", b.Calm, b.Title, b.Icon, b.Background)
	}
	tb.waitSameState("Paused", "PAUSED")
}

// Reply marks: a partial reply cut by a dropped connection or a crashed
// agent is marked interrupted; a reply cut by Stop is marked stopped; a reply
// that needed retries says so quietly. Tool cards show input, output, status
// and the permission request's answer.
func TestReplyMarksAndToolDetails(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "1s"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	type marks struct {
		Interrupted, Stopped, Recovered []string
	}
	const marksJS = `(() => {
		const t = (s) => [...document.querySelectorAll('#messages ' + s)].map((e) => e.textContent);
		return { Interrupted: t('.msg-interrupted'), Stopped: t('.msg-stopped'), Recovered: t('.msg-recovered') };
	})()`
	for _, scenario := range []string{"/conn-closed", "/crash"} {
		tb.createTask(scenario+" then recover", "")
		tb.waitJS(scenario+" recovered", `[...document.querySelectorAll('#messages [data-role="agent"] .msg-body')].some((b) => b.textContent.startsWith('Recovered after 1 failures')) && `+idleJS, 30*time.Second)
		tb.waitJS(scenario+": the recovered line", `document.querySelector('#messages .msg-recovered')`, 10*time.Second)
		m := eval[marks](tb, marksJS)
		if len(m.Interrupted) != 1 || !strings.Contains(m.Interrupted[0], "Interrupted") {
			t.Errorf("%s: interrupted marks %q; want one on the partial reply", scenario, m.Interrupted)
		}
		if len(m.Recovered) != 1 || m.Recovered[0] != "Recovered after 1 retry." {
			t.Errorf("%s: recovered lines %q; want one \"Recovered after 1 retry.\"", scenario, m.Recovered)
		}
	}
	tb.screenshot("#chat", "reply-interrupted-and-recovered.png")
	if bad := eval[[]string](tb, `[...document.querySelectorAll('#messages .msg')].map((m) => m.textContent).filter((t) => t.includes('null'))`); len(bad) > 0 {
		t.Errorf("messages show a stray \"null\": %q", bad)
	}

	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "/slow:8000 a long answer"))
	tb.pressEnter(false)
	tb.waitJS("the slow reply with Stop", `!document.getElementById('stop').hidden && [...document.querySelectorAll('#messages [data-role="agent"] .msg-body')].some((b) => b.textContent.includes('step 1/10.'))`, 15*time.Second)
	tb.do(chromedp.Click(chromedp.ID("stop"), chromedp.NodeVisible))
	tb.waitJS("the stopped mark", `document.querySelector('#messages .msg-stopped')`, 15*time.Second)
	if m := eval[marks](tb, marksJS); len(m.Stopped) != 1 || !strings.Contains(m.Stopped[0], "Stopped") {
		t.Errorf("stopped marks %q; want one on the reply cut by Stop", m.Stopped)
	}

	tb.createTask("/tool list the files", "")
	tb.waitJS("the tool's reply", agentText(0)+` === 'The tool ran: the working directory is listed.' && `+idleJS, 20*time.Second)
	type tool struct {
		Status, Permission, Input, Output string
		InputOpen                         bool
	}
	tc := eval[tool](tb, `(() => {
		const c = document.querySelector('#messages [data-role="tool"]');
		const io = (p) => c.querySelector('details[data-part="' + p + '"]');
		return { Status: c.querySelector('.tool-status').textContent, Permission: (c.querySelector('.tool-permission') || {}).textContent || '',
			Input: io('input') ? io('input').querySelector('pre').textContent : '', Output: io('output') ? io('output').querySelector('pre').textContent : '',
			InputOpen: io('input') ? io('input').open : true };
	})()`)
	if tc.Status != "done" || !strings.Contains(tc.Permission, "allowed") || !strings.Contains(tc.Permission, "Allow") {
		t.Errorf("tool card status %q, permission %q", tc.Status, tc.Permission)
	}
	if !strings.Contains(tc.Input, `"path": "."`) || !strings.Contains(tc.Output, "README.md") || tc.InputOpen {
		t.Errorf("tool card input %q, output %q, input open %v; want both, collapsed", tc.Input, tc.Output, tc.InputOpen)
	}
	tb.do(chromedp.Click(chromedp.CSS(`#messages [data-role="tool"] details[data-part="input"] summary`)))
	tb.screenshot("#chat", "tool-card.png")
}
