package fleet

import (
	"context"
	"time"
)

// StartsChannel carries Hand's word to the daemon a task was placed on:
// the payload is that daemon's id. It wakes the Owner's loop, which
// starts the tasks handed to it at once instead of at its next StartPoll.
const StartsChannel = "orchestratord_starts"

// startsRetry paces the reconnections of the listening connection; the
// StartPoll backstop starts handed tasks meanwhile.
const startsRetry = time.Second

// wakeStarts asks the loop to start the tasks handed here; it never blocks.
func (o *Owner) wakeStarts() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// listenStarts LISTENs on StartsChannel, on a connection of its own taken
// out of the pool, until ctx ends; each word for this daemon wakes the
// loop. After every (re)connect it wakes the loop once: a task handed
// while nobody listened is started then.
func (o *Owner) listenStarts(ctx context.Context) {
	for ctx.Err() == nil {
		o.listenStartsOnce(ctx)
		t := o.cfg.Clock.NewTimer(startsRetry, "fleet", "starts-listen")
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (o *Owner) listenStartsOnce(ctx context.Context) {
	c, err := o.cfg.Pool.Acquire(ctx)
	if err != nil {
		return
	}
	conn := c.Hijack() // LISTEN lasts as long as the connection: never back to the pool
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, `LISTEN `+StartsChannel); err != nil {
		return
	}
	o.wakeStarts()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		if n.Payload == o.cfg.Self {
			o.wakeStarts()
		}
	}
}
