package main

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/notify"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// notifyConfig is the `notify:` section: webhooks told when a task needs
// its user, finished, or waits on a usage window.
type notifyConfig struct {
	BaseURL  string          `json:"base_url"`  // links in the events open the UI here
	LongWait string          `json:"long_wait"` // a retry waiting at least this long is told; default 2m
	Queue    *int            `json:"queue"`     // events waiting per webhook; default 256, oldest dropped
	Webhooks []webhookConfig `json:"webhooks"`
}

type webhookConfig struct {
	Name        string            `json:"name"`
	URL         string            `json:"url"`
	Events      []string          `json:"events"` // needs_you, finished, waiting; default all
	Headers     map[string]string `json:"headers"`
	Template    string            `json:"template"`     // text/template of the body; default the event as JSON
	ContentType string            `json:"content_type"` // default application/json
	Timeout     string            `json:"timeout"`      // per request; default 10s
	Attempts    *int              `json:"attempts"`     // requests per event at most; default 5
	Backoff     []string          `json:"backoff"`      // before each retry; default [1s, 5s, 30s, 2m]
}

// notifyFromFiles builds the notifier's configuration; the last file with
// a notify: section wins.
func notifyFromFiles(files ...fileConfig) (notify.Config, error) {
	var nc notify.Config
	var in *notifyConfig
	for _, fc := range files {
		if fc.Notify != nil {
			in = fc.Notify
		}
	}
	if in == nil {
		return nc, nil
	}
	dur := func(key, v string) (time.Duration, error) {
		if v == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("notify.%s: %w", key, err)
		}
		return d, nil
	}
	var err error
	nc.BaseURL = in.BaseURL
	if nc.LongWait, err = dur("long_wait", in.LongWait); err != nil {
		return nc, err
	}
	if in.Queue != nil {
		if nc.Queue = *in.Queue; nc.Queue < 1 {
			return nc, fmt.Errorf("notify.queue must be at least 1, got %d", nc.Queue)
		}
	}
	for i, w := range in.Webhooks {
		h := notify.Webhook{Name: w.Name, URL: w.URL, Headers: w.Headers, Template: w.Template, ContentType: w.ContentType}
		for _, e := range w.Events {
			h.Events = append(h.Events, notify.Kind(e))
		}
		if h.Timeout, err = dur(fmt.Sprintf("webhooks[%d].timeout", i), w.Timeout); err != nil {
			return nc, err
		}
		if w.Attempts != nil {
			if h.Attempts = *w.Attempts; h.Attempts < 1 {
				return nc, fmt.Errorf("notify.webhooks[%d].attempts must be at least 1, got %d", i, h.Attempts)
			}
		}
		for j, b := range w.Backoff {
			d, err := dur(fmt.Sprintf("webhooks[%d].backoff[%d]", i, j), b)
			if err != nil {
				return nc, err
			}
			h.Backoff = append(h.Backoff, d)
		}
		nc.Webhooks = append(nc.Webhooks, h)
	}
	return nc, nc.Validate()
}

// newNotifier starts the webhooks' senders. A webhook URL often carries
// its own secret (Slack, ntfy topics), so it is redacted from logs like
// the access token.
func newNotifier(nc notify.Config, log *zap.Logger) (*notify.Notifier, error) {
	for _, w := range nc.Webhooks {
		routingerr.RegisterSecret(w.URL)
	}
	nc.Logger = log
	n, err := notify.New(nc)
	if err != nil {
		return nil, err
	}
	if len(nc.Webhooks) > 0 {
		names := make([]string, 0, len(n.Stats()))
		for _, s := range n.Stats() {
			names = append(names, s.Name)
		}
		log.Info("notifications on", zap.Strings("webhooks", names))
	}
	return n, nil
}

// attentionSink feeds the orchestrator's Attention to the notifier.
type attentionSink struct{ n *notify.Notifier }

func (a attentionSink) Attention(x orchestrator.Attention) {
	e := notify.Event{Kind: notify.Kind(x.Kind), Key: x.Key, TaskID: x.TaskID, SessionID: x.SessionID,
		Title: x.Title, Agent: x.Agent, Text: x.Text, Reason: x.Reason, UsageWindow: x.UsageWindow, At: x.At}
	if !x.RetryAt.IsZero() {
		r := x.RetryAt
		e.RetryAt = &r
	}
	a.n.Notify(e)
}

// registerNotifyMetrics exposes each webhook's counters:
// orchestratord_notifications_total{webhook, outcome=sent|failed|dropped|retried}.
func registerNotifyMetrics(reg prometheus.Registerer, n *notify.Notifier) {
	for i, st := range n.Stats() {
		for _, o := range []struct {
			outcome string
			of      func(notify.Stats) int
		}{
			{"sent", func(s notify.Stats) int { return s.Sent }},
			{"failed", func(s notify.Stats) int { return s.Failed }},
			{"dropped", func(s notify.Stats) int { return s.Dropped }},
			{"retried", func(s notify.Stats) int { return s.Retries }},
		} {
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "orchestratord_notifications_total",
				Help:        "Webhook notifications by outcome: sent (accepted), failed (given up or refused), dropped (queue full or shutdown), retried (requests repeated)",
				ConstLabels: prometheus.Labels{"webhook": st.Name, "outcome": o.outcome},
			}, func() float64 { return float64(o.of(n.Stats()[i])) }))
		}
	}
}
