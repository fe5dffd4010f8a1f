package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A task created with "Wait for the reset" in the New task form hits a
// usage window resetting in ten minutes: the amber card says so and counts
// down to the reset plus the margin, live; Retry now sends at once and the
// reply comes, the card gone.
func TestUsageLimitCardCountsDownAndRetryNowWorks(t *testing.T) {
	d := startDaemon(t, "")
	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL(""))
	tb.do(chromedp.SetValue(chromedp.ID("nt-usage"), "wait"))
	tb.createTask("/usage-limit:1:600 nightly refactor", "")
	tb.waitJS("the usage-limit card", cardVisibleJS, 20*time.Second)
	c := tb.card()
	tb.screenshot("#chat", "usage-limit-card.png")
	for _, want := range []string{"Usage limit reached", "Retry now", "Cancel"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("usage card %q lacks %q", c.Text, want)
		}
	}
	checkCountdown(t, "usage card", c)
	if c.Remaining < 590 || c.Remaining > 631 {
		t.Errorf("countdown %ds for a reset 10 minutes away plus the 30s margin", c.Remaining)
	}
	tb.waitJS("the countdown to tick", fmt.Sprintf(`Number((document.querySelector('#retry-card .countdown') || {dataset: {}}).dataset.remaining) < %d`, c.Remaining), 5*time.Second)
	checkCountdown(t, "after a tick", tb.card())

	tb.do(chromedp.Click(chromedp.CSS(`#retry-card button[data-action="retry_now"]`), chromedp.NodeVisible))
	tb.waitJS("the reply after Retry now", agentText(0)+`.startsWith('Recovered after 1 failures') && `+idleJS, 30*time.Second)
	tb.waitJS("the card to be gone", cardGoneJS, 5*time.Second)
	if eval[bool](tb, bannerVisibleJS) {
		t.Error("a usage wait that continued shows a banner")
	}
}
