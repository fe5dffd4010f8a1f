package chaos

import (
	"sort"
	"time"
)

// timerProbe is the control of the lateness figures: a bare time.AfterFunc
// in this process, re-armed every probeEvery for the whole run, on the same
// machine at the same time as the daemon's retry timers. What it measures
// is the machine's share of a retry's lateness (CPU contention), with no
// daemon, store or session in the way.
type timerProbe struct {
	stop chan struct{}
	done chan struct{}
	late []time.Duration // owned by the probe goroutine until done is closed
}

const probeEvery = 100 * time.Millisecond

func startTimerProbe() *timerProbe {
	p := &timerProbe{stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *timerProbe) run() {
	defer close(p.done)
	fired := make(chan time.Time, 1)
	for {
		armed := time.Now()
		t := time.AfterFunc(probeEvery, func() { fired <- time.Now() })
		select {
		case <-p.stop:
			t.Stop()
			return
		case at := <-fired:
			p.late = append(p.late, max(at.Sub(armed)-probeEvery, 0))
		}
	}
}

// finish stops the probe and returns its lateness, sorted.
func (p *timerProbe) finish() []time.Duration {
	close(p.stop)
	<-p.done
	sort.Slice(p.late, func(i, j int) bool { return p.late[i] < p.late[j] })
	return p.late
}
