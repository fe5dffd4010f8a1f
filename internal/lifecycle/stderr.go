package lifecycle

import (
	"sync"
	"unicode/utf8"
)

// tailBuffer keeps the last max bytes written to it. Agents can print
// megabytes of debug output; only the end tends to explain a failure, and
// evidence must stay small.
type tailBuffer struct {
	max int

	mu    sync.Mutex // guards buf, total
	buf   []byte
	total int64 // bytes ever written; lets callers see whether output is still arriving
}

func newTailBuffer(max int) *tailBuffer {
	return &tailBuffer{max: max, buf: make([]byte, 0, max)}
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(n)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the tail, starting at a rune boundary so a cut never
// produces invalid UTF-8 at the front.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return string(b)
}

func (t *tailBuffer) written() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}
