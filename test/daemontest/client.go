package daemontest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Envelope is one protocol frame.
type Envelope struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Action  string          `json:"action"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Client is a WebSocket connection speaking the envelope protocol.
type Client struct {
	t     testing.TB
	conn  *websocket.Conn
	ctx   context.Context
	mu    sync.Mutex // guards next
	next  int
	resp  chan Envelope
	notes chan Envelope
	wg    sync.WaitGroup // the reader
}

// Dial connects to d's /ws with the token; closed when the test ends.
func Dial(t testing.TB, d *Daemon) *Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(d.URL, "http")+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + d.Token}},
	})
	if err != nil {
		cancel()
		t.Fatalf("dial: %v", err)
	}
	conn.SetReadLimit(64 << 20)
	c := &Client{t: t, conn: conn, ctx: ctx, resp: make(chan Envelope, 64), notes: make(chan Envelope, 100000)}
	c.wg.Go(func() { // ends when the connection closes
		for {
			_, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var e Envelope
			if json.Unmarshal(data, &e) != nil {
				continue
			}
			if e.Type == "notification" {
				c.notes <- e
			} else {
				c.resp <- e
			}
		}
	})
	t.Cleanup(func() {
		_ = conn.Close(websocket.StatusNormalClosure, "")
		cancel()
		c.wg.Wait()
	})
	return c
}

// Call sends a request and returns the response payload, failing on error.
func (c *Client) Call(action string, payload any) json.RawMessage {
	c.t.Helper()
	e := c.Request(action, payload)
	if e.Type != "response" {
		c.t.Fatalf("%s failed: %s", action, e.Payload)
	}
	return e.Payload
}

// Request sends a request and returns whatever envelope answers it.
func (c *Client) Request(action string, payload any) Envelope {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := fmt.Sprintf("r%d", c.next)
	c.mu.Unlock()
	body, err := json.Marshal(map[string]any{"id": id, "type": "request", "action": action, "payload": payload})
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.conn.Write(c.ctx, websocket.MessageText, body); err != nil {
		c.t.Fatalf("send %s: %v", action, err)
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-c.resp:
			if e.ID == id {
				return e
			}
		case <-deadline:
			c.t.Fatalf("no answer to %s", action)
		}
	}
}

// WaitNote returns the first notification that matches, within timeout.
func (c *Client) WaitNote(timeout time.Duration, match func(Envelope) bool) Envelope {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e := <-c.notes:
			if match(e) {
				return e
			}
		case <-deadline:
			c.t.Fatalf("timed out waiting for a notification")
		}
	}
}
