package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// fakeNotifications replaces the Notification API (headless Chromium has no
// notification UI) and makes document.hidden settable, before the page's
// scripts run.
const fakeNotifications = `
window.__notes = []; window.__asked = 0; window.__hidden = false;
class FakeNotification {
	constructor(title, opts) { window.__notes.push({ title, body: opts.body, tag: opts.tag }); }
	close() {}
}
FakeNotification.permission = 'default';
FakeNotification.requestPermission = () => { window.__asked++; FakeNotification.permission = 'granted'; return Promise.resolve('granted'); };
window.Notification = FakeNotification;
Object.defineProperty(Document.prototype, 'hidden', { get() { return window.__hidden; }, configurable: true });
`

type fakeNote struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	Tag   string `json:"tag"`
}

// The page asks for notification permission once (on the first task it
// creates) and, while the tab is hidden, tells of a finished turn and of a
// task that needs its user; while it is visible it tells nothing.
func TestBrowserNotificationsOnlyWhenHidden(t *testing.T) {
	d := startDaemon(t, "")
	c := daemontest.Dial(t, d)
	tb := newBrowser(t, 1280, 900)
	tb.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fakeNotifications})
		return err
	}))
	tb.open(d.PageURL(""))

	notes := func() []fakeNote { return eval[[]fakeNote](tb, `window.__notes`) }
	currentTask := func() string {
		return eval[string](tb, `document.querySelector('.task[aria-current="true"]').dataset.taskId`)
	}
	waitState := func(taskID, state string) {
		tb.waitJS("task "+taskID+" "+state, fmt.Sprintf(`document.querySelector('.task[data-task-id=%q][data-state=%q]')`, taskID, state), 30*time.Second)
	}

	// Visible: the turn ends, nothing is shown; permission was asked for.
	sid := tb.createTask("hello while watching", "")
	daemontest.Follow(t, c, "", sid, 0).Until(30*time.Second, daemontest.TurnEnded)
	waitState(currentTask(), "REVIEW")
	if n := eval[int](tb, `window.__asked`); n != 1 {
		t.Fatalf("permission asked %d times, want once", n)
	}
	if got := notes(); len(got) != 0 {
		t.Fatalf("notifications while the tab was visible: %+v", got)
	}

	// Hidden: a finished turn, then a task that needs you.
	eval[bool](tb, `window.Notification.permission = 'default', true`) // would ask again if it forgot
	sid = tb.createTask("/slow:1500 hello while away", "")
	task := currentTask()
	eval[bool](tb, `window.Notification.permission = 'granted', window.__hidden = true`)
	daemontest.Follow(t, c, "", sid, 0).Until(30*time.Second, daemontest.TurnEnded)
	raw := tb.waitJS("a finished notification", `window.__notes.length >= 1 && window.__notes`, 30*time.Second)
	var got []fakeNote
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0].Title, "Finished: ") || got[0].Tag != "orchestratord-task-"+task {
		t.Fatalf("after a finished turn: %+v", got)
	}
	if n := eval[int](tb, `window.__asked`); n != 1 {
		t.Fatalf("permission asked %d times, want once", n)
	}

	tb.createTask("/auth hello", "") // still hidden (as far as the page knows)
	task = currentTask()
	waitState(task, "FAILED")
	raw = tb.waitJS("a needs-you notification", `window.__notes.length >= 2 && window.__notes`, 30*time.Second)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[1].Title, "Needs you: ") || got[1].Tag != "orchestratord-task-"+task {
		t.Fatalf("after a banner: %+v", got)
	}
}
