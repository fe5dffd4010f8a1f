package wsapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/zap"
)

// Server serves /ws, /healthz and the web page. Create it with New and
// Close it to end every connection.
type Server struct {
	cfg       Config
	svc       Service
	feeds     feedSource
	log       *zap.Logger
	tokenHash [sha256.Size]byte
	handler   http.Handler
	now       func() time.Time // for the rate limiter and log limits
	authFails logLimiter       // failed logins
	refusals  logLimiter       // refused Host headers

	ctx    context.Context // cancelled by Close; parent of every connection
	cancel context.CancelFunc
	wg     sync.WaitGroup // every connection goroutine

	mu     sync.Mutex // guards closed, so no wg.Go starts after Close began waiting
	closed bool

	// beforeWrite, when set (tests only), runs in the writer before each
	// frame, to simulate a client whose socket does not drain.
	beforeWrite func()
	// queuePeak is the most bytes any connection had queued (tests, and
	// the memory bound they prove).
	queuePeak atomic.Int64
}

// noteQueued records a connection's queued bytes in queuePeak.
func (s *Server) noteQueued(n int) {
	for {
		p := s.queuePeak.Load()
		if int64(n) <= p || s.queuePeak.CompareAndSwap(p, int64(n)) {
			return
		}
	}
}

// New validates cfg and builds a Server; it serves once Handler is mounted.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:       cfg,
		svc:       cfg.Service,
		feeds:     serviceFeeds{cfg.Service},
		log:       cfg.Logger,
		tokenHash: sha256.Sum256([]byte(cfg.Token)),
		now:       time.Now,
		ctx:       ctx,
		cancel:    cancel,
	}
	if fs, ok := cfg.Service.(feedSource); ok {
		s.feeds = fs
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", s.serveWS)
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.Handle("/", s.staticHandler())
	s.handler = s.checkHost(mux)
	return s, nil
}

// Handler serves /ws (token required), /healthz and / (the web page), each
// only to an allowed Host (see hostAllowed).
func (s *Server) Handler() http.Handler { return s.handler }

// Close ends every connection with StatusGoingAway and waits for all of
// their goroutines. Safe to call more than once and concurrently.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// serveHealth answers 200 {"status":"ok"} while the store can write, and 503
// {"status":"store_unwritable", "store": {…}} naming the last write error and
// when it happened while it cannot (disk full, read-only): a monitor sees
// the daemon is up but cannot save. No token: monitors and load balancers
// call it, and it tells nothing about tasks; the Host check still applies.
func (s *Server) serveHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	body := healthBody{Status: "ok"}
	status := http.StatusOK
	if s.cfg.Health != nil {
		h := s.cfg.Health()
		if !h.Writable {
			status = http.StatusServiceUnavailable
			body.Status = "store_unwritable"
		}
		body.Store = &h
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

type healthBody struct {
	Status string       `json:"status"`
	Store  *StoreHealth `json:"store,omitempty"`
}

// staticHandler serves the page with headers that keep the token in its URL
// from leaking (no Referer) and agent text from running as code (CSP).
func (s *Server) staticHandler() http.Handler {
	if s.cfg.Static == nil {
		return http.NotFoundHandler()
	}
	files := http.FileServerFS(s.cfg.Static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			writeHTTPError(w, http.StatusMethodNotAllowed, newError(CodeBadRequest, "the page answers only GET and HEAD"))
			return
		}
		// WebSockets only to this page's own host (r.Host passed checkHost):
		// 'self' alone does not cover ws: in every browser.
		connect := "'self'"
		if safeHost(r.Host) {
			connect += " ws://" + r.Host + " wss://" + r.Host
		}
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src "+connect+"; img-src 'self' data:; "+
			"script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// safeHost: r.Host is only letters, digits and . - : [ ], so it cannot
// change the meaning of the CSP header it is written into.
func safeHost(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range h {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune(".-:[]", c):
		default:
			return false
		}
	}
	return true
}

// authorized checks "Authorization: Bearer <token>", else ?token=. Both
// sides are hashed first so the comparison is constant-time in length too.
func (s *Server) authorized(r *http.Request) bool {
	token := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			token = strings.TrimSpace(rest)
		}
	} else {
		token = r.URL.Query().Get("token")
	}
	if token == "" {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], s.tokenHash[:]) == 1
}

func writeHTTPError(w http.ResponseWriter, status int, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="orchestratord"`)
	}
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a JSON body, never rendered as HTML; keep "<token>" readable
	_ = enc.Encode(e)
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		s.logAuthFailure(r)
		writeHTTPError(w, http.StatusUnauthorized, newError(CodeUnauthorized,
			"a valid access token is required: Authorization: Bearer <token>, or ?token=<token>"))
		return
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		writeHTTPError(w, http.StatusServiceUnavailable, newError(CodeInternalError, "server is shutting down"))
		return
	}
	// Accept checks Origin (same host, or OriginPatterns) and answers 403 itself.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns})
	if err != nil {
		s.log.Info("websocket upgrade refused", zap.String("remote", r.RemoteAddr),
			zap.String("origin", r.Header.Get("Origin")), zap.Error(err))
		return
	}
	ws.SetReadLimit(s.cfg.HardReadLimit)

	// wg.Go under mu: once Close has set closed, nothing new joins wg.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = ws.Close(websocket.StatusGoingAway, reasonShutdown)
		return
	}
	s.wg.Go(newConn(s, ws, r.RemoteAddr).run)
	s.mu.Unlock()
}

// RequireToken guards another endpoint (e.g. /metrics) with the same token
// and Host check as /ws, so one secret protects everything the daemon serves.
func (s *Server) RequireToken(h http.Handler) http.Handler {
	return s.checkHost(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			s.logAuthFailure(r)
			writeHTTPError(w, http.StatusUnauthorized, &Error{Code: CodeUnauthorized, Message: "missing or wrong access token"})
			return
		}
		h.ServeHTTP(w, r)
	}))
}
