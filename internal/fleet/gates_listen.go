package fleet

import (
	"context"
	"time"
)

// ListenGates calls wake(key) for each gate that opened or closed on any
// daemon (NOTIFY on GateChannel), until ctx ends, on a connection of its
// own taken out of the pool. After the connection broke (and on the
// first connect) it calls wake("") — anything may have changed unheard —
// and connects again every retry. It returns when ctx ends.
func (g *Gates) ListenGates(ctx context.Context, retry time.Duration, wake func(key string)) {
	if retry <= 0 {
		retry = time.Second
	}
	for ctx.Err() == nil {
		g.listenOnce(ctx, wake)
		t := time.NewTimer(retry) // reconnect pacing, not a schedule anyone sees
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (g *Gates) listenOnce(ctx context.Context, wake func(string)) {
	c, err := g.pool.Acquire(ctx)
	if err != nil {
		return
	}
	conn := c.Hijack() // LISTEN lasts as long as the connection: never back to the pool
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, `LISTEN `+GateChannel); err != nil {
		return
	}
	wake("")
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		wake(n.Payload)
	}
}
