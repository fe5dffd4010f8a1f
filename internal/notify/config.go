package notify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"text/template"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"
)

// Defaults of Config and Webhook.
const (
	DefaultQueue    = 256
	DefaultTimeout  = 10 * time.Second
	DefaultAttempts = 5
	DefaultLongWait = 2 * time.Minute
	// maxRetryAfter caps a receiver's Retry-After, so a bad header cannot
	// hold a webhook's queue for hours.
	maxRetryAfter = 10 * time.Minute
)

// DefaultBackoff is the wait before each retry of a failed POST; the last
// step repeats.
var DefaultBackoff = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute}

// Config of a Notifier. Zero values mean the documented default.
type Config struct {
	Webhooks []Webhook
	// Queue bounds the events waiting for each webhook; when full, the
	// oldest is dropped (counted and logged). Default DefaultQueue.
	Queue int
	// LongWait: a Waiting event that is not a usage window is sent only
	// when its retry is due at least this far away; default DefaultLongWait.
	LongWait time.Duration
	// BaseURL, when set, gives each event a URL to open the task in the UI
	// (BaseURL/#task=<id>, the UI opens it); the access token is never added.
	BaseURL string
	Clock   quartz.Clock // default: the real clock
	Logger  *zap.Logger  // default: no-op
	// Client sends the requests; default a plain http.Client (timeouts
	// come from Webhook.Timeout, on Clock).
	Client *http.Client
}

// Webhook is one receiver.
type Webhook struct {
	// Name says which webhook in logs (its URL may hold a secret and is
	// never logged); default its host.
	Name string
	URL  string // http or https; required
	// Events it gets; default all of Kinds.
	Events []Kind
	// Headers are added to every request (e.g. Authorization, ntfy's Title).
	Headers map[string]string
	// Template, when set, is a text/template for the body, executed with
	// the Event (fields as in Go: .Kind .Title .Text .Summary .URL …) and
	// the function json (a value as JSON, e.g. {"text": {{json .Summary}}}).
	// Default: the Event as JSON.
	Template string
	// ContentType of the body; default application/json.
	ContentType string
	Timeout     time.Duration   // per request; default DefaultTimeout
	Attempts    int             // requests per event at most; default DefaultAttempts
	Backoff     []time.Duration // before each retry; default DefaultBackoff
}

// ValidationError says which setting is wrong.
type ValidationError struct {
	Field string // e.g. webhooks[0].url
	Err   error
}

func (e *ValidationError) Error() string { return "notify." + e.Field + ": " + e.Err.Error() }
func (e *ValidationError) Unwrap() error { return e.Err }

// Validate checks the configuration once, at start.
func (c Config) Validate() error {
	_, err := c.build()
	return err
}

// built is a validated Config with its defaults applied.
type built struct {
	Config
	hooks []hookConfig
}

type hookConfig struct {
	Webhook
	tmpl   *template.Template
	events map[Kind]bool
}

var funcs = template.FuncMap{"json": func(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}}

func (c Config) build() (built, error) {
	b := built{Config: c}
	if b.Queue == 0 {
		b.Queue = DefaultQueue
	}
	if b.Queue < 0 {
		return b, &ValidationError{"queue", fmt.Errorf("must be at least 1, got %d", c.Queue)}
	}
	if b.LongWait == 0 {
		b.LongWait = DefaultLongWait
	}
	if b.LongWait < 0 {
		return b, &ValidationError{"long_wait", fmt.Errorf("must be positive, got %s", c.LongWait)}
	}
	if b.BaseURL != "" {
		if err := checkURL(b.BaseURL); err != nil {
			return b, &ValidationError{"base_url", err}
		}
		b.BaseURL = strings.TrimRight(b.BaseURL, "/")
	}
	if b.Clock == nil {
		b.Clock = quartz.NewReal()
	}
	if b.Logger == nil {
		b.Logger = zap.NewNop()
	}
	if b.Client == nil {
		// Its own transport, so Close can end its idle connections.
		b.Client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	for i, w := range c.Webhooks {
		h, err := buildHook(w)
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				ve.Field = fmt.Sprintf("webhooks[%d].%s", i, ve.Field)
			}
			return b, err
		}
		b.hooks = append(b.hooks, h)
	}
	return b, nil
}

func buildHook(w Webhook) (hookConfig, error) {
	h := hookConfig{Webhook: w, events: map[Kind]bool{}}
	if err := checkURL(w.URL); err != nil {
		return h, &ValidationError{"url", err}
	}
	if h.Name == "" {
		u, _ := url.Parse(w.URL)
		h.Name = u.Host
	}
	events := w.Events
	if len(events) == 0 {
		events = Kinds
	}
	for _, k := range events {
		if !k.valid() {
			return h, &ValidationError{"events", fmt.Errorf("unknown event %q (want needs_you, finished or waiting)", k)}
		}
		h.events[k] = true
	}
	if h.ContentType == "" {
		h.ContentType = "application/json"
	}
	if h.Timeout == 0 {
		h.Timeout = DefaultTimeout
	}
	if h.Timeout < 0 {
		return h, &ValidationError{"timeout", fmt.Errorf("must be positive, got %s", w.Timeout)}
	}
	if h.Attempts == 0 {
		h.Attempts = DefaultAttempts
	}
	if h.Attempts < 0 {
		return h, &ValidationError{"attempts", fmt.Errorf("must be at least 1, got %d", w.Attempts)}
	}
	if len(h.Backoff) == 0 {
		h.Backoff = DefaultBackoff
	}
	for _, d := range h.Backoff {
		if d < 0 {
			return h, &ValidationError{"backoff", fmt.Errorf("delays must not be negative, got %s", d)}
		}
	}
	for k := range h.Headers {
		if strings.TrimSpace(k) == "" || strings.ContainsAny(k, ": \r\n") {
			return h, &ValidationError{"headers", fmt.Errorf("bad header name %q", k)}
		}
	}
	if w.Template != "" {
		t, err := template.New("body").Funcs(funcs).Option("missingkey=error").Parse(w.Template)
		if err != nil {
			return h, &ValidationError{"template", err}
		}
		// A field that does not exist fails now, not at the first event.
		if err := t.Execute(&bytes.Buffer{}, sampleEvent()); err != nil {
			return h, &ValidationError{"template", err}
		}
		h.tmpl = t
	}
	return h, nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL")
	}
	return nil
}

func sampleEvent() Event {
	at := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	return Event{Kind: NeedsYou, TaskID: "t", SessionID: "s", Title: "title", Text: "text", RetryAt: &at, At: at}.sanitized()
}

// body renders one event for h.
func (h *hookConfig) body(e Event) ([]byte, error) {
	if h.tmpl == nil {
		return json.Marshal(e)
	}
	var buf bytes.Buffer
	if err := h.tmpl.Execute(&buf, e); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
