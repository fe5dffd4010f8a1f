package wsapi

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/zap"
)

// Close reasons (at most 123 bytes each, by the protocol).
const (
	reasonShutdown = "server shutting down"
	reasonSlow     = "client too slow, events dropped: reconnect and resubscribe with after_seq"
	reasonWrite    = "write failed"
)

// closeGrace bounds the close handshake with a silent peer.
const closeGrace = 2 * time.Second

// maxSessionSubs bounds session subscriptions per connection: each holds a
// buffered feed and a goroutine.
const maxSessionSubs = 256

// conn is one WebSocket client. Its goroutines (run, readLoop, writeLoop,
// forward) are started through Server.wg.
type conn struct {
	s      *Server
	ws     *websocket.Conn
	log    *zap.Logger
	remote string

	// ctx ends the connection: cancelling it (closeWith, or Server.Close via
	// the parent) makes run perform the close handshake. Requests derive
	// their contexts from it.
	ctx    context.Context
	cancel context.CancelFunc
	// ioCtx bounds socket reads and writes. It is cancelled only after the
	// close handshake, because the library drops the socket without a close
	// frame when a read or write context ends.
	ioCtx    context.Context
	ioCancel context.CancelFunc

	// The outbound queue of encoded frames for writeLoop, bounded in frames
	// (SubscriberBuffer) and bytes (MaxQueueBytes); a sender never blocks.
	outMu    sync.Mutex // guards outQ and outBytes
	outQ     [][]byte
	outBytes int           // bytes in outQ plus the frame being written
	outWake  chan struct{} // capacity 1: outQ has frames

	closeOnce   sync.Once
	closeCode   websocket.StatusCode // set once inside closeOnce
	closeReason string

	mu    sync.Mutex // guards subs and ended
	subs  map[string]*sessionSub
	ended bool // set by run at teardown; no subscription may be added after

	limiter *tokenBucket // used by readLoop only

	// executing: a command forwarded by another daemon (Server.Execute),
	// answered here and never forwarded again.
	executing bool
}

// sessionSub is one session.subscribe on this connection.
type sessionSub struct {
	feed feed
	done chan struct{} // closed when its forwarder has returned
}

func newConn(s *Server, ws *websocket.Conn, remote string) *conn {
	ctx, cancel := context.WithCancel(s.ctx)
	// Detached from cancellation on purpose (see ioCtx); run cancels it.
	ioCtx, ioCancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &conn{
		s: s, ws: ws, remote: remote,
		log: s.log.With(zap.String("remote", remote)),
		ctx: ctx, cancel: cancel, ioCtx: ioCtx, ioCancel: ioCancel,
		outWake: make(chan struct{}, 1),
		subs:    make(map[string]*sessionSub),
	}
	if s.cfg.RateLimit > 0 {
		c.limiter = newTokenBucket(s.cfg.RateLimit, s.cfg.RateBurst, s.now())
	}
	return c
}

// closeWith ends the connection with code and reason; the first call wins.
func (c *conn) closeWith(code websocket.StatusCode, reason string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason = code, reason
		c.cancel()
	})
}

// run owns the connection: it starts the other goroutines, waits for the
// end, performs the close handshake and releases every subscription.
func (c *conn) run() {
	c.log.Debug("websocket connected")
	// Subscribe to task updates before reading any request, so a task.list
	// answered later is never older than the feed.
	tasks := c.s.feeds.subscribeTasks(c.s.cfg.SubscriberBuffer)
	c.s.wg.Go(c.writeLoop)
	c.s.wg.Go(c.readLoop)
	if tasks != nil {
		c.s.wg.Go(func() { c.forward(tasks, make(chan struct{}), true) })
	} else {
		c.closeWith(websocket.StatusInternalError, "no task feed")
	}

	<-c.ctx.Done()
	c.closeWith(websocket.StatusGoingAway, reasonShutdown) // no-op unless Server.Close ended us
	// Release the orchestrator's side first; forwarders exit on ctx.
	if tasks != nil {
		tasks.Close()
	}
	c.mu.Lock()
	c.ended = true
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	for _, sub := range subs {
		sub.feed.Close()
	}

	// The library waits up to 5s for the peer's close frame (and longer for a
	// write in progress); a peer that never answers — typically the slow one
	// we are dropping — must not hold Server.Close that long. Cancelling
	// ioCtx drops the socket, which ends the handshake at once.
	grace, cancelGrace := context.WithTimeout(c.ioCtx, closeGrace)
	stopGrace := context.AfterFunc(grace, c.ioCancel)
	err := c.ws.Close(c.closeCode, c.closeReason)
	stopGrace()
	cancelGrace()
	c.ioCancel()

	c.log.Debug("websocket closed", zap.Int("code", int(c.closeCode)), zap.String("reason", c.closeReason), zap.Error(err))
}

// send queues a frame. It never blocks: a full queue (in frames or bytes)
// means the client cannot keep up, and the connection is closed so the
// client resubscribes. One frame larger than the byte bound still goes out
// when nothing else is queued (a snapshot page holds at least one message).
func (c *conn) send(frame []byte) {
	c.outMu.Lock()
	over := len(c.outQ) >= c.s.cfg.SubscriberBuffer || c.outBytes > 0 && c.outBytes+len(frame) > c.s.cfg.MaxQueueBytes
	if !over {
		c.outQ = append(c.outQ, frame)
		c.outBytes += len(frame)
		c.s.noteQueued(c.outBytes)
	}
	frames, bytes := len(c.outQ), c.outBytes
	c.outMu.Unlock()
	if over {
		c.log.Info("websocket client too slow; closing", zap.Int("queued_frames", frames), zap.Int("queued_bytes", bytes))
		c.closeWith(websocket.StatusPolicyViolation, reasonSlow)
		return
	}
	select {
	case c.outWake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued frame; ok is false when there is none.
func (c *conn) next() (frame []byte, ok bool) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if len(c.outQ) == 0 {
		c.outQ = nil // let a drained burst's array go
		return nil, false
	}
	frame = c.outQ[0]
	c.outQ[0] = nil
	c.outQ = c.outQ[1:]
	return frame, true
}

// written releases a frame's bytes from the bound once it is on the wire.
func (c *conn) written(frame []byte) {
	c.outMu.Lock()
	c.outBytes -= len(frame)
	c.outMu.Unlock()
}

func (c *conn) sendError(req request, e *Error) {
	c.send(encode(req.id, TypeError, req.action, e, c.s.now()))
}

func (c *conn) writeLoop() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.outWake:
		}
		for {
			frame, ok := c.next()
			if !ok {
				break
			}
			if c.s.beforeWrite != nil {
				c.s.beforeWrite()
			}
			if c.ctx.Err() != nil {
				return
			}
			ctx, cancel := context.WithTimeout(c.ioCtx, c.s.cfg.WriteTimeout)
			err := c.ws.Write(ctx, websocket.MessageText, frame)
			cancel()
			c.written(frame)
			if err != nil {
				c.log.Debug("websocket write failed", zap.Error(err))
				c.closeWith(websocket.StatusGoingAway, reasonWrite)
				return
			}
		}
	}
}

// forward copies a feed into the queue until the feed or the connection
// ends. The task feed ends only when the orchestrator stops, which ends the
// connection too; a session feed also ends when it is replaced.
func (c *conn) forward(f feed, done chan struct{}, isTasks bool) {
	defer close(done)
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-f.Overflowed():
			c.log.Info("websocket subscription overflowed; closing")
			c.closeWith(websocket.StatusPolicyViolation, reasonSlow)
			return
		case <-f.Done():
			if isTasks {
				c.closeWith(websocket.StatusGoingAway, reasonShutdown)
			}
			return
		case n := <-f.C():
			ts := n.At
			if ts.IsZero() {
				ts = c.s.now()
			}
			c.send(encode("", TypeNotification, n.Action, n.Payload, ts))
		}
	}
}

func (c *conn) readLoop() {
	for {
		typ, r, err := c.ws.Reader(c.ioCtx)
		if err != nil {
			c.readFailed(err)
			return
		}
		data, tooBig, err := c.readFrame(r)
		if err != nil {
			c.readFailed(err)
			return
		}
		allowed := c.limiter.allow(c.s.now())
		switch {
		case tooBig != nil:
			c.sendError(request{}, tooBig)
		case typ != websocket.MessageText:
			c.sendError(request{}, newError(CodeBadRequest, "binary frames are not supported; send JSON text frames"))
		default:
			c.handle(data, allowed)
		}
	}
}

// readFrame reads one message up to ReadLimit. A longer one is drained (up
// to HardReadLimit, which the library enforces) and reported as tooBig.
func (c *conn) readFrame(r io.Reader) (data []byte, tooBig *Error, err error) {
	limit := c.s.cfg.ReadLimit
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) <= limit {
		return data, nil, nil
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return nil, nil, err
	}
	size := int64(len(data)) + n
	e := newError(CodeBadRequest, "frame too large (%d bytes > %d)", size, limit)
	e.Details = map[string]any{"size": size, "limit": limit}
	return nil, e, nil
}

func (c *conn) readFailed(err error) {
	switch {
	case websocket.CloseStatus(err) != -1:
		c.log.Debug("websocket closed by client", zap.Error(err))
	case errors.Is(err, websocket.ErrMessageTooBig):
		c.log.Info("websocket frame over the hard limit; closed with 1009", zap.Int64("limit", c.s.cfg.HardReadLimit))
	case c.ctx.Err() == nil:
		c.log.Debug("websocket read failed", zap.Error(err))
	}
	c.closeWith(websocket.StatusNormalClosure, "")
}

// handle answers one text frame. Requests are handled one at a time, so
// responses leave in request order.
func (c *conn) handle(data []byte, allowed bool) {
	req, derr := decodeRequest(data)
	if !allowed {
		c.sendError(req, newError(CodeRateLimited, "too many requests; slow down"))
		return
	}
	if derr != nil {
		c.sendError(req, derr)
		return
	}
	h, ok := actions[req.action]
	if !ok {
		e := newError(CodeUnknownAction, "unknown action %q", req.action)
		e.Details = map[string]any{"action": req.action}
		c.sendError(req, e)
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.s.cfg.RequestTimeout)
	res, then, err := h(ctx, c, req)
	cancel()
	if err != nil {
		if c.ctx.Err() != nil {
			return // the connection is ending; nobody will read the answer
		}
		e, expose := toError(err)
		if !expose {
			c.log.Error("websocket request failed", zap.String("action", req.action), zap.Error(err))
		}
		c.sendError(req, e)
		return
	}
	c.send(encode(req.id, TypeResponse, req.action, res, c.s.now()))
	if then != nil {
		then()
	}
}

// dropSub drops the connection's subscription to sessionID, if any, and
// waits for its forwarder, so no event of the old feed follows what comes
// next.
func (c *conn) dropSub(sessionID string) bool {
	c.mu.Lock()
	sub := c.subs[sessionID]
	delete(c.subs, sessionID)
	c.mu.Unlock()
	if sub == nil {
		return false
	}
	sub.feed.Close()
	<-sub.done // prompt: forward never blocks
	return true
}

// addSub registers f and returns the function that starts its forwarder;
// the caller runs it after queueing the subscribe response.
func (c *conn) addSub(sessionID string, f feed) (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		f.Close()
		return nil, context.Canceled
	}
	if len(c.subs) >= maxSessionSubs {
		f.Close()
		return nil, newError(CodeConflict, "too many session subscriptions on this connection (%d); unsubscribe first", maxSessionSubs)
	}
	sub := &sessionSub{feed: f, done: make(chan struct{})}
	c.subs[sessionID] = sub
	return func() { c.s.wg.Go(func() { c.forward(f, sub.done, false) }) }, nil
}

// tokenBucket is a per-connection request limiter.
type tokenBucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// allow takes a token; a nil bucket allows everything.
func (b *tokenBucket) allow(now time.Time) bool {
	if b == nil {
		return true
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed*b.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
