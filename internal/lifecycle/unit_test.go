package lifecycle

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestTailBufferKeepsTheEnd(t *testing.T) {
	t.Parallel()
	b := newTailBuffer(8)
	_, _ = b.Write([]byte("abc"))
	assert.Equal(t, "abc", b.String())
	_, _ = b.Write([]byte("defghij"))
	assert.Equal(t, "cdefghij", b.String())
	_, _ = b.Write([]byte(strings.Repeat("x", 20) + "END"))
	assert.Equal(t, "xxxxxEND", b.String())
	_, _ = b.Write([]byte("ééé")) // 6 bytes: the cut lands inside a rune
	s := b.String()
	assert.True(t, utf8.ValidString(s))
	assert.True(t, strings.HasSuffix(s, "ééé"))
}

func TestEventQueueOrderAndBarrier(t *testing.T) {
	t.Parallel()
	q := newEventQueue()
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	wg.Go(func() {
		q.run(func(ev Event) {
			mu.Lock()
			got = append(got, ev.Text)
			mu.Unlock()
		})
	})
	var want []string
	for i := range 1000 {
		s := strings.Repeat("x", i%7)
		want = append(want, s)
		q.push(Event{Kind: EventAgentMessage, Text: s})
	}
	<-q.barrier()
	mu.Lock()
	assert.Equal(t, want, got)
	mu.Unlock()

	q.close()
	wg.Wait()
	<-q.barrier() // released at once after close
}

func TestReplayJoinsChunksPerMessage(t *testing.T) {
	t.Parallel()
	c := &acpClient{events: newEventQueue()}
	c.beginLoad()
	id := func(s string) *string { return &s }
	for _, u := range []struct {
		user bool
		id   *string
		text string
	}{
		{true, id("a"), "hel"}, {true, id("a"), "lo"}, // one message in two chunks
		{true, id("b"), "second"}, // next message, no reply in between
		{false, nil, "reply"},
		{true, nil, "no "}, {true, nil, "ids"}, // consecutive chunks without ids
	} {
		c.collectReplay(update(u.user, u.id, u.text))
	}
	assert.Equal(t, []string{"hello", "second", "no ids"}, c.endLoad())
}

// TestProcessEnvDropsDaemonVariables: an agent never sees the daemon's own
// settings, above all its access token; what the profile and the request
// set on purpose still reaches it.
func TestProcessEnvDropsDaemonVariables(t *testing.T) {
	t.Setenv("ORCHESTRATORD_TOKEN", "daemon-secret-token-123")
	t.Setenv("ORCHESTRATORD_DATA_DIR", "/srv/orchestratord")
	t.Setenv("LIFECYCLE_TEST_KEEP", "kept")
	env := processEnv(StartRequest{
		Profile: Profile{Env: map[string]string{"CLAUDE_CODE_MAX_RETRIES": "0"}},
		Env:     map[string]string{"ORCHESTRATORD_TASK_ID": "t1"},
	})
	joined := strings.Join(env, "\n")
	for _, leak := range []string{"daemon-secret-token-123", "ORCHESTRATORD_TOKEN", "ORCHESTRATORD_DATA_DIR"} {
		if strings.Contains(joined, leak) {
			t.Errorf("agent environment holds %q", leak)
		}
	}
	for _, want := range []string{"LIFECYCLE_TEST_KEEP=kept", "CLAUDE_CODE_MAX_RETRIES=0", "ORCHESTRATORD_TASK_ID=t1"} {
		if !slices.Contains(env, want) {
			t.Errorf("agent environment lacks %q", want)
		}
	}
}
