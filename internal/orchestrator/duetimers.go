package orchestrator

// The parked retries' timers: one runtime timer for them all, set for the
// earliest retry_at, and a heap of the retries by retry_at. When it fires
// it hands every retry then due to the retry owner in one call (retrydue.go
// starts them in one pass), and is set for the next one. Issue 13, 10k due
// at one instant: a timer per retry meant ten thousand goroutines woken
// together, queueing on the same locks, and their starts published 50–80
// ms late before the first one ran; and a runtime timer is ~250 B of the
// 1 KiB a parked retry may take. Each retry still fires exactly at its
// retry_at: the timer is always set for the earliest, never polled.

import (
	"container/heap"
	"sync"
	"time"

	"github.com/coder/quartz"
)

// dueTimers are the armed retries, by retry_at.
type dueTimers struct {
	clock  quartz.Clock
	fire   func(due []*parkedRetry) // runs on the timer, no lock held
	mu     sync.Mutex               // guards the fields below and every armed retry's due; a leaf
	heap   dueHeap
	timer  *quartz.Timer // set for target; nil while the heap is empty
	target int64         // heap[0]'s at when the timer was last set
}

// dueEntry is one armed retry in the heap.
type dueEntry struct {
	at int64 // retry_at, Unix nanoseconds
	p  *parkedRetry
}

func newDueTimers(clock quartz.Clock, fire func([]*parkedRetry)) *dueTimers {
	return &dueTimers{clock: clock, fire: fire}
}

// arm arms p for at (at once, if that has passed), replacing any earlier
// arming of it.
func (d *dueTimers) arm(p *parkedRetry, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.due > 0 {
		heap.Remove(&d.heap, int(p.due-1))
	}
	heap.Push(&d.heap, dueEntry{at: at.UnixNano(), p: p})
	d.retargetLocked()
}

// stop disarms p; false: it was not armed (fired, or never armed).
func (d *dueTimers) stop(p *parkedRetry) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.due == 0 {
		return false
	}
	heap.Remove(&d.heap, int(p.due-1))
	d.retargetLocked()
	return true
}

// onTimer fires the retries due by now.
func (d *dueTimers) onTimer() {
	d.mu.Lock()
	now := d.clock.Now().UnixNano()
	var due []*parkedRetry
	for len(d.heap) > 0 && d.heap[0].at <= now {
		due = append(due, heap.Pop(&d.heap).(dueEntry).p)
	}
	d.target = 0 // fired: set it again
	d.retargetLocked()
	d.mu.Unlock()
	if len(due) > 0 {
		d.fire(due)
	}
}

// retargetLocked sets the timer for the earliest retry, or stops it. A
// callback already on its way finds what is due when it runs, and sets
// the timer again; so a timer is pending whenever a retry is armed.
func (d *dueTimers) retargetLocked() {
	if len(d.heap) == 0 {
		if d.timer != nil {
			d.timer.Stop()
			d.timer = nil
		}
		return
	}
	at := d.heap[0].at
	delay := max(time.Duration(at-d.clock.Now().UnixNano()), 0)
	switch {
	case d.timer == nil:
		d.timer = d.clock.AfterFunc(delay, d.onTimer, "retry")
	case at != d.target:
		d.timer.Reset(delay, "retry")
	}
	d.target = at
}

// dueHeap orders the armed retries by retry_at; each knows its place
// (parkedRetry.due, 1-based so that 0 is "not armed").
type dueHeap []dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].p.due, h[j].p.due = int32(i+1), int32(j+1)
}

func (h *dueHeap) Push(x any) {
	e := x.(dueEntry)
	e.p.due = int32(len(*h) + 1)
	*h = append(*h, e)
}

func (h *dueHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = dueEntry{}
	*h = old[:len(old)-1]
	e.p.due = 0
	return e
}
