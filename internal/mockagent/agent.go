package mockagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// Config of one mock agent process; zero values mean defaults.
type Config struct {
	StateDir      string // default os.TempDir()/orchestratord-mock
	NoLoadSession bool   // do not advertise or serve session/load
	// BrokenLoad advertises session/load but fails every one the way Gemini
	// CLI 0.61 does in a new process ("No previous sessions found for this project.").
	BrokenLoad bool
	// LateReplay answers session/load after the first replayed message and
	// sends the rest just after its answer, as Gemini CLI 0.61 does.
	LateReplay bool
	// Model is the model this agent stands for: a /wall whose Models are
	// set stands only for those models, so two profiles of the mock with
	// different models can stand for a primary and its fallback. "" is no
	// model in particular.
	Model string
	// Models is how the mock reports its sessions' model (models.go):
	// ModelsBoth (default), ModelsState, ModelsOptions or ModelsNone.
	Models string
	Logger *zap.Logger // default zap.NewNop(); never stdout, which is the protocol
}

// ErrCrash is returned by Run when a /crash scenario fires; the caller must
// exit the process with a non-zero status at once, as a crashing agent would.
var ErrCrash = errors.New("mockagent: crash scenario")

// DefaultStateDir is where the mock keeps state unless told otherwise.
func DefaultStateDir() string { return filepath.Join(os.TempDir(), "orchestratord-mock") }

// TaskIDEnv names the variable the orchestrator sets; failure counters are keyed by it.
const TaskIDEnv = "ORCHESTRATORD_TASK_ID"

// Run serves ACP on in/out until the peer disconnects or ctx ends (nil), or
// a crash scenario fires (ErrCrash).
func Run(ctx context.Context, in io.Reader, out io.Writer, cfg Config) error {
	if cfg.StateDir == "" {
		cfg.StateDir = DefaultStateDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	st, err := openStore(cfg.StateDir)
	if err != nil {
		return err
	}
	a := &agent{
		cfg:      cfg,
		log:      cfg.Logger,
		store:    st,
		taskID:   os.Getenv(TaskIDEnv),
		crash:    make(chan struct{}),
		ready:    make(chan struct{}),
		sessions: make(map[string]bool),
	}
	// The SDK reads its logger unsynchronised: let it read input only after SetLogger.
	gate := make(chan struct{})
	conn := acp.NewAgentSideConnection(a, out, gatedReader{r: in, open: gate})
	conn.SetLogger(slog.New(slog.DiscardHandler))
	a.conn = conn
	close(gate)
	close(a.ready)

	defer a.late.Wait()
	select {
	case <-conn.Done():
		return nil
	case <-ctx.Done():
		return nil
	case <-a.crash:
		return ErrCrash
	}
}

type gatedReader struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

type agent struct {
	cfg    Config
	log    *zap.Logger
	store  *store
	taskID string

	conn  *acp.AgentSideConnection // set once before ready is closed
	ready chan struct{}

	crash     chan struct{}
	crashOnce sync.Once

	mu       sync.Mutex        // guards sessions, spent
	sessions map[string]bool   // sessions created or loaded by this process
	spent    map[string][2]int // /tokens: per session, tokens and cost (millionths of a USD) so far

	late sync.WaitGroup // LateReplay senders; Run waits for them
}

var (
	_ acp.Agent       = (*agent)(nil)
	_ acp.AgentLoader = (*agent)(nil)
)

func (a *agent) peer() *acp.AgentSideConnection {
	<-a.ready
	return a.conn
}

func (a *agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: !a.cfg.NoLoadSession},
		AgentInfo:         &acp.Implementation{Name: "orchestratord-mock", Version: "1"},
		AuthMethods:       []acp.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	id := "mock-" + randomID(8)
	if err := a.store.createSession(sessionFile{ID: id, Cwd: p.Cwd, Messages: []message{}}); err != nil {
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	a.remember(id)
	a.log.Info("session created", zap.String("session", id))
	opts, models := a.modelReport(a.defaultModel())
	return acp.NewSessionResponse{SessionId: acp.SessionId(id), ConfigOptions: opts, Models: models}, nil
}

// LoadSession replays the stored history as session/update notifications
// before answering, as the ACP spec requires.
func (a *agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if a.cfg.NoLoadSession {
		return acp.LoadSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionLoad)
	}
	if a.cfg.BrokenLoad {
		return acp.LoadSessionResponse{}, acp.NewInternalError(map[string]any{"details": "No previous sessions found for this project."})
	}
	id := string(p.SessionId)
	f, err := a.store.loadSession(id)
	if err != nil {
		return acp.LoadSessionResponse{}, &acp.RequestError{Code: -32002, Message: "Resource not found: session " + id}
	}
	updates := make([]acp.SessionUpdate, 0, len(f.Messages))
	for _, m := range f.Messages {
		mid := m.ID
		u := acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock(m.Text), MessageId: &mid}}
		if m.Role == roleUser {
			u = acp.SessionUpdate{UserMessageChunk: &acp.SessionUpdateUserMessageChunk{Content: acp.TextBlock(m.Text), MessageId: &mid}}
		}
		updates = append(updates, u)
	}
	now := updates
	if a.cfg.LateReplay && len(updates) > 1 {
		now = updates[:1]
		rest := updates[1:]
		a.late.Go(func() {
			// After the answer has gone out; the peer's ctx, not this call's.
			time.Sleep(5 * time.Millisecond)
			for _, u := range rest {
				if a.send(context.Background(), id, u) != nil {
					return
				}
			}
		})
	}
	for _, u := range now {
		if err := a.send(ctx, id, u); err != nil {
			return acp.LoadSessionResponse{}, err
		}
	}
	a.remember(id)
	a.log.Info("session loaded", zap.String("session", id), zap.Int("messages", len(f.Messages)))
	opts, models := a.modelReport(a.modelOf(f))
	return acp.LoadSessionResponse{ConfigOptions: opts, Models: models}, nil
}

// Cancel needs no work: the SDK cancels the ctx of the session's prompt.
func (a *agent) Cancel(_ context.Context, p acp.CancelNotification) error {
	a.log.Info("cancel requested", zap.String("session", string(p.SessionId)))
	return nil
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sid := string(p.SessionId)
	if !a.known(sid) {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session " + sid})
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	prompt := text.String()

	// Record the prompt first, like real agents: a failed turn is in history.
	sc, isScenario := parseScenario(prompt)
	rec := Received{At: time.Now().UTC(), PID: os.Getpid(), Task: a.taskID, Session: sid, Text: prompt}
	err := a.store.recordPrompt(rec, func(f *sessionFile) {
		if !isScenario {
			sc, isScenario = inheritScenario(f.Messages)
		}
		m := message{ID: "msg-" + randomID(6), Role: roleUser, Text: prompt}
		if isScenario {
			m.Scenario = sc.token
		}
		f.Messages = append(f.Messages, m)
	})
	if err != nil {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}

	reply := "Echo: " + prompt
	if isScenario && sc.name == scWall {
		up, hang, failAfter, err := a.store.hitWall(a.taskID, sid, prompt, a.cfg.Model, time.Now())
		if err != nil {
			return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
		if hang {
			<-ctx.Done()
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		if up {
			a.log.Info("wall is up", zap.String("task", a.taskID))
			if failAfter > 0 {
				select {
				case <-time.After(failAfter):
				case <-ctx.Done():
					return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
				}
			}
			return a.fail(ctx, sid, sc, prompt)
		}
		return a.lingeringReply(ctx, sid, reply, time.Duration(sc.ms)*time.Millisecond)
	}
	if isScenario && sc.fails() {
		task := a.taskID
		if task == "" {
			task = sid
		}
		fail, count, err := a.store.countFailure(task+"|"+sc.name, sc.n)
		if err != nil {
			return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
		if fail {
			a.log.Info("scenario failing", zap.String("scenario", sc.token), zap.String("task", task), zap.Int("failure", count))
			return a.fail(ctx, sid, sc, prompt)
		}
		reply = fmt.Sprintf("Recovered after %d failures: %s", count, reply)
	}
	switch {
	case isScenario && sc.name == scSlow:
		return a.slow(ctx, sid, sc)
	case isScenario && sc.name == scTool:
		return a.tool(ctx, sid)
	case isScenario && sc.name == scSilent:
		return a.silent(ctx, sid, reply, time.Duration(sc.ms)*time.Millisecond)
	case isScenario && sc.name == scStream:
		return a.streamFast(ctx, sid, sc)
	case isScenario && sc.name == scTokens:
		return a.tokens(ctx, sid, reply, sc)
	case isScenario && sc.name == scModel:
		return a.switchModel(ctx, sid, sc.model, reply)
	}
	return a.reply(ctx, sid, reply)
}

// fail plays a failing scenario: some stream first, /crash kills the process.
func (a *agent) fail(ctx context.Context, sid string, sc scenario, prompt string) (acp.PromptResponse, error) {
	switch sc.name {
	case scHang:
		return hang(ctx)
	case scConnClosed:
		partial := chunks("Echo: "+prompt, 3)
		if len(partial) > 2 {
			partial = partial[:2]
		}
		if err := a.stream(ctx, sid, partial, 0); err != nil {
			return acp.PromptResponse{}, err
		}
	case scEchoOverloaded:
		if err := a.stream(ctx, sid, []string{echoedOverload}, 0); err != nil {
			return acp.PromptResponse{}, err
		}
	case scToolOverloaded:
		id := acp.ToolCallId("call-" + randomID(4))
		if err := a.send(ctx, sid, acp.StartToolCall(id, "Edit main.go", acp.WithStartKind(acp.ToolKindEdit),
			acp.WithStartStatus(acp.ToolCallStatusInProgress))); err != nil {
			return acp.PromptResponse{}, err
		}
		if err := a.send(ctx, sid, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted))); err != nil {
			return acp.PromptResponse{}, err
		}
	case scLeak:
		secrets := a.store.leakSecrets()
		line := leakLine(secrets)
		a.log.Error("provider request failed", zap.String("response", line))
		if err := a.stream(ctx, sid, []string{line}, 0); err != nil {
			return acp.PromptResponse{}, err
		}
		return acp.PromptResponse{}, leakError(line, secrets)
	case scCrash:
		_ = a.stream(ctx, sid, []string{"Starting work… "}, 0)
		// Let the client read the chunk before the pipe goes away.
		time.Sleep(20 * time.Millisecond)
		a.crashOnce.Do(func() { close(a.crash) })
		<-ctx.Done()
		return acp.PromptResponse{}, ctx.Err()
	}
	return acp.PromptResponse{}, scenarioError(sc, time.Now())
}

// hang sends nothing and answers only session/cancel, as an agent does
// while it retries its provider in silence.
func hang(ctx context.Context) (acp.PromptResponse, error) {
	<-ctx.Done()
	return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
}

// silent sends nothing for d, then replies.
func (a *agent) silent(ctx context.Context, sid, text string, d time.Duration) (acp.PromptResponse, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case <-t.C:
	}
	return a.reply(ctx, sid, text)
}

func (a *agent) reply(ctx context.Context, sid, text string) (acp.PromptResponse, error) {
	if err := a.stream(ctx, sid, chunks(text, 3), 0); err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// lingeringReply streams text at once, then takes d more to end the turn (a
// long turn whose first output is early).
func (a *agent) lingeringReply(ctx context.Context, sid, text string, d time.Duration) (acp.PromptResponse, error) {
	if err := a.stream(ctx, sid, chunks(text, 3), 0); err != nil {
		return acp.PromptResponse{}, err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case <-t.C:
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// slow streams ten chunks over sc.ms and stops promptly on session/cancel.
func (a *agent) slow(ctx context.Context, sid string, sc scenario) (acp.PromptResponse, error) {
	const steps = 10
	pieces := make([]string, steps)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("step %d/%d. ", i+1, steps)
	}
	if err := a.stream(ctx, sid, pieces, time.Duration(sc.ms)*time.Millisecond/steps); err != nil {
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// tool announces a tool call, asks permission, and reports the outcome.
func (a *agent) tool(ctx context.Context, sid string) (acp.PromptResponse, error) {
	id := acp.ToolCallId("call-" + randomID(4))
	title := "List files in the working directory"
	if err := a.send(ctx, sid, acp.StartToolCall(id, title,
		acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartRawInput(map[string]any{"path": ".", "recursive": false}))); err != nil {
		return acp.PromptResponse{}, err
	}
	resp, err := a.peer().RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: acp.SessionId(sid),
		ToolCall:  acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(title)},
		Options: []acp.PermissionOption{
			{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
			{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"},
		},
	})
	if err != nil {
		return acp.PromptResponse{}, err
	}
	allowed := resp.Outcome.Selected != nil && resp.Outcome.Selected.OptionId == "allow"
	status, text := acp.ToolCallStatusFailed, "Permission denied; the tool did not run."
	if allowed {
		status, text = acp.ToolCallStatusCompleted, "The tool ran: the working directory is listed."
	}
	opts := []acp.ToolCallUpdateOpt{acp.WithUpdateStatus(status)}
	if allowed {
		opts = append(opts, acp.WithUpdateRawOutput(map[string]any{"files": []string{"README.md", "main.go"}}))
	}
	if err := a.send(ctx, sid, acp.UpdateToolCall(id, opts...)); err != nil {
		return acp.PromptResponse{}, err
	}
	return a.reply(ctx, sid, text)
}

// stream sends the pieces as agent_message_chunks of one message, pausing
// between them, and appends what was sent to history (also when interrupted).
func (a *agent) stream(ctx context.Context, sid string, pieces []string, pause time.Duration) error {
	mid := "msg-" + randomID(6)
	var sent strings.Builder
	var err error
	t := time.NewTimer(0)
	defer t.Stop()
	for i, p := range pieces {
		if i > 0 && pause > 0 {
			t.Reset(pause)
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-t.C:
			}
			if err != nil {
				break
			}
		}
		u := acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock(p), MessageId: &mid}}
		if err = a.send(ctx, sid, u); err != nil {
			break
		}
		sent.WriteString(p)
	}
	if sent.Len() > 0 {
		if uerr := a.store.updateSession(sid, func(f *sessionFile) {
			f.Messages = append(f.Messages, message{ID: mid, Role: roleAgent, Text: sent.String()})
		}); uerr != nil {
			a.log.Warn("history not saved", zap.Error(uerr))
		}
	}
	return err
}

func (a *agent) send(ctx context.Context, sid string, u acp.SessionUpdate) error {
	return a.peer().SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(sid), Update: u})
}

func (a *agent) remember(id string) {
	a.mu.Lock()
	a.sessions[id] = true
	a.mu.Unlock()
}

func (a *agent) known(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// The methods below are optional ACP surface the mock does not offer.

func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}
