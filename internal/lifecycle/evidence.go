package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

var (
	// errAgentExited is the cancel cause of calls still waiting when the agent died.
	errAgentExited = errors.New("agent process exited")
)

const (
	// exitSettle: after the leader exits, how long the SDK may still read what
	// the agent wrote before pending calls are failed. It only matters when a
	// grandchild keeps stdout open; otherwise EOF arrives at once.
	exitSettle = 300 * time.Millisecond
	// exitWait bounds how long a transport failure waits for the exit status.
	exitWait = time.Second
	// stderrWait bounds how long we wait for the last stderr bytes after exit.
	stderrWait = 200 * time.Millisecond
	// Agents tend to log an error to stderr as they answer with it (codex-acp
	// 1.6 ms after its error, measured); a live agent's stderr counts as
	// settled after stderrQuiet without new bytes.
	stderrQuiet = 20 * time.Millisecond
)

// failure describes a failed call for evidence building.
type failure struct {
	phase     routingerr.Phase
	err       error
	callCtx   context.Context // the ctx the SDK call ran with; nil if none
	turn      turnFlags
	cancelled bool
}

// fail turns an error into *FailureError. An error the SDK made up locally
// (peer gone, our ctx ended) is transport evidence (Err); anything else is
// the agent's own JSON-RPC error.
func (e *Execution) fail(f failure) *FailureError {
	ev := routingerr.Evidence{
		Agent:           e.profile.Name,
		Phase:           f.phase,
		HadOutput:       f.turn.output,
		OutputText:      f.turn.text,
		HadToolActivity: f.turn.tool,
		Cancelled:       f.cancelled,
	}
	var re *acp.RequestError
	if errors.As(f.err, &re) && !e.isLocal(re, f.callCtx) {
		ev.HasRPCError = true
		ev.RPCCode = re.Code
		ev.RPCMessage = re.Message
		if re.Data != nil {
			if b, err := json.Marshal(re.Data); err == nil {
				ev.RPCData = string(b)
			}
		}
	} else {
		ev.Err = transportText(f.err)
		if e.agentGone() {
			// Wait a little for the exit status and the last stderr lines.
			e.awaitExit(exitWait)
		}
	}
	ev.ExitStatus = e.proc.exitStatus()
	ev.StderrTail = e.stderr.String()
	return &FailureError{Evidence: ev, ex: e}
}

// isLocal reports whether the SDK synthesised re instead of receiving it.
// The SDK reports a lost peer and an ended ctx as RequestErrors of the
// same shape an agent could send ({"error": text} data), so the shape is
// only trusted while the connection or our ctx is actually gone.
func (e *Execution) isLocal(re *acp.RequestError, callCtx context.Context) bool {
	data, ok := re.Data.(map[string]any)
	if !ok || len(data) != 1 {
		return false
	}
	if _, ok := data["error"].(string); !ok {
		return false
	}
	if re.Message != "Internal error" && re.Message != "Request cancelled" {
		return false
	}
	select {
	case <-e.conn.Done():
		return true
	case <-e.proc.exited:
		return true
	default:
	}
	return callCtx != nil && callCtx.Err() != nil
}

// agentGone reports whether the connection or the process has ended.
func (e *Execution) agentGone() bool {
	select {
	case <-e.conn.Done():
		return true
	case <-e.proc.exited:
		return true
	case <-e.procCtx.Done():
		return true
	default:
		return false
	}
}

// loadFailureText is the agent's reason for a failed session/load: its
// message, with the detail agents put in data (details, message).
func loadFailureText(re *acp.RequestError) string {
	text := re.Message
	if data, ok := re.Data.(map[string]any); ok {
		for _, k := range []string{"details", "message"} {
			if d, ok := data[k].(string); ok && d != "" && d != text {
				text += ": " + d
				break
			}
		}
	}
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return text
}

func transportText(err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) {
		if data, ok := re.Data.(map[string]any); ok {
			if s, ok := data["error"].(string); ok && s != "" {
				return s
			}
		}
		return re.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// awaitExit waits up to d for the leader to exit, then briefly for the
// stderr reader to drain, so the evidence has the exit status and last words.
func (e *Execution) awaitExit(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.proc.exited:
	case <-t.C:
		return
	}
	t.Reset(stderrWait)
	select {
	case <-e.stderrDone:
	case <-t.C:
	}
}

// Settle waits at most d for the agent's last words on stderr, then returns
// the evidence with the stderr tail and exit status as they are. It returns
// as soon as stderr ends (the agent exited, or Close ended it). While the
// agent lives on it returns after stderrQuiet without new bytes, unless
// untilExit: a caller that is ending the agent (Close) waits for what it
// writes as it exits — Gemini CLI writes its stderr only then, 5–50 ms after
// SIGTERM (measured). The evidence returned by Prompt is taken at once,
// without any wait; Settle is for a verdict the stderr could still change.
func (f *FailureError) Settle(d time.Duration, untilExit bool) routingerr.Evidence {
	ev := f.Evidence
	e := f.ex
	if e == nil || d <= 0 {
		return ev
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	quiet := time.NewTicker(stderrQuiet)
	defer quiet.Stop()
	last := e.stderr.written()
wait:
	for {
		select {
		case <-e.stderrDone:
			break wait
		case <-deadline.C:
			break wait
		case <-quiet.C:
			n := e.stderr.written()
			if n == last && !untilExit && !e.proc.hasExited() {
				break wait
			}
			last = n
		}
	}
	ev.ExitStatus = e.proc.exitStatus()
	ev.StderrTail = e.stderr.String()
	return ev
}
