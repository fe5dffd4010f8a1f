package wsapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func do(t *testing.T, method, url, host string, h http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp, string(body)
}

func TestHostHeaderIsChecked(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, func(c *Config) { c.AllowedHosts = []string{"orchestra.example", "*.lan.example"} })
	metrics := env.srv.RequireToken(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("m")) }))
	bearer := http.Header{"Authorization": {"Bearer " + testToken}}
	for host, ok := range map[string]bool{
		"":                       true, // the listener's own 127.0.0.1:port
		"localhost:7420":         true,
		"LOCALHOST.":             true,
		"app.localhost:7420":     true,
		"[::1]:7420":             true,
		"10.1.2.3:7420":          true, // an IP literal cannot be a rebound name
		"orchestra.example:7420": true,
		"box.lan.example":        true,
		"evil.example":           false,
		"evil.example:7420":      false,
		"lan.example.evil.com":   false,
		"orchestra.example.evil": false,
		"localhost.evil.example": false,
		"127.0.0.1.nip.io:7420":  false,
	} {
		for _, path := range []string{"/", "/healthz", "/ws"} {
			resp, body := do(t, http.MethodGet, env.http.URL+path, host, bearer)
			if ok {
				require.NotEqual(t, http.StatusForbidden, resp.StatusCode, "%s %s: %s", host, path, body)
				continue
			}
			require.Equal(t, http.StatusForbidden, resp.StatusCode, "%s %s", host, path)
			var e Error
			require.NoError(t, json.Unmarshal([]byte(body), &e))
			require.Equal(t, CodeForbidden, e.Code)
			require.Contains(t, e.Message, "--allowed-hosts")
		}
		req, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
		req.Host = host
		if host == "" {
			req.Host = "127.0.0.1"
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := newRecorder()
		metrics.ServeHTTP(rec, req)
		require.Equal(t, ok, rec.status == http.StatusOK, "/metrics via %q: %d", host, rec.status)
	}
}

type recorder struct {
	h      http.Header
	status int
}

func newRecorder() *recorder                    { return &recorder{h: http.Header{}, status: http.StatusOK} }
func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(s int)           { r.status = s }

func TestStaticAnswersOnlyGetAndHead(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, "TRACE", http.MethodOptions} {
		resp, _ := do(t, m, env.http.URL+"/", "", nil)
		require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, m)
		require.Equal(t, "GET, HEAD", resp.Header.Get("Allow"), m)
	}
	resp, _ := do(t, http.MethodHead, env.http.URL+"/", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// WebSockets only to the page's own host.
	resp, _ = do(t, http.MethodGet, env.http.URL+"/", "localhost:7420", nil)
	csp := resp.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "connect-src 'self' ws://localhost:7420 wss://localhost:7420;")
	require.NotContains(t, csp, "ws: ")
	require.NotContains(t, csp, "wss:;")
}

func TestHealthzReportsAStoreThatCannotWrite(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	health := StoreHealth{Writable: true}
	env := newTestEnv(t, func(c *Config) { c.Health = func() StoreHealth { return health } })
	resp, body := do(t, http.MethodGet, env.http.URL+"/healthz", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.JSONEq(t, `{"status":"ok","store":{"writable":true}}`, body)

	health = StoreHealth{Writable: false, LastError: "database or disk is full (13)", ErrorAt: &at, Failures: 3}
	resp, body = do(t, http.MethodGet, env.http.URL+"/healthz", "", nil) // no token needed
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.JSONEq(t, `{"status":"store_unwritable","store":{"writable":false,
		"last_error":"database or disk is full (13)","error_at":"2026-12-01T20:00:00Z","failures":3}}`, body)
}

func TestFailedLoginsAreLoggedRateLimitedWithoutTheToken(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	env := newTestEnv(t, func(c *Config) { c.Logger = zap.New(core) })
	env.srv.now = func() time.Time { return now }
	metrics := env.srv.RequireToken(http.NotFoundHandler())

	secret := "presented-secret-0123456789"
	for i := 0; i < 5; i++ {
		resp, _ := do(t, http.MethodGet, env.http.URL+"/ws?token="+secret, "", nil)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	}
	lines := logs.FilterMessage("access refused: missing or wrong token").All()
	require.Len(t, lines, 1, "a flood is one line per interval")
	require.Equal(t, "wrong token parameter", lines[0].ContextMap()["reason"])
	require.Equal(t, "/ws", lines[0].ContextMap()["path"])

	now = now.Add(logEvery)
	req, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
	req.Host = "127.0.0.1"
	req.Header.Set("Authorization", "Bearer "+secret)
	metrics.ServeHTTP(newRecorder(), req)
	lines = logs.FilterMessage("access refused: missing or wrong token").All()
	require.Len(t, lines, 2)
	fields := lines[1].ContextMap()
	require.Equal(t, "wrong bearer token", fields["reason"])
	require.Equal(t, "/metrics", fields["path"])
	require.EqualValues(t, 4, fields["similar_not_logged"])

	for _, e := range logs.All() {
		b, _ := json.Marshal(e.ContextMap())
		require.False(t, strings.Contains(e.Message+string(b), secret), "the presented token is never logged: %s %s", e.Message, b)
	}
}
