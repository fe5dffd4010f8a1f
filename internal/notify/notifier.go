package notify

import (
	"context"
	"net/url"
	"sync"

	"go.uber.org/zap"
)

// dedupeKeys bounds how many recent event keys are remembered.
const dedupeKeys = 4096

// Notifier sends Events to webhooks. Create it with New, feed it with
// Notify (never blocks), Close it to stop its senders.
type Notifier struct {
	cfg     built
	log     *zap.Logger
	senders []*sender

	ctx    context.Context // cancelled by Close; parent of every request
	cancel context.CancelFunc
	wg     sync.WaitGroup // one sender loop per webhook

	mu     sync.Mutex // guards closed, seen, order
	closed bool
	seen   map[string]struct{}
	order  []string // keys of seen, oldest first
}

// New validates cfg and starts one sender per webhook. With no webhooks it
// is a Notifier that sends nothing.
func New(cfg Config) (*Notifier, error) {
	b, err := cfg.build()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notifier{cfg: b, log: b.Logger, ctx: ctx, cancel: cancel, seen: map[string]struct{}{}}
	for _, h := range b.hooks {
		s := &sender{hook: h, n: n, wake: make(chan struct{}, 1), log: b.Logger.With(zap.String("webhook", h.Name))}
		n.senders = append(n.senders, s)
		n.wg.Go(func() { s.run(ctx) })
	}
	return n, nil
}

// Notify queues e for every webhook that wants its kind, unless an event
// with the same Key was queued recently or (a Waiting event that is not a
// usage window) its retry is due sooner than LongWait. It never blocks.
func (n *Notifier) Notify(e Event) {
	if n == nil || len(n.senders) == 0 {
		return
	}
	if e.Kind == Waiting && !e.UsageWindow && (e.RetryAt == nil || e.RetryAt.Sub(e.At) < n.cfg.LongWait) {
		return // a short retry heals on its own; the notice in the chat is enough
	}
	if !n.firstTime(e.Key) {
		return
	}
	if n.cfg.BaseURL != "" && e.URL == "" && e.TaskID != "" {
		e.URL = n.cfg.BaseURL + "/#task=" + url.QueryEscape(e.TaskID)
	}
	e = e.sanitized()
	for _, s := range n.senders {
		if s.hook.events[e.Kind] {
			s.push(e)
		}
	}
}

// firstTime records key and reports whether it is new (or empty).
func (n *Notifier) firstTime(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	if key == "" {
		return true
	}
	if _, ok := n.seen[key]; ok {
		return false
	}
	n.seen[key] = struct{}{}
	n.order = append(n.order, key)
	if len(n.order) > dedupeKeys {
		delete(n.seen, n.order[0])
		n.order = n.order[1:]
	}
	return true
}

// Stats counts what a webhook did.
type Stats struct {
	Name    string
	Sent    int // events the receiver accepted (2xx)
	Failed  int // events given up on after their attempts, or refused (4xx)
	Dropped int // events dropped from a full queue, or queued at Close
	Retries int // requests repeated after a failure
}

// Stats returns each webhook's counters, in configuration order.
func (n *Notifier) Stats() []Stats {
	out := make([]Stats, 0, len(n.senders))
	for _, s := range n.senders {
		out = append(out, s.stats())
	}
	return out
}

// Close stops every sender and waits for it: a request in flight is
// cancelled, events still queued are dropped (and logged). Safe to call
// more than once.
func (n *Notifier) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.cancel()
	n.wg.Wait()
	n.cfg.Client.CloseIdleConnections()
	for _, s := range n.senders {
		if left := s.drain(); left > 0 {
			s.log.Warn("notifications not sent at shutdown", zap.Int("dropped", left))
		}
	}
	return nil
}
