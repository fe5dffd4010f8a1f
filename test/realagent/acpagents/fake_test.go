package acpagents

// What the provider fakes share: a log of every request, the fault script
// keyed by the test's prompts, and the two ways a stream fails (an error
// status, or a stream cut after its first chunk).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// failure is one way a provider fails a model request.
type failure string

const (
	overloaded  failure = "overloaded"   // 503 overloaded / unavailable
	rateLimited failure = "rate_limited" // 429 per-minute quota with a retry hint
	serverError failure = "server_error" // 500
	dropped     failure = "dropped"      // 200, one chunk of text, then the connection is cut
	streamError failure = "stream_error" // 200, then an error event (response.failed, an error chunk)
)

// hintSeconds is the retry hint every 429 carries (Gemini retryDelay,
// OpenAI "Please try again in …s"): longer than the daemon's rate_limited
// schedule (1s), so a retry that honours it is visible.
const hintSeconds = 3

// partialMarker starts the text a dropped stream sends before it is cut.
const partialMarker = "partial answer from the fake"

// request is one request a fake provider received.
type request struct {
	At, Answered time.Time
	Method, Path string
	Turn         bool     // an agent turn (counted against the script), not a side request
	Users        []string // text of every user message, oldest first
	Assistants   []string // text of every model/assistant message, oldest first
	Prompt       int      // index of the latest test prompt it carries; -1 for none
	Outcome      string   // "ok" or the failure sent
	Status       int
	Body         string
}

// recorder is a fake provider's state: the script and the log.
type recorder struct {
	t       *testing.T
	srv     *httptest.Server
	prompts []string // the test's prompts, in the order it sends them
	replies []string // the model's answer to each prompt

	mu     sync.Mutex // guards script, reqs
	script map[int][]failure
	reqs   []request
}

// newRecorder serves h on 127.0.0.1 until the test ends. script maps a
// prompt's index to the failures answered, in order, to the first agent
// turns that carry it as their latest prompt.
func newRecorder(t *testing.T, prompts, replies []string, script map[int][]failure) *recorder {
	r := &recorder{t: t, prompts: prompts, replies: replies, script: script}
	return r
}

// serve starts the server with the fake's handler.
func (r *recorder) serve(h http.Handler) {
	r.srv = httptest.NewServer(h)
	r.t.Cleanup(func() {
		r.srv.CloseClientConnections()
		r.srv.Close()
	})
}

// URL is the fake's base URL (http://127.0.0.1:PORT).
func (r *recorder) URL() string { return r.srv.URL }

// latestPrompt is the index of the latest test prompt found in users, -1 if none.
func (r *recorder) latestPrompt(users []string) int {
	latest := -1
	for i, p := range r.prompts {
		for _, u := range users {
			if strings.Contains(u, p) {
				latest = i
			}
		}
	}
	return latest
}

// reply is the answer to a turn whose latest prompt is i.
func (r *recorder) reply(i int) string {
	if i < 0 || i >= len(r.replies) {
		return "Nothing to do."
	}
	return r.replies[i]
}

// next takes the failure for an agent turn carrying prompt i ("" = answer).
func (r *recorder) next(i int) failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	fs := r.script[i]
	if len(fs) == 0 {
		return ""
	}
	r.script[i] = fs[1:]
	return fs[0]
}

// log appends a request once it has been answered.
func (r *recorder) log(rec request) {
	rec.Answered = time.Now()
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	if verbose() {
		r.t.Logf("provider: %s %s turn=%v prompt=%d → %s %d\n  %s", rec.Method, rec.Path, rec.Turn, rec.Prompt, rec.Outcome, rec.Status, truncate(rec.Body, 3000))
	}
}

// requests is a copy of the log.
func (r *recorder) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.reqs...)
}

// turns is the log of agent turns only.
func (r *recorder) turns() []request {
	var out []request
	for _, q := range r.requests() {
		if q.Turn {
			out = append(out, q)
		}
	}
	return out
}

// firstFailure is when the first failure was answered (zero if none was).
func (r *recorder) firstFailure() time.Time {
	for _, q := range r.turns() {
		if q.Outcome != "ok" {
			return q.Answered
		}
	}
	return time.Time{}
}

// failuresSent counts the agent turns answered with a failure.
func (r *recorder) failuresSent() int {
	n := 0
	for _, q := range r.turns() {
		if q.Outcome != "ok" {
			n++
		}
	}
	return n
}

func readBody(req *http.Request) string {
	b, _ := io.ReadAll(req.Body)
	return string(b)
}

// sseWriter writes server-sent events, flushing each.
type sseWriter struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func startSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return &sseWriter{w: w, fl: fl}
}

// data writes "data: <json>" (with "event: <event>" first when event is set).
func (s *sseWriter) data(event string, v any, crlf bool) {
	b, _ := json.Marshal(v)
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	if event != "" {
		fmt.Fprintf(s.w, "event: %s%s", event, nl)
	}
	fmt.Fprintf(s.w, "data: %s%s%s", b, nl, nl)
	s.flush()
}

func (s *sseWriter) raw(line string) {
	fmt.Fprint(s.w, line)
	s.flush()
}

func (s *sseWriter) flush() {
	if s.fl != nil {
		s.fl.Flush()
	}
}

// cut ends a stream that has begun the way a dropped connection does: a
// moment after its first chunk, the connection closes without the end of
// the chunked body (the agent's HTTP client reads "terminated" / "stream
// disconnected").
func (s *sseWriter) cut() {
	s.flush()
	time.Sleep(100 * time.Millisecond) // let the chunk reach the agent first, as a real stream would
	panic(http.ErrAbortHandler)
}

func writeJSON(w http.ResponseWriter, status int, v any, header map[string]string) {
	for k, val := range header {
		w.Header().Set(k, val)
	}
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// halves splits a reply in two deltas, as a real stream sends several.
func halves(s string) (string, string) {
	cut := len(s) / 2
	if cut == 0 {
		cut = len(s)
	}
	return s[:cut], s[cut:]
}

// contentText flattens a message content: a string, or parts/blocks with text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
