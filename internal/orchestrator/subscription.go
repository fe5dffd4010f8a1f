package orchestrator

import "sync"

// Subscription is a bounded, never-blocking feed of notifications. When the
// reader falls behind by more than its buffer, the feed is cut (Overflowed
// closes) instead of slowing the publisher; the client then resubscribes
// with after_seq and misses nothing.
type Subscription struct {
	c        chan Notification
	overflow chan struct{}
	done     chan struct{}
	once     sync.Once
	mu       sync.Mutex // guards remove and remoteFeed, and done's closing against setRemove
	remove   func()
	// remoteFeed: the fleet's relay feeds it (a session another daemon
	// runs, remotefeed.go); nil while its own daemon's session feeds it.
	remoteFeed *remoteFeed
}

// remote is the relay's feed of the subscription, nil for a local one.
func (s *Subscription) remote() *remoteFeed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remoteFeed
}

// cut ends a subscription that fell behind, as a full buffer does.
func (s *Subscription) cut() {
	select {
	case <-s.overflow:
	default:
		close(s.overflow)
	}
}

func newSubscription(buffer int) *Subscription {
	if buffer <= 0 {
		buffer = 1024
	}
	return &Subscription{
		c:        make(chan Notification, buffer),
		overflow: make(chan struct{}),
		done:     make(chan struct{}),
	}
}

// C delivers notifications in publish order.
func (s *Subscription) C() <-chan Notification { return s.c }

// Overflowed is closed when the subscription was cut for being too slow.
func (s *Subscription) Overflowed() <-chan struct{} { return s.overflow }

// Done is closed when the subscription ends for any reason.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Close unregisters the subscription. Safe to call more than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		remove := s.remove
		s.remove = nil
		close(s.done)
		s.mu.Unlock()
		if remove != nil {
			remove()
		}
	})
}

// setRemove makes remove the subscription's unregistering: it is fed from
// elsewhere now (a released session's feed goes over to the fleet's
// relay, lease.go). Once the subscription has ended, remove runs at once.
func (s *Subscription) setRemove(remove func()) {
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		remove()
		return
	default:
	}
	s.remove = remove
	s.mu.Unlock()
}

// deliver never blocks; it reports false once the subscriber is cut.
func (s *Subscription) deliver(n Notification) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	select {
	case s.c <- n:
		return true
	default:
		select {
		case <-s.overflow:
		default:
			close(s.overflow)
		}
		return false
	}
}

// fanout is a set of subscriptions; the caller serialises publishes.
type fanout struct {
	mu   sync.Mutex // guards subs
	subs map[*Subscription]struct{}
}

func (f *fanout) add(s *Subscription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = make(map[*Subscription]struct{})
	}
	f.subs[s] = struct{}{}
	s.mu.Lock()
	s.remove = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, s)
	}
	s.mu.Unlock()
}

// take empties the set and returns what it held.
func (f *fanout) take() map[*Subscription]struct{} {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	subs := f.subs
	f.subs = nil
	return subs
}

func (f *fanout) has(s *Subscription) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.subs[s]
	return ok
}

func (f *fanout) len() int {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

func (f *fanout) publish(n Notification) {
	if f == nil {
		return // nobody ever subscribed
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
		if !s.deliver(n) {
			delete(f.subs, s)
		}
	}
}

func (f *fanout) closeAll() {
	if f == nil {
		return
	}
	f.mu.Lock()
	subs := f.subs
	f.subs = nil
	f.mu.Unlock()
	for s := range subs {
		s.mu.Lock()
		s.remove = nil
		s.mu.Unlock()
		s.Close()
	}
}
