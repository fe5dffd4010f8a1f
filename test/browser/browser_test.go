package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const chromiumPath = "/usr/bin/chromium"

// actionTimeout bounds one browser action; waits on page conditions take
// their own, longer timeouts.
const actionTimeout = 20 * time.Second

// tab is one browser tab with what it saw go wrong: uncaught exceptions,
// CSP violations and JavaScript dialogs, all of which fail the test.
type tab struct {
	t       *testing.T
	ctx     context.Context
	dialogs atomic.Int32
	wg      sync.WaitGroup // the dialog watcher

	mu       sync.Mutex // guards problems
	problems []string
}

// newBrowser starts a fresh headless Chromium (its own temporary profile)
// and returns its first tab, with a viewport of width×height CSS pixels.
func newBrowser(t *testing.T, width, height int) *tab {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if p, lerr := exec.LookPath("chromium"); lerr != nil || p == "" {
			if os.Getenv("CI") != "" {
				t.Fatalf("chromium is required in CI (apt-get install chromium): %v", err)
			}
			t.Skipf("no %s (apt-get install chromium); skipping the browser tests", chromiumPath)
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root in a container
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		// A second tab must keep its timers running at full speed.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.WindowSize(width, height),
		// No UserDataDir: chromedp makes a fresh temporary profile per
		// browser and removes it (with retries) when the browser is gone.
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc) // waits for the browser process
	return openTab(t, allocCtx, width, height)
}

// newTab opens another tab in the same browser as parent.
func (parent *tab) newTab(t *testing.T, width, height int) *tab {
	t.Helper()
	return openTab(t, parent.ctx, width, height)
}

func openTab(t *testing.T, parent context.Context, width, height int) *tab {
	t.Helper()
	tb := &tab{t: t}
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithListener(tb.listen))
	tb.ctx = ctx
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page state at the end:\n%s", tb.debugState())
		}
		cancel()
		tb.wg.Wait()
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("page problem: %s", p)
		}
		if n := tb.dialogs.Load(); n > 0 {
			t.Errorf("%d JavaScript dialog(s) opened", n)
		}
	})
	// The first Do starts the browser (or the tab) with no timeout, so that
	// the browser lives as long as the test (chromedp API example 21).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start browser tab: %v", err)
	}
	tb.do(chromedp.EmulateViewport(int64(width), int64(height)))
	// A dialog would block the page: count it and dismiss it.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	tb.wg.Go(func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			tb.dialogs.Add(1)
			tb.problem("JavaScript dialog opened: %q", ev.Message)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	})
	return tb
}

// listen runs in the tab's event loop: record, never block.
func (tb *tab) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text = d.Exception.Description
		}
		tb.problem("uncaught exception: %s (%s:%d)", text, d.URL, d.LineNumber+1)
	case *log.EventEntryAdded:
		if e := ev.Entry; e != nil && strings.Contains(e.Text, "Content Security Policy") {
			tb.problem("CSP violation: %s", e.Text)
		}
	}
}

func (tb *tab) problem(format string, args ...any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.problems = append(tb.problems, fmt.Sprintf(format, args...))
}

// do runs actions with a timeout and fails the test on error.
func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("browser action failed: %v\npage:\n%s", err, tb.debugState())
	}
}

// run runs one action that returns a value.
func run[T any](tb *tab, a chromedp.Action[T]) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tb.t.Fatalf("browser action failed: %v\npage:\n%s", err, tb.debugState())
	}
	return v
}

// eval evaluates a JavaScript expression in the page and decodes its value.
// (Runtime.evaluate is not subject to the page's CSP, unlike chromedp.Poll,
// whose predicate is built with new Function.)
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	return run(tb, chromedp.Evaluate[T](expr))
}

// evalAwait is eval for an expression that yields a promise.
func evalAwait[T any](tb *tab, expr string) T {
	tb.t.Helper()
	return run(tb, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// waitJS waits until the expression is truthy and returns its value as JSON.
// The page polls it every 25ms; nothing sleeps for a fixed time.
func (tb *tab) waitJS(what, expr string, timeout time.Duration) json.RawMessage {
	tb.t.Helper()
	script := fmt.Sprintf(`new Promise((resolve) => {
		const deadline = Date.now() + %d;
		const check = () => {
			let v;
			try { v = (%s); } catch (e) { v = undefined; }
			if (v) return resolve(v);
			if (Date.now() > deadline) return resolve(null);
			setTimeout(check, 25);
		};
		check();
	})`, timeout.Milliseconds(), expr)
	ctx, cancel := context.WithTimeout(tb.ctx, timeout+actionTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](script, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("waiting for %s: %v\npage:\n%s", what, err, tb.debugState())
	}
	if string(raw) == "null" || len(raw) == 0 {
		tb.t.Fatalf("timed out after %s waiting for %s\npage:\n%s", timeout, what, tb.debugState())
	}
	return raw
}

// debugState is a short description of the page for failure messages.
func (tb *tab) debugState() string {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const c = document.getElementById('chat');
		const q = (s) => document.querySelector(s);
		return [
			'url: ' + location.href,
			'conn: ' + (q('#conn') && q('#conn').textContent),
			'chat: ' + (c ? JSON.stringify(c.dataset) : '-'),
			'retry card: ' + (q('#retry-card') ? (q('#retry-card').hidden ? 'hidden' : q('#retry-card').textContent) : '-'),
			'banner: ' + (q('#recovery-banner') ? (q('#recovery-banner').hidden ? 'hidden' : q('#recovery-banner').textContent) : '-'),
			'notice: ' + (q('#notice') && !q('#notice').hidden ? q('#notice').textContent : '-'),
			'task error: ' + (q('#manage-error') && !q('#manage-error').hidden ? q('#manage-error').textContent : '-'),
			'messages:',
			...[...document.querySelectorAll('#messages [data-id]')].map((m) => '  [' + m.dataset.role + ' ' + m.dataset.seq + '] ' + m.textContent.slice(0, 200)),
		].join('\n');
	})()`))
	if err != nil {
		return fmt.Sprintf("(page state unavailable: %v)", err)
	}
	return s
}

// open navigates to url and waits until the page is connected.
func (tb *tab) open(url string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(url))
	tb.waitJS("the page to connect", `document.querySelector('#conn[data-state="ok"]')`, 15*time.Second)
}

// pressEnter sends Enter (optionally with Shift) to the focused element, as a
// keydown and a keyup with no extra char event (chromedp API example 20).
func (tb *tab) pressEnter(shift bool) {
	tb.t.Helper()
	var mods int64
	if shift {
		mods = 8 // Shift
	}
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: "Enter", Code: "Enter",
				WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Modifiers: mods}
			if shift && typ == input.DispatchKeyEventTypeRawKeyDown {
				// Shift+Enter must insert a new line: a keydown with text.
				p.Type = input.DispatchKeyEventTypeKeyDown
				p.Text = "\r"
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
				return err
			}
		}
		return nil
	}))
}

// screenshot saves a PNG of the element matching sel as an artefact.
func (tb *tab) screenshot(sel, name string) string {
	tb.t.Helper()
	png := run(tb, chromedp.Screenshot(chromedp.CSS(sel), chromedp.NodeVisible))
	dir := artifactsDir(tb.t)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatalf("save screenshot: %v", err)
	}
	tb.t.Logf("screenshot: %s", path)
	return path
}

// screenshotPage saves a PNG of the whole viewport as an artefact.
func (tb *tab) screenshotPage(name string) string {
	tb.t.Helper()
	png := run(tb, chromedp.CaptureScreenshot())
	path := filepath.Join(artifactsDir(tb.t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatalf("save screenshot: %v", err)
	}
	tb.t.Logf("screenshot: %s", path)
	return path
}

// artifactsDir is $ARTIFACTS_DIR, or artifacts/ at the repository root.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "artifacts")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	return abs
}

// createTask fills the New task form and waits until the page has
// subscribed to the new task's session; it returns the session id.
func (tb *tab) createTask(prompt, maxAttempts string) string {
	tb.t.Helper()
	if eval[bool](tb, `document.getElementById('new-task').hidden`) {
		tb.do(chromedp.Click(chromedp.ID("nt-toggle"), chromedp.NodeVisible)) // folded once tasks exist
	}
	tb.do(chromedp.SendKeys(chromedp.ID("nt-prompt"), prompt))
	if maxAttempts != "" {
		tb.do(chromedp.SendKeys(chromedp.ID("nt-max"), maxAttempts))
	}
	before := eval[string](tb, `document.getElementById('chat').dataset.sessionId || ''`)
	tb.do(chromedp.Click(chromedp.ID("nt-submit")))
	raw := tb.waitJS("the new task's session", fmt.Sprintf(`(() => {
		const c = document.getElementById('chat').dataset;
		return c.sessionId && c.sessionId !== %q && c.syncMode ? c.sessionId : '';
	})()`, before), 15*time.Second)
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		tb.t.Fatal(err)
	}
	return id
}

// messagesJS lists the chat log's messages: [{id, role, text}].
const messagesJS = `[...document.querySelectorAll('#messages [data-id]')].map((m) => ({
	id: m.dataset.id, role: m.dataset.role,
	text: (m.querySelector('.msg-body') || m).textContent,
}))`

type pageMessage struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Text string `json:"text"`
}

// cardState is what the retry card shows, read in one go with the page's clock.
type cardState struct {
	Visible   bool    `json:"visible"`
	RetryAt   string  `json:"retryAt"`
	Remaining int     `json:"remaining"`
	Now       float64 `json:"now"`
	Text      string  `json:"text"`
	Role      string  `json:"role"`
	Live      string  `json:"live"`
}

const cardJS = `(() => {
	const c = document.getElementById('retry-card');
	const cd = c.querySelector('.countdown');
	return {
		visible: !c.hidden && c.getBoundingClientRect().height > 0,
		retryAt: c.dataset.retryAt || '',
		remaining: cd ? Number(cd.dataset.remaining) : -1,
		now: Date.now(),
		text: c.textContent,
		role: c.getAttribute('role') || '',
		live: c.getAttribute('aria-live') || '',
	};
})()`

func (tb *tab) card() cardState {
	tb.t.Helper()
	return eval[cardState](tb, cardJS)
}

// expectedRemaining is the countdown the card must show at the page's now.
func (c cardState) expectedRemaining(t *testing.T) int {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, c.RetryAt)
	if err != nil {
		t.Fatalf("retry_at %q: %v", c.RetryAt, err)
	}
	ms := float64(at.UnixMilli()) - c.Now
	secs := int((ms + 999) / 1000)
	return max(secs, 0)
}

// checkCountdown asserts the card's number is computed from retry_at: the
// page's own clock at the same instant gives the same whole seconds (±1 for
// a tick landing between the two reads).
func checkCountdown(t *testing.T, where string, c cardState) {
	t.Helper()
	if want := c.expectedRemaining(t); c.Remaining < want-1 || c.Remaining > want+1 {
		t.Errorf("%s: countdown shows %ds, retry_at %s gives %ds", where, c.Remaining, c.RetryAt, want)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// jsJSON renders v as a JavaScript literal (JSON is one).
func jsJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
