package mockagent

import (
	"context"
	"errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testClient records updates and allows every tool call.
type testClient struct {
	mu      sync.Mutex // guards updates, onFirst
	updates []acp.SessionUpdate
	onFirst func()
}

func (c *testClient) setOnFirst(f func()) {
	c.mu.Lock()
	c.onFirst = f
	c.mu.Unlock()
}

func (c *testClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	first := len(c.updates) == 1
	onFirst := c.onFirst
	c.mu.Unlock()
	if first && onFirst != nil {
		onFirst()
	}
	return nil
}

func (c *testClient) take() []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

func (c *testClient) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)}, nil
}

func (c *testClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errors.New("unsupported")
}

func (c *testClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errors.New("unsupported")
}

func (c *testClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errors.New("unsupported")
}

func (c *testClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errors.New("unsupported")
}

func (c *testClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errors.New("unsupported")
}

func (c *testClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errors.New("unsupported")
}

func (c *testClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errors.New("unsupported")
}

// peer is one in-process mock agent (Run on pipes) and its client.
type peer struct {
	conn   *acp.ClientSideConnection
	client *testClient
	runErr chan error
	close  func()
}

func connect(t *testing.T, cfg Config) *peer {
	t.Helper()
	c2aR, c2aW := io.Pipe()
	a2cR, a2cW := io.Pipe()
	p := &peer{client: &testClient{}, runErr: make(chan error, 1)}
	gate := make(chan struct{})
	p.conn = acp.NewClientSideConnection(p.client, c2aW, gatedReader{r: a2cR, open: gate})
	p.conn.SetLogger(slog.New(slog.DiscardHandler))
	close(gate)
	var wg sync.WaitGroup
	wg.Go(func() { p.runErr <- Run(context.Background(), c2aR, a2cW, cfg) })
	var once sync.Once
	p.close = func() {
		once.Do(func() {
			_ = c2aW.Close()
			_ = c2aR.Close()
			_ = a2cW.Close()
			_ = a2cR.Close()
			wg.Wait()
		})
	}
	t.Cleanup(p.close)
	return p
}

func (p *peer) init(t *testing.T) acp.InitializeResponse {
	t.Helper()
	resp, err := p.conn.Initialize(ctx(t), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	require.NoError(t, err)
	return resp
}

func (p *peer) newSession(t *testing.T) string {
	t.Helper()
	p.init(t)
	resp, err := p.conn.NewSession(ctx(t), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	return string(resp.SessionId)
}

func (p *peer) prompt(t *testing.T, sid, text string) (acp.PromptResponse, error) {
	t.Helper()
	return p.conn.Prompt(ctx(t), acp.PromptRequest{SessionId: acp.SessionId(sid), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func agentText(us []acp.SessionUpdate) (string, int) {
	var b strings.Builder
	n := 0
	for _, u := range us {
		if u.AgentMessageChunk != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
			n++
		}
	}
	return b.String(), n
}

func rpcErr(t *testing.T, err error) *acp.RequestError {
	t.Helper()
	var re *acp.RequestError
	require.True(t, errors.As(err, &re), "want a JSON-RPC error, got %v", err)
	return re
}

func TestEchoStreamsInChunks(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	sid := p.newSession(t)
	resp, err := p.prompt(t, sid, "hello there")
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, resp.StopReason)
	text, n := agentText(p.client.take())
	assert.Equal(t, "Echo: hello there", text)
	assert.True(t, n >= 3, "chunks: %d", n)
}

func TestLoadReplaysHistoryWithFailedPrompt(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	p := connect(t, Config{StateDir: state})
	assert.True(t, p.init(t).AgentCapabilities.LoadSession)
	sid := p.newSession(t)
	_, err := p.prompt(t, sid, "first")
	require.NoError(t, err)
	_, err = p.prompt(t, sid, "/overloaded")
	assert.Equal(t, -32603, rpcErr(t, err).Code)
	p.close()

	q := connect(t, Config{StateDir: state})
	q.init(t)
	_, err = q.conn.LoadSession(ctx(t), acp.LoadSessionRequest{SessionId: acp.SessionId(sid), Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	var got []string
	for _, u := range q.client.take() {
		switch {
		case u.UserMessageChunk != nil:
			assert.True(t, u.UserMessageChunk.MessageId != nil)
			got = append(got, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			got = append(got, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		}
	}
	assert.Equal(t, []string{"user:first", "agent:Echo: first", "user:/overloaded"}, got)
	prompts, err := UserPrompts(state, sid)
	require.NoError(t, err)
	assert.Equal(t, []string{"first", "/overloaded"}, prompts)
	_, err = UserPrompts(state, "mock-missing")
	assert.True(t, errors.Is(err, errNoSession), "%v", err)

	// "continue" inherits /overloaded; with no task id the counter is per session.
	_, err = q.prompt(t, sid, "continue")
	require.NoError(t, err)
	text, _ := agentText(q.client.take())
	assert.Equal(t, "Recovered after 1 failures: Echo: continue", text)
}

func TestCountersSurviveNewProcesses(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	var sid string
	for run := 1; run <= 3; run++ {
		p := connect(t, Config{StateDir: state})
		if run == 1 {
			sid = p.newSession(t)
		} else {
			p.init(t)
			_, err := p.conn.LoadSession(ctx(t), acp.LoadSessionRequest{SessionId: acp.SessionId(sid), Cwd: "/", McpServers: []acp.McpServer{}})
			require.NoError(t, err)
			p.client.take()
		}
		_, err := p.prompt(t, sid, "/rate-limit:2:1")
		if run <= 2 {
			assert.Contains(t, rpcErr(t, err).Message, "rate_limit_error", "run %d", run)
		} else {
			require.NoError(t, err)
		}
		p.close()
	}
}

func TestConcurrentCountersAreExact(t *testing.T) {
	t.Parallel()
	st, err := openStore(t.TempDir())
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	fails := 0
	for range 20 {
		wg.Go(func() {
			fail, _, err := st.countFailure("task|overloaded", 7)
			assert.True(t, err == nil, "%v", err)
			if fail {
				mu.Lock()
				fails++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 7, fails)
}

func TestConnClosedStreamsFirst(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	sid := p.newSession(t)
	_, err := p.prompt(t, sid, "/conn-closed hello world")
	assert.Contains(t, rpcErr(t, err).Message, "Connection closed mid-response")
	_, n := agentText(p.client.take())
	assert.True(t, n >= 1, "streamed %d chunks before failing", n)
}

func TestToolEmitsCallAndUpdate(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	sid := p.newSession(t)
	_, err := p.prompt(t, sid, "/tool")
	require.NoError(t, err)
	us := p.client.take()
	require.True(t, len(us) >= 3)
	require.True(t, us[0].ToolCall != nil && us[1].ToolCallUpdate != nil)
	assert.Equal(t, acp.ToolCallStatusCompleted, *us[1].ToolCallUpdate.Status)
}

func TestSlowHonoursCancel(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	sid := p.newSession(t)
	p.client.setOnFirst(func() {
		_ = p.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: acp.SessionId(sid)})
	})
	begin := time.Now()
	resp, err := p.prompt(t, sid, "/slow:20000")
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonCancelled, resp.StopReason)
	assert.True(t, time.Since(begin) < 10*time.Second, "took %s; the slow reply lasts 20s", time.Since(begin))
}

func TestCrashEndsRun(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	sid := p.newSession(t)
	pctx := ctx(t)
	var wg sync.WaitGroup
	wg.Go(func() { // never answered: ends when the pipes close
		_, _ = p.conn.Prompt(pctx, acp.PromptRequest{SessionId: acp.SessionId(sid), Prompt: []acp.ContentBlock{acp.TextBlock("/crash")}})
	})
	defer wg.Wait()
	defer p.close()
	select {
	case err := <-p.runErr:
		assert.True(t, errors.Is(err, ErrCrash), "%v", err)
	case <-time.After(5 * time.Second):
		t.Error("Run did not return after /crash")
	}
}

func TestNoLoadSession(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir(), NoLoadSession: true})
	assert.True(t, !p.init(t).AgentCapabilities.LoadSession)
	_, err := p.conn.LoadSession(ctx(t), acp.LoadSessionRequest{SessionId: "mock-x", Cwd: "/", McpServers: []acp.McpServer{}})
	assert.Equal(t, -32601, rpcErr(t, err).Code)
}

func TestUnknownSessions(t *testing.T) {
	t.Parallel()
	p := connect(t, Config{StateDir: t.TempDir()})
	p.init(t)
	_, err := p.prompt(t, "mock-nope", "hi")
	assert.Equal(t, -32602, rpcErr(t, err).Code)
	for _, id := range []string{"mock-nope", "../../etc/passwd"} {
		_, err = p.conn.LoadSession(ctx(t), acp.LoadSessionRequest{SessionId: acp.SessionId(id), Cwd: "/", McpServers: []acp.McpServer{}})
		assert.Equal(t, -32002, rpcErr(t, err).Code, id)
	}
}
