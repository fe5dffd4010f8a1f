package lifecycle

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsSessionUpdate(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		`{"jsonrpc":"2.0","method":"session/update","params":{}}` + "\n":                  true,
		`{"jsonrpc": "2.0", "id": null, "method": "session/update", "params": {}}` + "\n": true,
		`{"jsonrpc":"2.0","id":3,"method":"session/update","params":{}}` + "\n":           false, // a request
		`{"jsonrpc":"2.0","id":3,"result":{"text":"\"session/update\""}}` + "\n":          false,
		`{"jsonrpc":"2.0","method":"session/update"` + "\n":                               false, // not JSON: the SDK skips it
		`{"jsonrpc":"2.0","method":"_x/session/update"}` + "\n":                           false,
		// Read from the top-level keys alone, exactly as encoding/json would.
		`{"jsonrpc":"2.0","method":"session/update","params":{"id":7,"text":"}\"id\":1 {["}}`: true,
		`{"params":{"update":[1,{"a":"b"}]},"method":"session/update","jsonrpc":"2.0"}`:       true,
		`{"jsonrpc":"2.0","method":"session\/update","params":{}}`:                            false, // escaped: not paced (as before; agents send it plain)
		`{"jsonrpc":"2.0","ID":4,"method":"session/update","params":{}}`:                      false, // keys match case-insensitively
		`{"jsonrpc":"2.0","id":4,"method":"session/update","id":null}`:                        true,  // the last key wins
		`{"jsonrpc":"2.0","method":"session/update","params":{}} x`:                           false,
	} {
		assert.Equal(t, want, isSessionUpdate([]byte(line)), line)
	}
}

// Past maxUnhandled unhandled updates the reader holds the next one back
// until the SDK hands one to SessionUpdate; other lines pass.
func TestPacedReaderHoldsBackUpdatesNotHandled(t *testing.T) {
	t.Parallel()
	update := `{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}` + "\n"
	response := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	input := strings.Repeat(update, maxUnhandled) + response + update
	p := newPacedReader(strings.NewReader(input), nil)
	buf := make([]byte, 7) // smaller than a line: lines come in pieces
	var got strings.Builder
	readLines := func(n int) error {
		for lines := 0; lines < n; {
			k, err := p.Read(buf)
			if err != nil {
				return err
			}
			got.Write(buf[:k])
			lines += strings.Count(string(buf[:k]), "\n")
		}
		return nil
	}
	require.NoError(t, readLines(maxUnhandled+1)) // the updates, and the response, which is never held
	assert.Equal(t, strings.Repeat(update, maxUnhandled)+response, got.String())

	done := make(chan error, 1)
	go func() { done <- readLines(1) }()
	select {
	case <-done:
		t.Fatal("an update past the limit was not held back")
	case <-time.After(50 * time.Millisecond):
	}
	p.handled()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a handled update did not let the next one through")
	}
	assert.Equal(t, input, got.String())
	_, err := p.Read(buf)
	assert.Equal(t, io.EOF, err)
}

// A closed stop channel (the execution is ending) lets everything through.
func TestPacedReaderStopsPacingWhenStopped(t *testing.T) {
	t.Parallel()
	update := `{"jsonrpc":"2.0","method":"session/update","params":{}}` + "\n"
	stop := make(chan struct{})
	close(stop)
	p := newPacedReader(strings.NewReader(strings.Repeat(update, 3*maxUnhandled)), stop)
	b, err := io.ReadAll(p)
	require.NoError(t, err)
	assert.Len(t, b, 3*maxUnhandled*len(update))
}

func TestPacedReaderAssemblesLongLines(t *testing.T) {
	t.Parallel()
	long := `{"jsonrpc":"2.0","method":"session/update","params":{"t":"` + strings.Repeat("x", 3*paceBuffer) + `"}}` + "\n"
	p := newPacedReader(strings.NewReader(long+long), nil)
	b, err := io.ReadAll(p)
	require.NoError(t, err)
	assert.Equal(t, long+long, string(b))
	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Equal(t, 2, p.inflight, "both counted as one update each")
}
