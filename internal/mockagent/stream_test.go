package mockagent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStreamScenario(t *testing.T) {
	t.Parallel()
	s, ok := parseScenario("/stream:50000:1000000 go")
	require.True(t, ok)
	assert.Equal(t, scStream, s.name)
	assert.Equal(t, 50000, s.n)
	assert.Equal(t, 1000000, s.size)
	s, _ = parseScenario("/stream")
	assert.Equal(t, defaultStreamChunks, s.n)
	assert.Equal(t, defaultStreamBytes, s.size)
	s, _ = parseScenario("/stream:10:3")
	assert.Equal(t, 10, s.size, "at least a byte per chunk")
	assert.False(t, s.fails())
}

func TestStreamPiecesAreNumberedAndSized(t *testing.T) {
	t.Parallel()
	p := streamPieces(7, 100)
	require.Len(t, p, 7)
	total := 0
	for i, c := range p {
		total += len(c)
		assert.True(t, strings.HasPrefix(c, strings.Split(c, "|")[0]+"|"), "piece %d: %q", i, c)
	}
	assert.Equal(t, 100, total)
	assert.Equal(t, strings.Join(p, ""), StreamReply(7, 100))
	assert.Equal(t, "0|aaaaaaaaaaaaa", p[0][:15])
	assert.Len(t, StreamReply(50000, 1000000), 1000000)
}
