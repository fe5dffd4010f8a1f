package lifecycle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
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
//
// It runs for every line the agent writes, before the SDK decodes the same
// line, so it reads only the top-level keys (topLevel) instead of decoding
// the whole message a second time (a 50,000-chunk reply spent 0.15 s of
// CPU here). An update whose params are not valid JSON is counted although
// the SDK drops it; paceDrift corrects the count.
func isSessionUpdate(line []byte) bool {
	if !bytes.Contains(line, sessionUpdateMethod) {
		return false
	}
	if method, hasID, ok := topLevel(line); ok {
		return !hasID && string(method) == "session/update"
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

// topLevel reads a JSON object's "method" (a string without escapes) and
// whether it has a non-null "id", skipping every other value unread. ok is
// false for anything it does not read exactly as encoding/json would (an
// escaped key or method, a key that matches only case-insensitively, a
// malformed object): the caller then decodes the line.
func topLevel(b []byte) (method []byte, hasID, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, false, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false, false
		}
		end := bytes.IndexByte(b[i+1:], '"')
		if end < 0 {
			return nil, false, false
		}
		key := b[i+1 : i+1+end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, false, false
		}
		i = skipSpace(b, i+2+end)
		if i >= len(b) || b[i] != ':' {
			return nil, false, false
		}
		i = skipSpace(b, i+1)
		start := i
		if i, ok = skipValue(b, i); !ok {
			return nil, false, false
		}
		val := b[start:i]
		switch {
		case string(key) == "method":
			if len(val) < 2 || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return nil, false, false
			}
			method = val[1 : len(val)-1]
		case string(key) == "id":
			hasID = string(val) != "null"
		case bytes.EqualFold(key, []byte("method")), bytes.EqualFold(key, []byte("id")):
			return nil, false, false // encoding/json matches keys case-insensitively
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, false, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			if skipSpace(b, i+1) != len(b) {
				return nil, false, false
			}
			return method, hasID, true
		default:
			return nil, false, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value at b[i:]; nested values are
// matched bracket by bracket, not validated.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var ok bool
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default: // a number or a literal
		start := i
		for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
			i++
		}
		return i, i > start
	}
}

// skipString returns the end of the string opening at b[i].
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}
