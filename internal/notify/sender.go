package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"
)

// dropLogEvery bounds the log lines about a full queue: one per span, with
// the count.
const dropLogEvery = 10 * time.Second

// sender delivers one webhook's events in order, one request at a time.
type sender struct {
	hook hookConfig
	n    *Notifier
	log  *zap.Logger
	wake chan struct{} // 1-buffered: something was queued

	mu          sync.Mutex // guards queue and the counters below
	queue       []Event
	st          Stats
	lastDropLog time.Time
	dropsLogged int // drops already reported in a log line
}

// push queues e, dropping the oldest queued event when full. Never blocks.
func (s *sender) push(e Event) {
	s.mu.Lock()
	if len(s.queue) >= s.n.cfg.Queue {
		dropped := s.queue[0]
		s.queue = s.queue[1:]
		s.st.Dropped++
		now := s.n.cfg.Clock.Now()
		if s.lastDropLog.IsZero() || now.Sub(s.lastDropLog) >= dropLogEvery {
			s.log.Warn("notification queue full; dropped the oldest",
				zap.Int("dropped_since_last_log", s.st.Dropped-s.dropsLogged), zap.Int("dropped_total", s.st.Dropped),
				zap.String("event", string(dropped.Kind)), zap.String("task_id", dropped.TaskID))
			s.lastDropLog, s.dropsLogged = now, s.st.Dropped
		}
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sender) pop() (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Event{}, false
	}
	e := s.queue[0]
	s.queue[0] = Event{}
	s.queue = s.queue[1:]
	return e, true
}

func (s *sender) drain() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.queue)
	s.queue = nil
	s.st.Dropped += n
	return n
}

func (s *sender) stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.Name = s.hook.Name
	return st
}

func (s *sender) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.st)
	s.mu.Unlock()
}

// run is the sender's loop: until ctx ends, deliver whatever is queued.
func (s *sender) run(ctx context.Context) {
	for {
		e, ok := s.pop()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
				continue
			}
		}
		s.deliver(ctx, e)
		if ctx.Err() != nil {
			return
		}
	}
}

// deliver POSTs e until the receiver accepts it, refuses it for good, or
// its attempts are spent; waits between attempts on the clock.
func (s *sender) deliver(ctx context.Context, e Event) {
	body, err := s.hook.body(e)
	if err != nil {
		s.count(func(st *Stats) { st.Failed++ })
		s.log.Error("notification body template failed; not sent", zap.String("event", string(e.Kind)), zap.Error(err))
		return
	}
	for attempt := 1; ; attempt++ {
		wait, err := s.post(ctx, body)
		if err == nil {
			s.count(func(st *Stats) { st.Sent++ })
			s.log.Debug("notification sent", zap.String("event", string(e.Kind)), zap.String("task_id", e.TaskID), zap.Int("attempt", attempt))
			return
		}
		if ctx.Err() != nil {
			s.count(func(st *Stats) { st.Dropped++ }) // shutting down
			return
		}
		var perm permanentError
		if errors.As(err, &perm) || attempt >= s.hook.Attempts {
			s.count(func(st *Stats) { st.Failed++ })
			s.log.Warn("notification not delivered", zap.String("event", string(e.Kind)), zap.String("task_id", e.TaskID),
				zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		backoff := s.hook.Backoff[min(attempt-1, len(s.hook.Backoff)-1)]
		wait = max(wait, backoff)
		s.log.Info("notification failed; retrying", zap.String("event", string(e.Kind)), zap.Int("attempt", attempt),
			zap.Duration("in", wait), zap.Error(err))
		t := s.n.cfg.Clock.NewTimer(wait, "notify", "backoff")
		select {
		case <-ctx.Done():
			t.Stop()
			s.count(func(st *Stats) { st.Dropped++ })
			return
		case <-t.C:
		}
		s.count(func(st *Stats) { st.Retries++ })
	}
}

// permanentError: the receiver refused the request; repeating it would not help.
type permanentError struct{ status int }

func (e permanentError) Error() string { return fmt.Sprintf("receiver refused it: HTTP %d", e.status) }

var errTimeout = errors.New("no answer within the timeout")

// post sends one request, bounded by the webhook's timeout on the clock.
// wait is the receiver's Retry-After, when it gave one.
func (s *sender) post(ctx context.Context, body []byte) (wait time.Duration, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := s.n.cfg.Clock.AfterFunc(s.hook.Timeout, func() { cancel(errTimeout) }, "notify", "timeout")
	defer timer.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.hook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, permanentError{}
	}
	req.Header.Set("Content-Type", s.hook.ContentType)
	req.Header.Set("User-Agent", "orchestratord-notify")
	for k, v := range s.hook.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.n.cfg.Client.Do(req)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, errTimeout) {
			return 0, errTimeout
		}
		// The error names the URL, which may hold a secret: say only what failed.
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			return 0, fmt.Errorf("request failed: %w", ue.Unwrap())
		}
		return 0, errors.New("request failed")
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return 0, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
		return retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("receiver answered HTTP %d", resp.StatusCode)
	default:
		return 0, permanentError{resp.StatusCode}
	}
}

// retryAfter reads a Retry-After of seconds (dates are ignored), capped.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}
