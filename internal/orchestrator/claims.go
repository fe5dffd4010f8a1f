package orchestrator

import (
	"context"
	"sync"

	"github.com/orchestratord/orchestratord/internal/store"
)

// claimBatcher shares one store transaction among the retries that come
// due together. Ten thousand sessions parked on the same outage fire at the
// same instant; claimed one by one, each claim queued for its own write and
// the last fired a quarter of a second late. Here the first caller claims
// for everyone who arrives while it works, in one ClaimPendingRetries,
// then again for those who came meanwhile, until no one waits; each caller
// still gets its own answer before it dispatches, so exactly-once is the
// store's conditional UPDATE, as before.
type claimBatcher struct {
	mu      sync.Mutex // guards queue, running
	queue   []*claimReq
	running bool // a caller is claiming for the queue
}

type claimReq struct {
	key  store.RetryClaim
	ok   bool
	err  error
	done chan struct{}
}

// claim returns whether the retry was claimed (see ClaimPendingRetry).
func (b *claimBatcher) claim(ctx context.Context, st Store, key store.RetryClaim) (bool, error) {
	r := &claimReq{key: key, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, r)
	if b.running {
		b.mu.Unlock()
		<-r.done // the claimer answers everyone it takes
		return r.ok, r.err
	}
	b.running = true
	for len(b.queue) > 0 {
		batch := b.queue
		b.queue = nil
		b.mu.Unlock()
		keys := make([]store.RetryClaim, len(batch))
		for i, q := range batch {
			keys[i] = q.key
		}
		oks, err := st.ClaimPendingRetries(ctx, keys)
		for i, q := range batch {
			if err != nil {
				q.err = err
			} else {
				q.ok = oks[i]
			}
			close(q.done)
		}
		b.mu.Lock()
	}
	b.running = false
	b.mu.Unlock()
	return r.ok, r.err
}
