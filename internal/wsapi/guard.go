package wsapi

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// hostAllowed checks a request's Host header against DNS rebinding: a page
// on evil.example whose name is re-pointed at 127.0.0.1 reaches this daemon
// with "Host: evil.example", and must get nothing. Allowed: any IP literal
// (a page loaded from an IP address has that address as its origin, so it
// cannot be a rebound name), "localhost" and names under ".localhost"
// (RFC 6761: always loopback), and the configured AllowedHosts — exact
// names, "*.example.com" for subdomains, or "*" for any.
func (s *Server) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false // HTTP/1.1 requires Host; only hand-made requests lack it
	}
	if net.ParseIP(host) != nil || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, p := range s.cfg.AllowedHosts {
		p = strings.ToLower(strings.TrimSuffix(p, "."))
		switch {
		case p == "*" || p == host:
			return true
		case strings.HasPrefix(p, "*.") && strings.HasSuffix(host, p[1:]):
			return true
		}
	}
	return false
}

// checkHost answers 403 to a request whose Host is not allowed.
func (s *Server) checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r) {
			s.refusals.note(s.log, s.now(), "request refused: Host not allowed (add it with --allowed-hosts)",
				zap.String("host", r.Host), zap.String("remote", r.RemoteAddr), zap.String("path", r.URL.Path))
			writeHTTPError(w, http.StatusForbidden, newError(CodeForbidden,
				"this host name is not allowed; start the daemon with --allowed-hosts %s to use it", hostOnly(r.Host)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// logLimiter logs at most one line per interval for a kind of event that
// a client can cause at will (failed logins, refused hosts), with the count
// of those left out since the last line, so a flood cannot fill the log.
type logLimiter struct {
	mu         sync.Mutex // guards last and suppressed
	last       time.Time
	suppressed int
}

// logEvery is the interval of logLimiter.
const logEvery = 10 * time.Second

func (l *logLimiter) note(log *zap.Logger, now time.Time, msg string, fields ...zap.Field) {
	l.mu.Lock()
	if !l.last.IsZero() && now.Sub(l.last) < logEvery {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	l.last = now
	n := l.suppressed
	l.suppressed = 0
	l.mu.Unlock()
	if n > 0 {
		fields = append(fields, zap.Int("similar_not_logged", n))
	}
	log.Warn(msg, fields...)
}

// authFailure says why a request had no valid token, without the token.
func authFailure(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, _, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return "unsupported authorization scheme"
		}
		return "wrong bearer token"
	}
	if r.URL.Query().Has("token") {
		return "wrong token parameter"
	}
	return "no token"
}

// logAuthFailure records a failed login. The presented token is never
// logged, nor the query string that may carry it.
func (s *Server) logAuthFailure(r *http.Request) {
	s.authFails.note(s.log, s.now(), "access refused: missing or wrong token",
		zap.String("reason", authFailure(r)), zap.String("remote", r.RemoteAddr),
		zap.String("path", r.URL.Path), zap.String("user_agent", r.UserAgent()))
}
