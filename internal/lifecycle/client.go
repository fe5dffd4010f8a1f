package lifecycle

import (
	"context"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// acpClient is the client side of ACP for one execution. The SDK calls
// SessionUpdate from its single notification goroutine, so it only records
// and enqueues; it never blocks.
type acpClient struct {
	log        *zap.Logger
	events     *eventQueue
	pace       *pacedReader // told of every update handled; set before the first read
	permission string       // "allow" or "reject", validated at Start

	mu       sync.Mutex // guards everything below
	loading  bool       // session/load in progress: updates are replay, not live
	replay   []replayed
	lastUser bool // the previous replay update was a user chunk
	updates  int  // replayed updates so far: settleReplay watches it move
	turn     turnFlags
	model    Model // the session's model as the agent reports it (model.go)
}

type replayed struct {
	id   string
	text string
}

// turnFlags describe what the live turn has streamed so far.
type turnFlags struct {
	streamed bool   // any live update: decides prompt_send vs streaming
	output   bool   // assistant text
	text     string // that text while it is short enough to be an error echo
	long     bool   // the text outgrew maxOutputEcho
	tool     bool   // tool calls or their updates
}

// maxOutputEcho bounds the assistant text kept as evidence: agents such as
// claude-agent-acp stream their error line as text before failing, and
// routingerr needs it to tell that echo from real work.
const maxOutputEcho = 4 << 10

func (t *turnFlags) addText(s string) {
	if t.long {
		return
	}
	if len(t.text)+len(s) > maxOutputEcho {
		t.text, t.long = "", true
		return
	}
	t.text += s
}

var _ acp.Client = (*acpClient)(nil)

func (c *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.pace.handled()
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := n.Update.ConfigOptionUpdate; u != nil {
		c.modelUpdateLocked(u)
	}
	if c.loading {
		c.updates++
		c.collectReplay(n.Update)
		return nil
	}
	ev, ok := toEvent(n.Update)
	if !ok {
		return nil
	}
	if ev.Kind == EventUsage { // bookkeeping, not a sign that the turn streams
		c.events.push(ev)
		return nil
	}
	c.turn.streamed = true
	switch ev.Kind {
	case EventAgentMessage:
		c.turn.output = true
		c.turn.addText(ev.Text)
	case EventToolCall, EventToolCallUpdate:
		c.turn.tool = true
	}
	c.events.push(ev)
	return nil
}

// collectReplay joins the chunks of each replayed user message: by
// messageId when the agent sends one, else consecutive chunks form a message.
func (c *acpClient) collectReplay(u acp.SessionUpdate) {
	if u.UserMessageChunk == nil {
		c.lastUser = false
		return
	}
	text := blockText(u.UserMessageChunk.Content)
	id := ""
	if u.UserMessageChunk.MessageId != nil {
		id = *u.UserMessageChunk.MessageId
	}
	n := len(c.replay)
	sameMessage := n > 0 && c.lastUser && c.replay[n-1].id == id
	if sameMessage {
		c.replay[n-1].text += text
	} else {
		c.replay = append(c.replay, replayed{id: id, text: text})
	}
	c.lastUser = true
}

func (c *acpClient) beginLoad() {
	c.mu.Lock()
	c.loading, c.replay, c.lastUser, c.updates = true, nil, false, 0
	c.mu.Unlock()
}

func (c *acpClient) replayCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updates
}

// settleReplay keeps replay mode on after session/load has answered until
// no update has come for quiet, at most max: Gemini CLI 0.61 answers the
// load after its first replayed message and streams the rest after the
// answer, and those chunks would otherwise read as the retry's reply.
func (c *acpClient) settleReplay(quiet, max time.Duration) {
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	tick := time.NewTicker(quiet)
	defer tick.Stop()
	last := c.replayCount()
	for {
		select {
		case <-deadline.C:
			return
		case <-tick.C:
			n := c.replayCount()
			if n == last {
				return
			}
			last = n
		}
	}
}

// endLoad switches to live mode and returns the replayed user prompts.
func (c *acpClient) endLoad() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loading = false
	out := make([]string, 0, len(c.replay))
	for _, r := range c.replay {
		out = append(out, r.text)
	}
	c.replay = nil
	return out
}

func (c *acpClient) resetTurn() {
	c.mu.Lock()
	c.turn = turnFlags{}
	c.mu.Unlock()
}

func (c *acpClient) turnState() turnFlags {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turn
}

// RequestPermission answers from the profile: nobody sits at a terminal to
// approve tool calls of an unattended agent.
func (c *acpClient) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	want := map[acp.PermissionOptionKind]bool{
		acp.PermissionOptionKindAllowOnce:    c.permission == PermissionAllow,
		acp.PermissionOptionKindAllowAlways:  c.permission == PermissionAllow,
		acp.PermissionOptionKindRejectOnce:   c.permission == PermissionReject,
		acp.PermissionOptionKindRejectAlways: c.permission == PermissionReject,
	}
	title := ""
	if p.ToolCall.Title != nil {
		title = *p.ToolCall.Title
	}
	// The chat shows the request and its answer on the tool's card. The SDK
	// handles requests apart from notifications, so this may overtake the
	// tool_call that opened the card: it carries the title to open it itself.
	answered := Event{Kind: EventToolCallUpdate, ToolCallID: string(p.ToolCall.ToolCallId), Title: title, Permission: "cancelled"}
	for _, o := range p.Options {
		if want[o.Kind] {
			c.log.Info("permission answered", zap.String("tool", title),
				zap.String("option", string(o.OptionId)), zap.String("kind", string(o.Kind)))
			answered.Permission, answered.PermissionOption = "allowed", o.Name
			if c.permission == PermissionReject {
				answered.Permission = "rejected"
			}
			c.events.push(answered)
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	c.log.Info("permission cancelled: no matching option", zap.String("tool", title), zap.String("policy", c.permission))
	c.events.push(answered)
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
}

// The client advertises no fs or terminal capability; a conforming agent
// never calls these.

func (c *acpClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

func (c *acpClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

func (c *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (c *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (c *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (c *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (c *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}
