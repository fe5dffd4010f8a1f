package mockagent

import (
	"context"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// scStream, "/stream:N:BYTES", streams a reply of BYTES bytes in N chunks
// as fast as the pipe takes them, then ends the turn: a fast agent's long
// answer, for the streaming benchmarks and the back-pressure tests.
const scStream = "stream"

const (
	defaultStreamChunks = 1000
	defaultStreamBytes  = 20_000
	// maxStreamBytes keeps a typo from asking for gigabytes.
	maxStreamBytes = 64 << 20
)

// parseStream fills in a /stream scenario's chunk count and size.
func parseStream(s *scenario, num func(i, def int) int) {
	s.n = max(num(1, defaultStreamChunks), 1)
	s.size = min(max(num(2, defaultStreamBytes), s.n), maxStreamBytes)
}

// StreamReply is the whole text "/stream:N:BYTES" streams: N chunks, each
// opening with its index ("17|bbbb…") so a reader can tell a lost or
// reordered chunk, BYTES bytes in all (at least one per chunk).
func StreamReply(n, size int) string {
	var b strings.Builder
	for _, p := range streamPieces(n, size) {
		b.WriteString(p)
	}
	return b.String()
}

func streamPieces(n, size int) []string {
	n = max(n, 1)
	size = max(size, n)
	out := make([]string, n)
	for i := range n {
		l := size / n
		if i < size%n {
			l++
		}
		p := strconv.Itoa(i) + "|"
		if len(p) > l {
			p = p[:l]
		}
		out[i] = p + strings.Repeat(string(rune('a'+i%26)), l-len(p))
	}
	return out
}

// streamFast sends the pieces back to back, with no pause.
func (a *agent) streamFast(ctx context.Context, sid string, sc scenario) (acp.PromptResponse, error) {
	if err := a.stream(ctx, sid, streamPieces(sc.n, sc.size), 0); err != nil {
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}
