package orchestrator

// A staggered release: the overload gate (gate.go) and the usage windows
// (usagewindow.go) let their waiting sessions go spread over a window, one
// timer per session, each queueing its session for dispatch (retrydue.go)
// when it fires, as if the session's own retry timer had. Both keep their
// pending releases here, and arm and cancel them under their own mutex, so
// that a session due meanwhile sees the owner's decision and its releases
// together.

import (
	"sync"
	"time"

	"github.com/coder/quartz"
)

// releases are the pending releases of one owner, by session.
type releases struct {
	clock quartz.Clock
	tag   string                // the timers' quartz tag
	fire  func(sid, key string) // a release is due; runs on the timer, no lock held
	mu    sync.Mutex            // guards m; a leaf: nothing else is locked under it
	m     map[string]*release   // session → its pending release
}

// release is one session's pending release from the gate or window key.
type release struct {
	key   string
	at    time.Time
	timer *quartz.Timer
}

func newReleases(clock quartz.Clock, tag string, fire func(sid, key string)) *releases {
	return &releases{clock: clock, tag: tag, fire: fire, m: make(map[string]*release)}
}

// arm lets sid go at at (now, if that has passed), replacing any pending
// release of it.
func (r *releases) arm(sid, key string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.m[sid]; old != nil {
		old.timer.Stop()
	}
	rel := &release{key: key, at: at}
	// The callback takes mu first, so it sees rel.timer set.
	rel.timer = r.clock.AfterFunc(max(at.Sub(r.clock.Now()), 0), func() { r.due(sid, rel) }, r.tag)
	r.m[sid] = rel
}

func (r *releases) due(sid string, rel *release) {
	r.mu.Lock()
	if r.m[sid] != rel {
		r.mu.Unlock()
		return // cancelled or re-armed meanwhile
	}
	delete(r.m, sid)
	r.mu.Unlock()
	r.fire(sid, rel.key)
}

// cancel drops sid's pending release; with a key, only one from that key.
func (r *releases) cancel(sid, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rel := r.m[sid]; rel != nil && (key == "" || rel.key == key) {
		rel.timer.Stop()
		delete(r.m, sid)
	}
}

// pending reports sid's pending release, if any.
func (r *releases) pending(sid string) (release, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rel := r.m[sid]
	if rel == nil {
		return release{}, false
	}
	return *rel, true
}

// of lists the sessions with a pending release from key.
func (r *releases) of(key string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sids []string
	for sid, rel := range r.m {
		if rel.key == key {
			sids = append(sids, sid)
		}
	}
	return sids
}

// stop drops every pending release; Close waits for running callbacks.
func (r *releases) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for sid, rel := range r.m {
		rel.timer.Stop()
		delete(r.m, sid)
	}
}
