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
	// Big prompts with short replies (/slow ignores its text): 6 messages,
	// ~570 KB, three pages.
	big := func(tag string) string {
		return "/slow:10 " + tag + " " + strings.Repeat("lorem ipsum dolor sit amet ", 7000)
	}
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": big("first"), "agent": "mock"})
	s.Until(30*time.Second, daemontest.TurnEnded)
	for _, tag := range []string{"second", "third"} {
		s.Until(30*time.Second, daemontest.IsState("WAITING_FOR_INPUT"))
		c.Call("session.prompt", map[string]any{"session_id": s.ID, "text": big(tag)})
		s.Until(30*time.Second, daemontest.TurnEnded)
	}
	s.Until(30*time.Second, daemontest.IsState("WAITING_FOR_INPUT"))
	if snap := s.Snapshot(); snap.NextCursor == "" {
		t.Fatalf("a %d-message session of ~570 KB fits one page; the test needs a bigger one", len(snap.Messages))
	}

	tb := newBrowser(t, 1280, 900)
	tb.open(d.PageURL("") + "#task=" + s.TaskID)
	tb.waitJS("every message", `document.querySelectorAll('#messages [data-role]').length === 6 && `+
		agentText(2)+`.includes('step 10/10.')`, 30*time.Second)
	compareWithDaemon(t, tb, d, s.ID)
}
