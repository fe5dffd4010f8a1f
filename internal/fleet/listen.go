package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/coder/quartz"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// Reconnect backoff of the relay's listening connection.
const (
	listenBackoffMin = 100 * time.Millisecond
	listenBackoffMax = 5 * time.Second
)

// listener holds the one connection on which a daemon LISTENs to the
// fleet's channels, outside the pool (a pooled connection would be handed
// to a query between waits and lose its LISTENs). Its loop is owned by
// Relay: it waits for notifications and hands each to handle; when the
// connection is lost it reconnects with backoff (through the injected
// clock) and calls connected again, because notifications sent while it
// was away are gone for good and its owner must catch up from the tables.
type listener struct {
	connect   func(ctx context.Context) (*pgx.Conn, error)
	channels  []string
	handle    func(channel, payload string)
	connected func() // after every (re)connect, once its LISTENs are in place
	clock     quartz.Clock
	log       *zap.Logger
}

// open connects and LISTENs on every channel.
func (l *listener) open(ctx context.Context) (*pgx.Conn, error) {
	conn, err := l.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: listen: %w", ErrUnavailable, err)
	}
	for _, ch := range l.channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			closeConn(conn)
			return nil, fmt.Errorf("%w: listen on %s: %w", ErrUnavailable, ch, err)
		}
	}
	return conn, nil
}

// run serves conn, the first connection, then every reconnection, until
// ctx ends.
func (l *listener) run(ctx context.Context, conn *pgx.Conn) {
	backoff := listenBackoffMin
	for {
		err := l.serve(ctx, conn)
		closeConn(conn)
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("fleet listener lost its connection; reconnecting (events and commands are caught up from the tables)", zap.Error(err))
		for {
			if !l.sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, listenBackoffMax)
			conn, err = l.open(ctx)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			l.log.Debug("fleet listener reconnect failed", zap.Error(err), zap.Duration("next_in", backoff))
		}
		l.log.Info("fleet listener reconnected")
		backoff = listenBackoffMin
		l.connected()
	}
}

// serve hands every notification of conn to handle until the connection
// fails or ctx ends.
func (l *listener) serve(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.handle(n.Channel, n.Payload)
	}
}

// sleep waits d on the injected clock; false when ctx ended first.
func (l *listener) sleep(ctx context.Context, d time.Duration) bool {
	t := l.clock.NewTimer(d, "fleet", "listen-backoff")
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx) // the connection is gone either way
}
