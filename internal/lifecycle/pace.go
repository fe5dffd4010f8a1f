package lifecycle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// The ACP SDK reads the agent's stdout on one goroutine and hands
// notifications to a second through a queue of 1,024; when that queue is
// full it logs "failed to queue notification; closing connection" and
// drops the agent. SessionUpdate never blocks (it only enqueues, see
// eventQueue), but an agent streaming as fast as it can still outruns the
// SDK's own decoding on a busy machine: measured on 2 cores, a 200 KB reply
// of 10,000 chunks lost the connection every time.
//
// pacedReader is the back-pressure the SDK lacks. It hands stdout to the
// SDK a line (one JSON-RPC message) at a time, and before a session/update
// notification it waits while maxUnhandled of them are read but not yet
// handed to SessionUpdate. The agent then simply waits on its pipe, as it
// would for a slow terminal; nothing is dropped and the connection stays.
type pacedReader struct {
	r    *bufio.Reader
	stop <-chan struct{} // closed: stop pacing (the execution is ending)
	wake chan struct{}   // capacity 1: a notification was handled

	line []byte // rest of the current line, not yet returned
	err  error  // the read error that ended the line, returned after it

	mu       sync.Mutex // guards inflight
	inflight int        // session/update lines read, not yet handled
}

const (
	// maxUnhandled is half the SDK's queue: the other half is room for
	// the notifications that are not session/update.
	maxUnhandled = 512
	// paceDrift: with no notification handled for this long, the count is
	// assumed wrong (a notification the SDK could not decode never reaches
	// SessionUpdate) and reset, rather than stall the agent forever.
	paceDrift = 2 * time.Second
	// paceBuffer is the read buffer; longer lines are assembled.
	paceBuffer = 64 << 10
)

func newPacedReader(r io.Reader, stop <-chan struct{}) *pacedReader {
	return &pacedReader{r: bufio.NewReaderSize(r, paceBuffer), stop: stop, wake: make(chan struct{}, 1)}
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if len(p.line) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		p.line, p.err = p.readLine()
		if len(p.line) == 0 {
			return 0, p.err
		}
		if isSessionUpdate(p.line) {
			p.admit()
		}
	}
	n := copy(b, p.line)
	p.line = p.line[n:]
	return n, nil
}

// readLine returns the next line with its newline; its bytes stay valid
// until the next call.
func (p *pacedReader) readLine() ([]byte, error) {
	line, err := p.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = p.r.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// admit waits for room for one more session/update in the SDK's queue.
func (p *pacedReader) admit() {
	var drift *time.Timer
	p.mu.Lock()
	for p.inflight >= maxUnhandled {
		p.mu.Unlock()
		if drift == nil {
			drift = time.NewTimer(paceDrift)
			defer drift.Stop()
		} else {
			drift.Reset(paceDrift)
		}
		reset := false
		select {
		case <-p.wake: // one handled: look again
		case <-p.stop: // ending: deliver the rest at once
			reset = true
		case <-drift.C:
			reset = true
		}
		p.mu.Lock()
		if reset {
			p.inflight = 0
		}
	}
	p.inflight++
	p.mu.Unlock()
}

// handled is called for every session/update the SDK delivers.
func (p *pacedReader) handled() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.inflight > 0 {
		p.inflight--
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

var sessionUpdateMethod = []byte(`"session/update"`)

// isSessionUpdate: a JSON-RPC notification (no id) of method
// session/update, the only kind the SDK queues for SessionUpdate.
func isSessionUpdate(line []byte) bool {
	if !bytes.Contains(line, sessionUpdateMethod) {
		return false
	}
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return false // the SDK will not queue it either
	}
	return m.Method == "session/update" && m.ID == nil
}
