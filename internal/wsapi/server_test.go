package wsapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/web"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The orchestrator satisfies the consumer interface as is.
var _ Service = (*orchestrator.Service)(nil)

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Token: "x"})
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Service", ce.Field)

	_, err = New(Config{Service: newFakeService()})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Token", ce.Field)

	_, err = New(Config{Service: newFakeService(), Token: "x", ReadLimit: 10, HardReadLimit: 5})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "HardReadLimit", ce.Field)

	s, err := New(Config{Service: newFakeService(), Token: "x"})
	require.NoError(t, err)
	require.EqualValues(t, DefaultReadLimit, s.cfg.ReadLimit)
	require.EqualValues(t, 16*DefaultReadLimit, s.cfg.HardReadLimit)
	require.Equal(t, DefaultSubscriberBuffer, s.cfg.SubscriberBuffer)
	require.Equal(t, DefaultWriteTimeout, s.cfg.WriteTimeout)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
}

func dialStatus(t *testing.T, url string, h http.Header) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		_ = ws.CloseNow()
		t.Fatalf("dial %s succeeded; want a refusal", url)
	}
	require.NotNil(t, resp, "dial error %v", err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp, body
}

func TestAuth(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)

	for name, tc := range map[string]struct {
		query string
		auth  string
	}{
		"no token":         {},
		"wrong bearer":     {auth: "Bearer nope"},
		"wrong scheme":     {auth: "Basic " + testToken},
		"wrong query":      {query: "?token=nope"},
		"prefix of token":  {query: "?token=" + testToken[:4]},
		"bearer wins over": {auth: "Bearer nope", query: "?token=" + testToken},
	} {
		h := http.Header{}
		if tc.auth != "" {
			h.Set("Authorization", tc.auth)
		}
		resp, body := dialStatus(t, env.wsURL(tc.query), h)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		var e Error
		require.NoError(t, json.Unmarshal(body, &e), "%s: body %q", name, body)
		require.Equal(t, CodeUnauthorized, e.Code, name)
		require.NotEmpty(t, e.Message, name)
	}

	// The browser way: ?token=.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, env.wsURL("?token="+testToken), nil)
	require.NoError(t, err)
	c := &client{t: t, ws: ws}
	c.healthy()
	require.NoError(t, ws.Close(websocket.StatusNormalClosure, ""))

	// The script way: a bearer header.
	env.dial(t).healthy()
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, func(c *Config) { c.OriginPatterns = []string{"ui.example.com"} })
	bad := http.Header{}
	bad.Set("Authorization", "Bearer "+testToken)
	bad.Set("Origin", "http://evil.example.com")
	resp, _ := dialStatus(t, env.wsURL(""), bad)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	for _, origin := range []string{env.http.URL, "https://ui.example.com"} {
		h := http.Header{}
		h.Set("Authorization", "Bearer "+testToken)
		h.Set("Origin", origin)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, _, err := websocket.Dial(ctx, env.wsURL(""), &websocket.DialOptions{HTTPHeader: h})
		cancel()
		require.NoError(t, err, origin)
		(&client{t: t, ws: ws}).healthy()
		_ = ws.CloseNow()
	}
}

func TestHealthzAndStatic(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	resp, err := http.Get(env.http.URL + "/healthz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.JSONEq(t, `{"status":"ok"}`, string(body))

	resp, err = http.Get(env.http.URL + "/?token=whatever")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "<title>t</title>")
	require.Equal(t, "no-referrer", resp.Header.Get("Referrer-Policy"), "the token in the URL must not leak")
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self'")

	resp, err = http.Get(env.http.URL + "/missing.js")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestCloseEndsConnectionsAndLeavesNoGoroutines(t *testing.T) {
	svc := newFakeService()
	srv, err := New(Config{Service: svc, Token: testToken})
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	env := &testEnv{srv: srv, http: hs, svc: svc}

	clients := []*client{env.dial(t), env.dial(t), env.dial(t)}
	for _, c := range clients {
		c.ok(c.call(ActionSessionSubscribe, map[string]any{"session_id": "s1"}), nil)
	}
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }() // the clients answer the close handshake meanwhile
	for _, c := range clients {
		ce := c.expectClose()
		require.Equal(t, websocket.StatusGoingAway, ce.Code)
	}
	require.NoError(t, <-closed)
	for _, f := range svc.allFeeds() {
		require.True(t, f.closed(), "every subscription is released")
	}
	require.NoError(t, srv.Close(), "Close is idempotent")

	// After Close the endpoint refuses new connections.
	h := http.Header{}
	h.Set("Authorization", "Bearer "+testToken)
	resp, _ := dialStatus(t, env.wsURL(""), h)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)

	for _, c := range clients {
		_ = c.ws.CloseNow()
	}
	hs.Close()
	// Not parallel: the other tests are paused in t.Parallel, which goleak ignores.
	goleak.VerifyNone(t)
}

func TestCloseDoesNotWaitLongForASilentClient(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	c := env.dial(t)
	c.healthy()
	start := time.Now()
	require.NoError(t, env.srv.Close()) // the client never reads, so never answers the close frame
	// Without the grace Close would wait for the client forever; the margin
	// is wide because a loaded CI machine is slow, not because Close is.
	require.Less(t, time.Since(start), closeGrace+10*time.Second)
}

func TestServesEmbeddedPage(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, func(c *Config) { c.Static = web.Static() })
	for path, want := range map[string]string{"/": "app.js", "/app.js": "textContent", "/style.css": ".msg"} {
		resp, err := http.Get(env.http.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Contains(t, string(body), want, path)
	}
}
