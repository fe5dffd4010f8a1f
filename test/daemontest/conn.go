package daemontest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Conn is a WebSocket connection that reports errors instead of failing a
// test: for programs and fault suites, where the daemon may die under it.
type Conn struct {
	conn   *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	next   atomic.Int64
	mu     sync.Mutex // guards waits
	waits  map[string]chan Envelope
	notes  chan Envelope
	wg     sync.WaitGroup // the reader
}

// WireError is an error envelope's payload.
type WireError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func (e *WireError) Error() string { return e.Code + ": " + e.Message }

// DialConn connects to d's /ws with its token. Notifications that nobody
// reads are dropped once 10,000 are queued.
func DialConn(ctx context.Context, d *Daemon) (*Conn, error) {
	cctx, cancel := context.WithCancel(context.Background())
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	ws, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(d.URL, "http")+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + d.Token}},
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("dial: %w", err)
	}
	ws.SetReadLimit(64 << 20)
	c := &Conn{conn: ws, ctx: cctx, cancel: cancel, waits: map[string]chan Envelope{}, notes: make(chan Envelope, 10000)}
	c.wg.Go(func() { // ends when the connection closes or Close cancels it
		defer cancel() // pending Calls fail at once when the daemon goes away
		for {
			_, data, err := ws.Read(cctx)
			if err != nil {
				return
			}
			var e Envelope
			if json.Unmarshal(data, &e) != nil {
				continue
			}
			if e.Type == "notification" {
				select {
				case c.notes <- e:
				default:
				}
				continue
			}
			c.mu.Lock()
			w := c.waits[e.ID]
			delete(c.waits, e.ID)
			c.mu.Unlock()
			if w != nil {
				w <- e
			}
		}
	})
	return c, nil
}

// Notes are the notifications received, in order.
func (c *Conn) Notes() <-chan Envelope { return c.notes }

// Call sends a request and waits for its answer: the response payload, a
// *WireError for an error envelope, or the transport's error.
func (c *Conn) Call(ctx context.Context, action string, payload any) (json.RawMessage, error) {
	id := fmt.Sprintf("c%d", c.next.Add(1))
	body, err := json.Marshal(map[string]any{"id": id, "type": "request", "action": action, "payload": payload})
	if err != nil {
		return nil, err
	}
	w := make(chan Envelope, 1)
	c.mu.Lock()
	c.waits[id] = w
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waits, id)
		c.mu.Unlock()
	}()
	if err := c.conn.Write(ctx, websocket.MessageText, body); err != nil {
		return nil, fmt.Errorf("send %s: %w", action, err)
	}
	select {
	case e := <-w:
		if e.Type == "error" {
			we := &WireError{}
			if err := json.Unmarshal(e.Payload, we); err != nil {
				return nil, fmt.Errorf("%s: undecodable error %s", action, e.Payload)
			}
			return nil, we
		}
		return e.Payload, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", action, ctx.Err())
	case <-c.ctx.Done():
		return nil, fmt.Errorf("%s: connection closed", action)
	}
}

// Close closes the connection and waits for its reader; safe to call twice.
func (c *Conn) Close() {
	_ = c.conn.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	c.wg.Wait()
}
