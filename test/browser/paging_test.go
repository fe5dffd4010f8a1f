package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// TestLargeSessionLoadsInPages: a session larger than a snapshot page
// (256 KiB) opens whole: the page fetches the rest of the snapshot with
// session.page and shows every message once, in order.
func TestLargeSessionLoadsInPages(t *testing.T) {
	d := startDaemon(t, "")
	c := daemontest.Dial(t, d)
	big := func(tag string) string { return tag + " " + strings.Repeat("lorem ipsum dolor sit amet ", 7000) } // ~190 KB
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": big("first"), "agent": "mock"})
	s.Until(20*time.Second, daemontest.TurnEnded)
	c.Call("session.prompt", map[string]any{"session_id": s.ID, "text": big("second")})
	s.Until(20*time.Second, daemontest.TurnEnded)
	s.Until(20*time.Second, daemontest.IsState("WAITING_FOR_INPUT"))
	if snap := s.Snapshot(); snap.NextCursor == "" {
		t.Fatalf("a %d-message session of ~760 KB fits one page; the test needs a bigger one", len(snap.Messages))
	}

	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL("") + "#task=" + s.TaskID)
	tb.waitJS("every message", `document.querySelectorAll('#messages [data-role]').length === 4 && `+
		agentText(1)+`.startsWith('Echo: second')`, 30*time.Second)
	compareWithDaemon(t, tb, d, s.ID)
}
