package realagent

// A fake Anthropic Messages API on loopback. It answers the first turn
// requests with scripted faults, then with a short streamed reply, and keeps
// a log of everything it was asked. While its wall is up, every turn request
// is answered 529 overloaded_error instead (the scripted faults wait).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fault is one scripted error response.
type fault struct {
	status  int
	errType string // Anthropic error.type, e.g. overloaded_error
	message string
	header  map[string]string
}

var (
	overloaded = fault{status: 529, errType: "overloaded_error", message: "Overloaded"}
	badKey     = fault{status: 401, errType: "authentication_error", message: "invalid x-api-key"}
	rateLimit  = fault{status: 429, errType: "rate_limit_error",
		message: "This request would exceed the rate limit for your organization of 50,000 input tokens per minute.",
		header:  map[string]string{"retry-after": "3"}}
)

// providerRequest is one request the fake provider received.
type providerRequest struct {
	At       time.Time
	Method   string
	Path     string
	Model    string
	Stream   bool
	Turn     bool     // a model turn of the agent (counted against the script)
	Roles    []string // role of every message, oldest first
	Users    []string // text of every user message, oldest first
	Status   int      // what the provider answered
	Answered time.Time
}

type provider struct {
	t     *testing.T
	srv   *httptest.Server
	reply string

	// wall, while true, answers every turn request with overloaded (a
	// provider overload lasting until it is lowered) and leaves faults alone.
	wall atomic.Bool

	mu     sync.Mutex // guards faults, reqs
	faults []fault    // answered, in order, to the first turn requests
	reqs   []providerRequest
}

// newProvider serves on 127.0.0.1 until the test ends.
func newProvider(t *testing.T, reply string, faults ...fault) *provider {
	p := &provider{t: t, reply: reply, faults: faults}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		if verbose() {
			for i, r := range p.requests() {
				t.Logf("provider request %d: %+v", i, r)
			}
		}
	})
	return p
}

// requests is a copy of the log.
func (p *provider) requests() []providerRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]providerRequest(nil), p.reqs...)
}

// turns is the log of model-turn requests only.
func (p *provider) turns() []providerRequest {
	var out []providerRequest
	for _, r := range p.requests() {
		if r.Turn {
			out = append(out, r)
		}
	}
	return out
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	rec := providerRequest{At: time.Now(), Method: r.Method, Path: r.URL.Path}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	rec.Model, rec.Stream = req.Model, req.Stream
	for _, m := range req.Messages {
		rec.Roles = append(rec.Roles, m.Role)
		if m.Role == "user" {
			rec.Users = append(rec.Users, userText(m.Content))
		}
	}
	if verbose() {
		p.t.Logf("provider: %s %s %s", r.Method, r.URL, truncate(string(body), 4000))
	}

	var f *fault
	p.mu.Lock()
	if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
		rec.Turn = true
		if p.wall.Load() {
			f = &overloaded
		} else if len(p.faults) > 0 {
			f = &p.faults[0]
			p.faults = p.faults[1:]
		}
	}
	p.mu.Unlock()

	switch {
	case f != nil:
		rec.Status = f.status
		for k, v := range f.header {
			w.Header().Set(k, v)
		}
		writeJSON(w, f.status, map[string]any{"type": "error", "error": map[string]any{"type": f.errType, "message": f.message}})
	case rec.Turn && req.Stream:
		rec.Status = http.StatusOK
		p.stream(w, req.Model)
	case rec.Turn:
		rec.Status = http.StatusOK
		writeJSON(w, http.StatusOK, apiMessage(req.Model, p.reply))
	case r.Method == http.MethodHead:
		// Claude Code probes the base URL once per process start.
		rec.Status = http.StatusOK
		w.WriteHeader(http.StatusOK)
	case r.URL.Path == "/v1/messages/count_tokens":
		rec.Status = http.StatusOK
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 12})
	default:
		rec.Status = http.StatusNotFound
		writeJSON(w, http.StatusNotFound, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "not found"}})
	}
	rec.Answered = time.Now()
	p.mu.Lock()
	p.reqs = append(p.reqs, rec)
	p.mu.Unlock()
}

func apiMessage(model, text string) map[string]any {
	return map[string]any{
		"id": "msg_fake_1", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 12, "output_tokens": 6},
	}
}

// stream answers like the Messages API with stream:true: the reply in a few deltas.
func (p *provider) stream(w http.ResponseWriter, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_fake")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(typ string, data map[string]any) {
		data["type"] = typ
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if fl != nil {
			fl.Flush()
		}
	}
	start := apiMessage(model, "")
	start["content"], start["stop_reason"] = []any{}, nil
	start["usage"] = map[string]any{"input_tokens": 12, "output_tokens": 1}
	send("message_start", map[string]any{"message": start})
	send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	send("ping", map[string]any{})
	words := strings.SplitAfter(p.reply, " ")
	for _, wd := range words {
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": wd}})
	}
	send("content_block_stop", map[string]any{"index": 0})
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 6}})
	send("message_stop", map[string]any{})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_fake")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// userText flattens a message's content (a string or blocks) to its text.
func userText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
