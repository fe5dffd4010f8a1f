package browser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Kolkata for the reset-time check, whatever the host has

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

const (
	cardVisibleJS   = `(() => { const c = document.getElementById('retry-card'); return !c.hidden && c.querySelector('.countdown') && c.getBoundingClientRect().height > 0; })()`
	cardGoneJS      = `document.getElementById('retry-card').hidden`
	bannerVisibleJS = `(() => { const b = document.getElementById('recovery-banner'); return !b.hidden && b.getBoundingClientRect().height > 0; })()`
)

// watchCardWhileRunning counts every moment the retry card is on screen
// while the session is STARTING or RUNNING (it must be hidden then).
func watchCardWhileRunning(tb *tab) {
	tb.t.Helper()
	eval[bool](tb, `(() => {
		window.__cardWhileRunning = 0;
		const chat = document.getElementById('chat');
		const card = document.getElementById('retry-card');
		const check = () => {
			const s = chat.dataset.state;
			if ((s === 'STARTING' || s === 'RUNNING') && !card.hidden) window.__cardWhileRunning++;
		};
		new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
		return true;
	})()`)
}

// 2. /overloaded:1: the amber card counts down from retry_at, then the retry
// succeeds, the reply streams in and the card is gone. At 375px wide.
func TestOverloadedShowsRetryCardThenReply(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "3s"))
	tb := newBrowser(t, 375, 812) // the card on a phone
	tb.open(d.PageURL(""))
	watchCardWhileRunning(tb)

	tb.createTask("/overloaded:1 build the parser", "")
	tb.waitJS("the retry card", cardVisibleJS, 15*time.Second)
	c := tb.card()
	tb.screenshot("#chat", "retry-card-375px.png")
	if c.Role != "status" || c.Live != "polite" {
		t.Errorf("retry card role=%q aria-live=%q; want status, polite", c.Role, c.Live)
	}
	for _, want := range []string{"Provider overloaded", "Retrying in", "Attempt 1 of 3", "Cancel"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("retry card %q lacks %q", c.Text, want)
		}
	}
	checkCountdown(t, "retry card", c)
	if c.Remaining < 1 || c.Remaining > 4 {
		t.Errorf("countdown %ds for a 3s retry", c.Remaining)
	}
	if badge := eval[string](tb, `document.querySelector('#tasks [aria-current="true"]').dataset.state`); badge != "WAITING_FOR_INPUT" {
		t.Errorf("task badge while the retry waits = %q, want WAITING_FOR_INPUT", badge)
	}
	if c.Remaining >= 2 {
		// Live: the number drops by itself, still matching retry_at.
		tb.waitJS("the countdown to tick", fmt.Sprintf(`Number((document.querySelector('#retry-card .countdown') || {dataset: {}}).dataset.remaining) < %d`, c.Remaining), 5*time.Second)
		checkCountdown(t, "after a tick", tb.card())
	}

	tb.waitJS("the reply after the retry", agentText(0)+`.startsWith('Recovered after 1 failures') && `+idleJS, 20*time.Second)
	tb.waitJS("the card to be gone", cardGoneJS, 5*time.Second)
	if n := eval[int](tb, `window.__cardWhileRunning`); n != 0 {
		t.Errorf("the retry card was on screen %d times while the session was STARTING/RUNNING", n)
	}
	if n := eval[int](tb, `document.querySelectorAll('#messages [data-role="user"]').length`); n != 1 {
		t.Errorf("%d user messages; a retry must not duplicate the prompt", n)
	}
	if eval[bool](tb, bannerVisibleJS) {
		t.Error("a recovered retry shows a banner")
	}
}

// 3. /overloaded:5 with a budget of 3: Cancel during the second wait → the
// red banner → Resume starts a new chain, which fails three more times (each
// shown as the card) and then recovers: failures 1–2 before the cancel, 3–5
// in the resumed chain, the 6th attempt answers.
func TestCancelShowsBannerAndResumeReplies(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "250ms, 3s, 250ms"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	tb.createTask("/overloaded:5 migrate the schema", "")
	tb.waitJS("attempt 2 of 3", cardVisibleJS+` && document.getElementById('retry-card').textContent.includes('Attempt 2 of 3')`, 20*time.Second)
	tb.do(chromedp.Click(chromedp.CSS(`#retry-card button[data-action="cancel_retry"]`), chromedp.NodeVisible))

	tb.waitJS("the recovery banner", bannerVisibleJS+` && document.getElementById('recovery-banner').textContent.includes('Automatic retry cancelled')`, 10*time.Second)
	type banner struct {
		Text, Role, Badge string
		Buttons           []string
		CardHidden        bool
	}
	b := eval[banner](tb, `(() => {
		const b = document.getElementById('recovery-banner');
		return {
			Text: b.textContent, Role: b.getAttribute('role'),
			Badge: document.querySelector('#tasks [aria-current="true"]').dataset.state,
			Buttons: [...b.querySelectorAll('button')].map((x) => x.dataset.action + ':' + x.textContent),
			CardHidden: document.getElementById('retry-card').hidden,
		};
	})()`)
	if !strings.Contains(b.Text, "Automatic retry cancelled") {
		t.Errorf("banner text %q", b.Text)
	}
	if strings.Join(b.Buttons, ",") != "resume:Resume,fresh_start:Start fresh" {
		t.Errorf("banner buttons %v; want Resume and Start fresh", b.Buttons)
	}
	if b.Role != "alert" || !b.CardHidden {
		t.Errorf("banner role %q, card hidden %v", b.Role, b.CardHidden)
	}
	if b.Badge != "PAUSED" {
		t.Errorf("task badge with the banner = %q, want PAUSED (the user chose it: not a red needs-you)", b.Badge)
	}
	tb.screenshot("#recovery-banner", "recovery-banner.png")
	tb.screenshot("#chat", "recovery-banner-chat.png")

	tb.do(chromedp.Click(chromedp.CSS(`#recovery-banner button[data-action="resume"]`), chromedp.NodeVisible))
	tb.waitJS("the banner to go", `document.getElementById('recovery-banner').hidden`, 10*time.Second)
	tb.waitJS("the resumed chain's retry card", cardVisibleJS, 15*time.Second)
	tb.waitJS("the reply", agentText(0)+`.startsWith('Recovered after 5 failures') && `+idleJS, 30*time.Second)
	tb.waitJS("the card to be gone", cardGoneJS+` && document.getElementById('recovery-banner').hidden`, 5*time.Second)
}

// 4. A reload during the retry wait shows the same card and the same
// countdown (both from retry_at), the URL brings the task back, and a second
// tab shows the same numbers. Cancel in one tab reaches the other.
func TestRetryCardSurvivesReloadAndMatchesInSecondTab(t *testing.T) {
	d := startDaemon(t, retryConfig(t, "40s"))
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))

	tb.createTask("/overloaded:1 keep the countdown", "")
	tb.waitJS("the retry card", cardVisibleJS, 15*time.Second)
	before := tb.card()
	checkCountdown(t, "before the reload", before)
	tb.screenshot("#retry-card", "retry-card.png")
	tb.screenshot("#chat", "retry-card-chat.png")
	tb.screenshotPage("retry-card-page.png")
	url := eval[string](tb, `location.href`)
	if !strings.Contains(url, "token=") || !strings.Contains(url, "#task=") {
		t.Fatalf("the URL %q must keep the token and the open task", url)
	}
	title := eval[string](tb, `document.getElementById('chat-title').textContent`)

	tb.do(chromedp.Reload())
	tb.waitJS("the card after the reload", cardVisibleJS, 15*time.Second)
	after := tb.card()
	if after.RetryAt != before.RetryAt {
		t.Errorf("retry_at changed over the reload: %s → %s", before.RetryAt, after.RetryAt)
	}
	checkCountdown(t, "after the reload", after)
	elapsed := int((after.Now - before.Now + 500) / 1000)
	if drop := before.Remaining - after.Remaining; abs(drop-elapsed) > 1 {
		t.Errorf("the countdown went %d → %d in %ds", before.Remaining, after.Remaining, elapsed)
	}
	if got := eval[string](tb, `document.getElementById('chat-title').textContent`); got != title {
		t.Errorf("after the reload the page shows %q, want the task %q", got, title)
	}

	tab2 := tb.newTab(t, 1280, 900)
	tab2.open(url)
	tab2.waitJS("the card in a second tab", cardVisibleJS, 15*time.Second)
	one, two := tb.card(), tab2.card()
	if one.RetryAt != two.RetryAt || one.RetryAt != before.RetryAt {
		t.Errorf("retry_at: tab 1 %s, tab 2 %s, first %s", one.RetryAt, two.RetryAt, before.RetryAt)
	}
	checkCountdown(t, "tab 1", one)
	checkCountdown(t, "tab 2", two)
	if abs(one.Remaining-two.Remaining) > 1 {
		t.Errorf("tab 1 shows %ds, tab 2 shows %ds", one.Remaining, two.Remaining)
	}
	if strings.ReplaceAll(one.Text, fmt.Sprint(one.Remaining), "N") != strings.ReplaceAll(two.Text, fmt.Sprint(two.Remaining), "N") {
		t.Errorf("the two tabs' cards differ:\n%q\n%q", one.Text, two.Text)
	}

	tab2.do(chromedp.Click(chromedp.CSS(`#retry-card button[data-action="cancel_retry"]`), chromedp.NodeVisible))
	tab2.waitJS("the banner in tab 2", bannerVisibleJS+` && `+cardGoneJS, 10*time.Second)
	tb.waitJS("the banner in tab 1", bannerVisibleJS+` && `+cardGoneJS, 10*time.Second)
}

// A usage limit (wait_for_reset) is never retried: the banner says when the
// limit resets, in the user's time zone, with the sanitised error behind
// "Details".
func TestUsageLimitBannerShowsResetInLocalTime(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	if _, err := chromedp.Call(tb.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Kolkata"}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tb.ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en-US"}); err != nil {
		t.Fatal(err)
	}
	tb.open(d.PageURL(""))
	watchCardWhileRunning(tb)

	tb.createTask("/usage-limit summarise the logs", "")
	tb.waitJS("the banner", bannerVisibleJS, 20*time.Second)
	type reset struct {
		Datetime, Shown, Text, Title string
		DetailsOpen                  bool
	}
	r := eval[reset](tb, `(() => {
		const b = document.getElementById('recovery-banner');
		const t = b.querySelector('.banner-reset time');
		return {
			Datetime: t ? t.getAttribute('datetime') : '',
			Shown: t ? t.textContent.replace(/[\u202f\u00a0]/g, ' ') : '',
			Text: b.querySelector('.banner-reason').textContent,
			Title: b.querySelector('.banner-title').textContent,
			DetailsOpen: b.querySelector('details').open,
		};
	})()`)
	at, err := time.Parse(time.RFC3339, r.Datetime)
	if err != nil {
		t.Fatalf("reset time %q: %v", r.Datetime, err)
	}
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	if want := at.In(kolkata).Format("3:04 PM"); !strings.Contains(r.Shown, want) || !strings.Contains(r.Shown, "GMT+5:30") {
		t.Errorf("reset shown as %q; want the local %s GMT+5:30", r.Shown, want)
	}
	if strings.Contains(r.Text, "UTC") || !strings.Contains(r.Text, "usage limit") {
		t.Errorf("banner reason %q: plain words, and the reset only in local time", r.Text)
	}
	if r.Title != "Usage limit reached" || r.DetailsOpen {
		t.Errorf("banner title %q, details open %v", r.Title, r.DetailsOpen)
	}

	tb.do(chromedp.Click(chromedp.CSS(`#recovery-banner details summary`), chromedp.NodeVisible))
	raw := tb.waitJS("the details", `(() => { const p = document.querySelector('#recovery-banner details[open] .excerpt'); return p && p.getBoundingClientRect().height > 0 ? p.textContent : ''; })()`, 5*time.Second)
	var excerpt string
	_ = json.Unmarshal(raw, &excerpt)
	if !strings.Contains(strings.ToLower(excerpt), "usage limit") {
		t.Errorf("details excerpt %q", excerpt)
	}
	tb.screenshot("#recovery-banner", "recovery-banner-usage-limit.png")
	if n := eval[int](tb, `window.__cardWhileRunning + document.querySelectorAll('#retry-card .countdown').length`); n != 0 {
		t.Error("a usage limit must not show the retry card")
	}
}
