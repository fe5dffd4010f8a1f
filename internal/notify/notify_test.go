package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// request is one POST the receiver saw.
type request struct {
	body   string
	header http.Header
}

// receiver is a loopback webhook endpoint. answer decides each response
// (by the 1-based number of the request); nil answers 204.
type receiver struct {
	srv    *httptest.Server
	got    chan request
	mu     sync.Mutex // guards n
	n      int
	answer func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{got: make(chan request, 1024), answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.n++
		n := rc.n
		rc.mu.Unlock()
		rc.got <- request{body: string(b), header: r.Header.Clone()}
		if rc.answer != nil {
			rc.answer(n, w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) next(t *testing.T) request {
	t.Helper()
	select {
	case r := <-rc.got:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver got no request within 10s")
		return request{}
	}
}

// none asserts that nothing more arrives within a short real-time span.
func (rc *receiver) none(t *testing.T) {
	t.Helper()
	select {
	case r := <-rc.got:
		t.Fatalf("unexpected request: %s", r.body)
	case <-time.After(300 * time.Millisecond):
	}
}

func newNotifier(t *testing.T, cfg Config) *Notifier {
	t.Helper()
	n, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.Close()) })
	return n
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var at0 = time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)

func needsYou(key string) Event {
	return Event{Kind: NeedsYou, Key: key, TaskID: "task-1", SessionID: "sess-1", Title: "fix the bug", Agent: "mock",
		Text: "The API key was rejected.", Reason: "user_action", At: at0}
}

func TestPostsOneJSONBodyPerEvent(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	n := newNotifier(t, Config{Webhooks: []Webhook{{URL: rc.srv.URL + "/hook"}}, BaseURL: "http://box.lan:7420/"})
	n.Notify(needsYou("banner:1"))
	r := rc.next(t)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &got))
	require.Equal(t, "needs_you", got["event"])
	require.Equal(t, "task-1", got["task_id"])
	require.Equal(t, "sess-1", got["session_id"])
	require.Equal(t, "fix the bug", got["title"])
	require.Equal(t, "The API key was rejected.", got["text"])
	require.Equal(t, "Needs you: fix the bug — The API key was rejected.", got["summary"])
	require.Equal(t, "http://box.lan:7420/#task=task-1", got["url"])
	require.NotContains(t, got, "Key")

	// The same moment again (a banner saved later, a notice updated in
	// place) is not sent twice; another one is.
	n.Notify(needsYou("banner:1"))
	fin := Event{Kind: Finished, Key: "turn:1", TaskID: "task-1", Title: "fix the bug", Text: "The agent finished its turn.", At: at0}
	n.Notify(fin)
	r = rc.next(t)
	require.Contains(t, r.body, `"event":"finished"`)
	rc.none(t)
}

func TestWaitingOnlyWhenLongOrAUsageWindow(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	n := newNotifier(t, Config{Webhooks: []Webhook{{URL: rc.srv.URL}}, LongWait: 2 * time.Minute})
	wait := func(key string, d time.Duration, usage bool) Event {
		r := at0.Add(d)
		return Event{Kind: Waiting, Key: key, TaskID: "t", Text: "…", RetryAt: &r, UsageWindow: usage, At: at0}
	}
	n.Notify(wait("wait:short", 15*time.Second, false)) // heals on its own
	n.Notify(wait("wait:long", 3*time.Minute, false))
	r := rc.next(t)
	require.Contains(t, r.body, `"retry_at":"2026-12-01T23:03:00Z"`)
	n.Notify(wait("wait:usage", 10*time.Second, true))
	r = rc.next(t)
	require.Contains(t, r.body, `"usage_window":true`)
	// The short one was not recorded as seen: when the same chain later
	// waits long, that is sent.
	n.Notify(wait("wait:short", 5*time.Minute, false))
	rc.next(t)
	rc.none(t)
}

func TestWebhookEventsFilterAndTemplate(t *testing.T) {
	t.Parallel()
	slack := newReceiver(t, nil)
	ntfy := newReceiver(t, nil)
	n := newNotifier(t, Config{Webhooks: []Webhook{
		{Name: "slack", URL: slack.srv.URL, Template: `{"text": {{json .Summary}}}`},
		{Name: "ntfy", URL: ntfy.srv.URL, Events: []Kind{NeedsYou}, ContentType: "text/plain",
			Headers: map[string]string{"Title": "orchestratord", "Priority": "high"}, Template: `{{.Title}}: {{.Text}}`},
	}})
	n.Notify(Event{Kind: Finished, Key: "turn:1", TaskID: "t", Title: `say "hi"`, Text: "The agent finished its turn.", At: at0})
	n.Notify(needsYou("banner:1"))

	r := slack.next(t)
	require.JSONEq(t, `{"text": "Finished: say \"hi\" — The agent finished its turn."}`, r.body)
	r = slack.next(t)
	require.JSONEq(t, `{"text": "Needs you: fix the bug — The API key was rejected."}`, r.body)

	r = ntfy.next(t) // only needs_you
	require.Equal(t, "fix the bug: The API key was rejected.", r.body)
	require.Equal(t, "text/plain", r.header.Get("Content-Type"))
	require.Equal(t, "orchestratord", r.header.Get("Title"))
	require.Equal(t, "high", r.header.Get("Priority"))
	ntfy.none(t)
}

func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	n := newNotifier(t, Config{Webhooks: []Webhook{{URL: rc.srv.URL}, {URL: rc.srv.URL, Template: "{{.Text}} {{.Title}} {{.Summary}}"}}})
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
	const ghp = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	e := needsYou("banner:secret")
	e.Title = "deploy with " + ghp
	e.Text = "Invalid API key: " + key
	n.Notify(e)
	for range 2 {
		r := rc.next(t)
		require.NotContains(t, r.body, key)
		require.NotContains(t, r.body, ghp)
		require.NotContains(t, r.body, "abcdefghijklmnopqrstuvwxyz0123456789")
		require.Contains(t, r.body, "REDACTED")
	}
}

func TestRetriesWithBackoffOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	clk := quartz.NewMock(t)
	backoff := clk.Trap().NewTimer("notify", "backoff")
	defer backoff.Close()
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		switch n {
		case 1:
			w.WriteHeader(http.StatusBadGateway)
		case 2:
			w.Header().Set("Retry-After", "42") // longer than the 5s step: honoured
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	n := newNotifier(t, Config{Clock: clk, Webhooks: []Webhook{{URL: rc.srv.URL, Backoff: []time.Duration{time.Second, 5 * time.Second}}}})
	n.Notify(needsYou("banner:1"))

	rc.next(t) // 502
	call := backoff.MustWait(ctx)
	require.Equal(t, time.Second, call.Duration)
	call.MustRelease(ctx)
	rc.none(t) // not before the backoff has passed
	clk.Advance(time.Second).MustWait(ctx)
	rc.next(t) // 429, Retry-After 42
	call = backoff.MustWait(ctx)
	require.Equal(t, 42*time.Second, call.Duration)
	call.MustRelease(ctx)
	clk.Advance(41 * time.Second).MustWait(ctx)
	rc.none(t)
	clk.Advance(time.Second).MustWait(ctx)
	require.Equal(t, rc.next(t).body, needsYouBody(t, n))
	require.Eventually(t, func() bool { return n.Stats()[0].Sent == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, Stats{Name: n.Stats()[0].Name, Sent: 1, Retries: 2}, n.Stats()[0])
}

// needsYouBody is the default body of needsYou("banner:1") as n sends it.
func needsYouBody(t *testing.T, n *Notifier) string {
	b, err := n.cfg.hooks[0].body(needsYou("banner:1").sanitized())
	require.NoError(t, err)
	return string(b)
}

func TestGivesUpAfterItsAttemptsAndOnARefusal(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	clk := quartz.NewMock(t)
	backoff := clk.Trap().NewTimer("notify", "backoff")
	defer backoff.Close()
	down := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	n := newNotifier(t, Config{Clock: clk, Webhooks: []Webhook{{URL: down.srv.URL, Attempts: 3}}})
	n.Notify(needsYou("banner:1"))
	for _, want := range []time.Duration{time.Second, 5 * time.Second} {
		down.next(t)
		call := backoff.MustWait(ctx)
		require.Equal(t, want, call.Duration)
		call.MustRelease(ctx)
		clk.Advance(want).MustWait(ctx)
	}
	down.next(t) // the third and last
	require.Eventually(t, func() bool { return n.Stats()[0].Failed == 1 }, 10*time.Second, 10*time.Millisecond)
	down.none(t)

	// A 4xx other than 408/429 is the receiver saying no: not repeated.
	refuse := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	n2 := newNotifier(t, Config{Clock: clk, Webhooks: []Webhook{{URL: refuse.srv.URL}}})
	n2.Notify(needsYou("banner:1"))
	refuse.next(t)
	require.Eventually(t, func() bool { return n2.Stats()[0].Failed == 1 }, 10*time.Second, 10*time.Millisecond)
	refuse.none(t)
}

func TestTimeoutBoundsAHungReceiver(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	clk := quartz.NewMock(t)
	timeout := clk.Trap().AfterFunc("notify", "timeout")
	defer timeout.Close()
	backoff := clk.Trap().NewTimer("notify", "backoff")
	defer backoff.Close()
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			<-r.Context().Done() // hangs until the client gives up
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	n := newNotifier(t, Config{Clock: clk, Webhooks: []Webhook{{URL: rc.srv.URL, Timeout: 3 * time.Second}}})
	n.Notify(needsYou("banner:1"))
	call := timeout.MustWait(ctx)
	require.Equal(t, 3*time.Second, call.Duration)
	call.MustRelease(ctx)
	rc.next(t)
	clk.Advance(3 * time.Second).MustWait(ctx) // the request is cancelled…
	call = backoff.MustWait(ctx)               // …and retried after the backoff
	call.MustRelease(ctx)
	timeout.Close()
	clk.Advance(time.Second).MustWait(ctx)
	rc.next(t)
	require.Eventually(t, func() bool { return n.Stats()[0].Sent == 1 }, 10*time.Second, 10*time.Millisecond)
}

func TestFullQueueDropsTheOldestAndNeverBlocks(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			<-release
		}
		w.WriteHeader(http.StatusOK)
	})
	n := newNotifier(t, Config{Queue: 3, Webhooks: []Webhook{{URL: rc.srv.URL, Template: "{{.Key}}"}}})
	n.Notify(needsYou("e0"))
	require.Equal(t, "e0", rc.next(t).body) // in flight, held by the receiver
	start := time.Now()
	for i := 1; i <= 1000; i++ {
		n.Notify(needsYou(fmt.Sprintf("e%d", i)))
	}
	require.Less(t, time.Since(start), 2*time.Second, "Notify must not wait for the receiver")
	require.Equal(t, 997, n.Stats()[0].Dropped)
	close(release)
	for _, want := range []string{"e998", "e999", "e1000"} {
		require.Equal(t, want, rc.next(t).body)
	}
	rc.none(t)
	require.Eventually(t, func() bool { return n.Stats()[0].Sent == 4 }, 10*time.Second, 10*time.Millisecond)
}

func TestCloseCancelsARequestInFlight(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	n, err := New(Config{Webhooks: []Webhook{{URL: rc.srv.URL, Timeout: time.Hour}}})
	require.NoError(t, err)
	n.Notify(needsYou("banner:1"))
	n.Notify(needsYou("banner:2"))
	rc.next(t)
	done := make(chan struct{})
	go func() { _ = n.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return while a request hung")
	}
	require.Equal(t, 2, n.Stats()[0].Dropped)
	require.NoError(t, n.Close())  // twice is fine
	n.Notify(needsYou("banner:3")) // after Close: ignored
}

func TestConfigErrorsNameTheField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg   Config
		field string
	}{
		{Config{Webhooks: []Webhook{{URL: "ftp://x"}}}, "webhooks[0].url"},
		{Config{Webhooks: []Webhook{{URL: "http://x"}, {URL: ""}}}, "webhooks[1].url"},
		{Config{Webhooks: []Webhook{{URL: "http://x", Events: []Kind{"done"}}}}, "webhooks[0].events"},
		{Config{Webhooks: []Webhook{{URL: "http://x", Template: "{{.Nope}}"}}}, "webhooks[0].template"},
		{Config{Webhooks: []Webhook{{URL: "http://x", Template: "{{"}}}, "webhooks[0].template"},
		{Config{Webhooks: []Webhook{{URL: "http://x", Headers: map[string]string{"a b": "1"}}}}, "webhooks[0].headers"},
		{Config{Webhooks: []Webhook{{URL: "http://x", Timeout: -time.Second}}}, "webhooks[0].timeout"},
		{Config{Queue: -1}, "queue"},
		{Config{BaseURL: "box.lan"}, "base_url"},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate()
		require.Error(t, err, tc.field)
		require.True(t, strings.HasPrefix(err.Error(), "notify."+tc.field+":"), "%v", err)
	}
	require.NoError(t, Config{Webhooks: []Webhook{{URL: "https://ntfy.sh/topic", Template: "{{.Summary}} {{json .RetryAt}}"}}}.Validate())
}
