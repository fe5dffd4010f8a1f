package wsapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
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
	now       func() time.Time // for the rate limiter

	ctx    context.Context // cancelled by Close; parent of every connection
	cancel context.CancelFunc
	wg     sync.WaitGroup // every connection goroutine

	mu     sync.Mutex // guards closed, so no wg.Go starts after Close began waiting
	closed bool

	// beforeWrite, when set (tests only), runs in the writer before each
	// frame, to simulate a client whose socket does not drain.
	beforeWrite func()
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
	s.handler = mux
	return s, nil
}

// Handler serves /ws (token required), /healthz and / (the web page).
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

func (s *Server) serveHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
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
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "+
			"script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
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
// as /ws, so one secret protects everything the daemon serves.
func (s *Server) RequireToken(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			writeHTTPError(w, http.StatusUnauthorized, &Error{Code: CodeUnauthorized, Message: "missing or wrong access token"})
			return
		}
		h.ServeHTTP(w, r)
	})
}
