package browser

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// proxy is a loopback TCP proxy the test owns, so it can cut every
// connection between the browser and the daemon at once — the server side of
// the WebSocket going away mid-stream — while the daemon keeps running.
type proxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup // the accept loop and every pipe

	mu    sync.Mutex // guards conns
	conns map[net.Conn]struct{}

	// refusing: new connections are closed at once, as if the daemon were
	// down (setDown).
	refusing atomic.Bool
}

// setDown makes the daemon unreachable through the proxy (every connection
// cut, new ones closed at once), or reachable again.
func (p *proxy) setDown(down bool) {
	p.refusing.Store(down)
	if down {
		p.cutAll()
	}
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// Addr is host:port for the browser.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.wg.Go(func() { p.pipe(c) })
	}
}

func (p *proxy) pipe(client net.Conn) {
	if p.refusing.Load() {
		_ = client.Close()
		return
	}
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.track(client, upstream)
	defer p.untrack(client, upstream)
	var up sync.WaitGroup
	up.Go(func() { // browser → daemon; ends when either side closes
		_, _ = io.Copy(upstream, client)
		_ = upstream.Close()
		_ = client.Close()
	})
	_, _ = io.Copy(client, upstream) // daemon → browser
	_ = client.Close()
	_ = upstream.Close()
	up.Wait()
}

func (p *proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
}

func (p *proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

// cutAll closes every proxied connection (both sides) and reports how many
// browser connections it cut. The listener stays open: the page can come back.
func (p *proxy) cutAll() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	return len(p.conns) / 2
}

func (p *proxy) close() {
	_ = p.ln.Close()
	p.cutAll()
	p.wg.Wait()
}
