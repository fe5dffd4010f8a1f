package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// Execution is one agent process run: one process, one ACP connection, one
// agent session. A retry always ends it and starts a new one.
type Execution struct {
	m       *Manager
	log     *zap.Logger
	profile Profile
	grace   time.Duration

	proc       *process
	stderr     *tailBuffer
	stderrDone chan struct{} // closed when the stderr reader has stopped
	conn       *acp.ClientSideConnection
	client     *acpClient
	events     *eventQueue

	// lifetime ends in Close. procCtx also ends shortly after the agent
	// exits, so no SDK call waits on a dead agent whose stdout a grandchild
	// still holds open.
	lifetime    context.Context
	endLifetime context.CancelCauseFunc
	procCtx     context.Context
	endProc     context.CancelCauseFunc

	// Set by the handshake, read-only afterwards.
	sessionID string
	resumed   bool
	canLoad   bool // the agent advertises session/load
	replayed  []string
	// resumeFailure says why a requested session/load did not happen; "" when
	// none was requested or it worked.
	resumeFailure string

	mu      sync.Mutex // guards busy, closing, and wg.Go after Close started
	busy    bool       // a session/prompt is outstanding
	closing bool

	wg        sync.WaitGroup // every goroutine this execution starts
	closeOnce sync.Once
	closeErr  error
}

type promptOutcome struct {
	resp acp.PromptResponse
	err  error
}

// launch starts the process and the goroutines that serve it.
func (m *Manager) launch(req StartRequest, path string) (*Execution, error) {
	proc, err := startProcess(path, req.Profile.Args, processDir(req), processEnv(req))
	if err != nil {
		return nil, err
	}
	lifetime, endLifetime := context.WithCancelCause(m.ctx)
	procCtx, endProc := context.WithCancelCause(lifetime)
	log := m.log.With(zap.String("agent", req.Profile.Name), zap.Int("pid", proc.pid))
	events := newEventQueue()
	e := &Execution{
		m:           m,
		log:         log,
		profile:     req.Profile,
		grace:       m.cfg.KillGrace,
		proc:        proc,
		stderr:      newTailBuffer(m.cfg.StderrTailBytes),
		stderrDone:  make(chan struct{}),
		client:      &acpClient{log: log, events: events, permission: req.Profile.Permission},
		events:      events,
		lifetime:    lifetime,
		endLifetime: endLifetime,
		procCtx:     procCtx,
		endProc:     endProc,
	}
	paced := newPacedReader(proc.stdout, procCtx.Done())
	e.client.pace = paced
	stdout := &gatedReader{r: paced, open: make(chan struct{})}
	e.conn = acp.NewClientSideConnection(e.client, proc.stdin, stdout)
	e.conn.SetLogger(newSDKLogger(log))
	close(stdout.open)

	e.wg.Go(e.watchExit)
	e.wg.Go(e.readStderr)
	e.wg.Go(func() { e.events.run(req.OnEvent) })
	return e, nil
}

func (e *Execution) watchExit() {
	e.proc.wait()
	e.log.Debug("agent process exited", zap.String("status", e.proc.exitStatus()))
	t := time.NewTimer(exitSettle)
	defer t.Stop()
	select {
	case <-e.conn.Done():
	case <-t.C:
	case <-e.lifetime.Done():
	}
	e.endProc(errAgentExited)
}

func (e *Execution) readStderr() {
	defer close(e.stderrDone)
	buf := make([]byte, 4096)
	for {
		n, err := e.proc.stderr.Read(buf)
		if n > 0 {
			_, _ = e.stderr.Write(buf[:n])
			e.log.Debug("agent stderr", zap.ByteString("data", buf[:n]))
		}
		if err != nil {
			return
		}
	}
}

// callContext ends when parent ends or the agent is gone, whichever is first.
func (e *Execution) callContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(e.procCtx, func() { cancel(context.Cause(e.procCtx)) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// handshake: initialize, then session/load (if asked and supported) or session/new.
func (e *Execution) handshake(ctx context.Context, req StartRequest) error {
	hctx, done := e.callContext(ctx)
	defer done()
	fail := func(err error) error {
		// A deadline means the agent did not answer in time: that is evidence
		// about the agent, not a cancellation by the caller.
		cancelled := errors.Is(ctx.Err(), context.Canceled)
		return e.fail(failure{phase: routingerr.PhaseSessionInit, err: err, callCtx: hctx, cancelled: cancelled})
	}
	init, err := e.conn.Initialize(hctx, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientInfo:      &acp.Implementation{Name: "orchestratord", Version: "1"},
	})
	if err != nil {
		return fail(err)
	}
	e.canLoad = init.AgentCapabilities.LoadSession
	if req.ResumeSessionID != "" {
		if !init.AgentCapabilities.LoadSession {
			e.log.Warn("agent cannot load sessions; starting a new one")
			e.resumeFailure = "the agent cannot load sessions"
		} else {
			e.client.beginLoad()
			loaded, err := e.conn.LoadSession(hctx, acp.LoadSessionRequest{
				SessionId: acp.SessionId(req.ResumeSessionID), Cwd: req.Workdir, McpServers: []acp.McpServer{},
			})
			// The SDK's barrier has run every update sent before the answer
			// through SessionUpdate by now; some agents go on replaying after it.
			if err == nil {
				e.client.settleReplay(replayQuiet, replaySettleMax)
			}
			prompts := e.client.endLoad()
			if err == nil {
				e.sessionID, e.resumed, e.replayed = req.ResumeSessionID, true, prompts
				e.client.setModel(e.chooseModel(hctx, req.Profile.Model, loaded.ConfigOptions, loaded.Models))
				return nil
			}
			var re *acp.RequestError
			if !errors.As(err, &re) || e.isLocal(re, hctx) {
				return fail(err) // the agent or our ctx is gone: session/new cannot help
			}
			e.resumeFailure = loadFailureText(re)
			if re.Code != resourceNotFound {
				// Not "this session is gone" but "this agent cannot load":
				// its next processes would forget too.
				e.m.noteLoadBroken(e.profile.Name)
			}
			e.log.Warn("session/load failed; starting a new session (this profile's sessions are not loaded again)",
				zap.Int("rpc_code", re.Code), zap.String("rpc_message", re.Message), zap.String("reason", e.resumeFailure))
		}
	}
	resp, err := e.conn.NewSession(hctx, acp.NewSessionRequest{Cwd: req.Workdir, McpServers: []acp.McpServer{}})
	if err != nil {
		return fail(err)
	}
	e.sessionID = string(resp.SessionId)
	e.client.setModel(e.chooseModel(hctx, req.Profile.Model, resp.ConfigOptions, resp.Models))
	return nil
}

// After a successful session/load, replay counts as over once no update has
// come for replayQuiet, at most replaySettleMax after the answer. Gemini CLI
// sends its late replay at once after the answer; an agent that replays
// nothing late costs one replayQuiet per resume.
const (
	replayQuiet     = 30 * time.Millisecond
	replaySettleMax = 500 * time.Millisecond
)

// resourceNotFound is ACP's JSON-RPC code for an unknown session.
const resourceNotFound = -32002

// AgentSessionID is the ACP session id (new or loaded).
func (e *Execution) AgentSessionID() string { return e.sessionID }

// Resumed reports whether session/load was used.
func (e *Execution) Resumed() bool { return e.resumed }

// ReplayedUserPrompts are the user prompts the agent replayed during session/load, oldest first.
func (e *Execution) ReplayedUserPrompts() []string {
	return append([]string(nil), e.replayed...)
}

// CanResume reports whether the agent can load this session again in a
// new process: it advertises session/load, and no session/load of its
// profile has failed in this manager (Gemini CLI 0.61 advertises it, and a
// new process answers "No previous sessions found for this project.").
func (e *Execution) CanResume() bool { return e.canLoad && !e.m.loadBroken(e.profile.Name) }

// ResumeFailure says why the session asked for in StartRequest.ResumeSessionID
// was not resumed (the agent cannot load sessions, or its session/load
// failed): the new session does not know the conversation. "" when resumed
// or when no resume was asked.
func (e *Execution) ResumeFailure() string { return e.resumeFailure }

// PID is the agent's process id, which is also its process group id.
func (e *Execution) PID() int { return e.proc.pid }

// Prompt sends one turn and blocks until it ends; every update of the turn
// has been passed to OnEvent before it returns.
//
// Cancelling ctx sends session/cancel and waits up to KillGrace for the
// agent's answer. An agent that answers normally yields a PromptResult
// (StopReason "cancelled" from a conforming agent) and a nil error; an
// agent that answers with an error, or not in time, yields a *FailureError
// with Cancelled set. After a timeout the turn stays outstanding (further
// Prompts get ErrTurnInProgress): Close the execution.
//
// Failures are *FailureError with Phase prompt_send (nothing streamed yet)
// or streaming. If the agent dies mid-turn Prompt returns promptly with its
// exit status, even when a grandchild keeps the pipes open.
func (e *Execution) Prompt(ctx context.Context, text string) (PromptResult, error) {
	if ctx.Err() != nil {
		return PromptResult{}, e.fail(failure{phase: routingerr.PhasePromptSend, err: context.Cause(ctx), cancelled: true})
	}
	done, err := e.startTurn(text)
	if err != nil {
		return PromptResult{}, err
	}
	select {
	case out := <-done:
		return e.finishTurn(out, false)
	case <-ctx.Done():
	}
	select { // the turn may have ended just as ctx did: report what happened
	case out := <-done:
		return e.finishTurn(out, false)
	default:
	}
	e.log.Info("turn cancelled by caller; sending session/cancel")
	e.sendCancel()
	t := time.NewTimer(e.grace)
	defer t.Stop()
	select {
	case out := <-done:
		return e.finishTurn(out, true)
	case <-t.C:
		<-e.events.barrier()
		return PromptResult{}, e.fail(failure{
			phase:     e.turnPhase(e.client.turnState()),
			err:       fmt.Errorf("agent did not answer session/cancel within %s", e.grace),
			turn:      e.client.turnState(),
			cancelled: true,
		})
	}
}

// startTurn claims the turn and sends session/prompt from an owned goroutine
// that runs until the agent answers or the connection ends, independent of
// the caller's ctx: cancellation is session/cancel, not abandoning the call.
func (e *Execution) startTurn(text string) (<-chan promptOutcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closing:
		return nil, ErrClosed
	case e.busy:
		return nil, ErrTurnInProgress
	}
	e.busy = true
	e.client.resetTurn()
	done := make(chan promptOutcome, 1)
	e.wg.Go(func() {
		resp, err := e.conn.Prompt(e.procCtx, acp.PromptRequest{
			SessionId: acp.SessionId(e.sessionID),
			Prompt:    []acp.ContentBlock{acp.TextBlock(text)},
		})
		e.mu.Lock()
		e.busy = false
		e.mu.Unlock()
		done <- promptOutcome{resp: resp, err: err}
	})
	return done, nil
}

func (e *Execution) finishTurn(out promptOutcome, cancelled bool) (PromptResult, error) {
	// The SDK ran every update before the response through SessionUpdate;
	// the barrier makes sure OnEvent has seen them too.
	<-e.events.barrier()
	turn := e.client.turnState()
	e.mu.Lock()
	cancelled = cancelled || e.closing // the daemon ended the turn, not the provider
	e.mu.Unlock()
	if out.err != nil {
		return PromptResult{}, e.fail(failure{
			phase: e.turnPhase(turn), err: out.err, callCtx: e.procCtx, turn: turn, cancelled: cancelled,
		})
	}
	return PromptResult{
		StopReason:      string(out.resp.StopReason),
		HadOutput:       turn.output,
		HadToolActivity: turn.tool,
		Usage:           turnUsage(out.resp.Usage),
	}, nil
}

func (e *Execution) turnPhase(t turnFlags) routingerr.Phase {
	if t.streamed {
		return routingerr.PhaseStreaming
	}
	return routingerr.PhasePromptSend
}

// sendCancel sends session/cancel without risking a block on a full pipe.
func (e *Execution) sendCancel() {
	_ = e.proc.stdin.SetWriteDeadline(time.Now().Add(time.Second))
	defer func() { _ = e.proc.stdin.SetWriteDeadline(time.Time{}) }()
	if err := e.conn.Cancel(e.lifetime, acp.CancelNotification{SessionId: acp.SessionId(e.sessionID)}); err != nil {
		e.log.Debug("session/cancel not sent", zap.Error(err))
	}
}

// Close: session/cancel if a turn is live, close stdin, SIGTERM to the
// process group, SIGKILL after KillGrace; reaps the agent and waits for every
// goroutine. Idempotent and safe to call concurrently with Prompt, which
// then returns promptly with a FailureError.
func (e *Execution) Close() error {
	e.closeOnce.Do(func() { e.closeErr = e.shutdown() })
	return e.closeErr
}

func (e *Execution) shutdown() error {
	e.mu.Lock()
	e.closing = true
	busy := e.busy
	e.mu.Unlock()

	if busy && e.sessionID != "" && !e.proc.hasExited() {
		e.sendCancel()
	}
	_ = e.proc.stdin.Close() // a well-behaved agent exits on EOF
	err := e.terminate()
	// The agent has exited: let the reader drain what it wrote on its way
	// out (its last stderr words) before our end of the pipe is closed.
	// Only a grandchild holding stderr open makes this wait the full bound.
	t := time.NewTimer(stderrWait)
	select {
	case <-e.stderrDone:
	case <-t.C:
	}
	t.Stop()

	e.endLifetime(ErrClosed)
	// Closing our ends ends the SDK's reader and our stderr reader even if
	// some escaped process still holds the other ends.
	_ = e.proc.stdout.Close()
	_ = e.proc.stderr.Close()
	e.events.close()
	e.wg.Wait()
	e.m.forget(e)
	e.log.Debug("agent closed", zap.String("status", e.proc.exitStatus()))
	return err
}

// terminate: SIGTERM to the group, SIGKILL after the grace period. Once the
// leader is gone anything left in its group is an orphan-to-be, so the group
// gets SIGKILL then as well.
func (e *Execution) terminate() error {
	if err := e.proc.signalGroup(syscall.SIGTERM); err != nil {
		e.log.Warn("SIGTERM to agent process group failed", zap.Error(err))
	}
	t := time.NewTimer(e.grace)
	defer t.Stop()
	select {
	case <-e.proc.exited:
	case <-t.C:
		e.log.Warn("agent ignored SIGTERM; sending SIGKILL", zap.Duration("grace", e.grace))
	}
	if err := e.proc.signalGroup(syscall.SIGKILL); err != nil {
		return fmt.Errorf("lifecycle: kill agent process group %d: %w", e.proc.pid, err)
	}
	<-e.proc.exited
	return nil
}
