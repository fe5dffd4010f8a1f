package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// request is one prompt that reached the provider.
type request struct {
	at      time.Time
	session string // orchestrator session id
	failed  bool
}

// provider is shared by every in-process agent: 529 during [start, end).
// Prompts that arrive before the wall wait at the barrier, so the wall hits
// N sessions that are all running, not N sessions still being created.
type provider struct {
	barrier    chan struct{} // closed when the wall starts; start and end are set before
	start, end time.Time
	latency    time.Duration // time to answer a prompt (scaled)

	mu   sync.Mutex // guards reqs
	reqs []request
}

func (p *provider) call(session string, now time.Time) (failed bool) {
	failed = !now.Before(p.start) && now.Before(p.end)
	p.mu.Lock()
	p.reqs = append(p.reqs, request{at: now, session: session, failed: failed})
	p.mu.Unlock()
	return failed
}

func (p *provider) requests() []request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]request(nil), p.reqs...)
}

// simAgents implements orchestrator.Agents in process: every execution is
// an agent session with a history that survives executions (as a real
// agent's session/load would replay it), talking to the shared provider.
type simAgents struct {
	prov *provider

	mu      sync.Mutex          // guards history and next
	history map[string][]string // agent session id → user prompts, oldest first
	next    int
}

func newSimAgents(p *provider) *simAgents {
	return &simAgents{prov: p, history: make(map[string][]string)}
}

func (a *simAgents) Start(_ context.Context, req lifecycle.StartRequest) (orchestrator.Execution, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, resumed := req.ResumeSessionID, true
	if _, ok := a.history[id]; !ok || id == "" {
		a.next++
		id, resumed = fmt.Sprintf("sim-%d", a.next), false
		a.history[id] = nil
	}
	return &simExec{a: a, id: id, resumed: resumed, session: req.Env["ORCHESTRATORD_SESSION_ID"],
		agent: req.Profile.Name, onEvent: req.OnEvent}, nil
}

// userPrompts returns the prompts an agent session holds.
func (a *simAgents) userPrompts(id string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.history[id]...)
}

type simExec struct {
	a       *simAgents
	id      string
	resumed bool
	session string
	agent   string
	onEvent func(lifecycle.Event)
}

func (e *simExec) AgentSessionID() string { return e.id }
func (e *simExec) Resumed() bool          { return e.resumed }
func (e *simExec) Close() error           { return nil }

func (e *simExec) ReplayedUserPrompts() []string {
	if !e.resumed {
		return nil
	}
	return e.a.userPrompts(e.id)
}

// overloaded529 is the JSON-RPC error Claude Code's ACP adapter answers
// with when the API says 529.
const overloaded529 = `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSIM"}`

func (e *simExec) Prompt(ctx context.Context, text string) (lifecycle.PromptResult, error) {
	// Like real agents, the prompt is in the session's history before the
	// provider answers, failed or not.
	e.a.mu.Lock()
	e.a.history[e.id] = append(e.a.history[e.id], text)
	e.a.mu.Unlock()
	select {
	case <-ctx.Done():
		return lifecycle.PromptResult{StopReason: "cancelled"}, nil
	case <-e.a.prov.barrier:
	}
	t := time.NewTimer(e.a.prov.latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return lifecycle.PromptResult{StopReason: "cancelled"}, nil
	case <-t.C:
	}
	if e.a.prov.call(e.session, time.Now()) {
		return lifecycle.PromptResult{}, &lifecycle.FailureError{Evidence: routingerr.Evidence{
			Agent: e.agent, Phase: routingerr.PhasePromptSend, HasRPCError: true, RPCCode: -32603,
			RPCMessage: "Internal error: " + overloaded529, RPCData: fmt.Sprintf("{%q:%q}", "details", overloaded529),
		}}
	}
	if e.onEvent != nil {
		e.onEvent(lifecycle.Event{Kind: lifecycle.EventAgentMessage, Text: "Echo: " + text})
	}
	return lifecycle.PromptResult{StopReason: "end_turn", HadOutput: true}, nil
}
