package lifecycle

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
)

// eventQueue decouples the SDK's notification goroutine from OnEvent: push
// never blocks (the queue is unbounded), one drainer delivers in order.
// A slow OnEvent must never stall the JSON-RPC reader, or the agent's
// responses (and the process exit) would go unnoticed.
type eventQueue struct {
	wake chan struct{} // capacity 1: "there may be work"
	stop chan struct{} // closed by close()

	mu     sync.Mutex // guards items, closed
	items  []queued
	closed bool
}

// queued is an event, or a barrier that the drainer closes when it gets there.
type queued struct {
	ev      Event
	barrier chan struct{}
}

func newEventQueue() *eventQueue {
	return &eventQueue{wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

func (q *eventQueue) push(ev Event) {
	q.enqueue(queued{ev: ev})
}

// barrier returns a channel closed once every event pushed before it has
// been handed to OnEvent (or the queue was closed).
func (q *eventQueue) barrier() <-chan struct{} {
	ch := make(chan struct{})
	if !q.enqueue(queued{barrier: ch}) {
		close(ch)
	}
	return ch
}

func (q *eventQueue) enqueue(it queued) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// close stops the drainer; undelivered events are dropped, barriers released.
func (q *eventQueue) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	close(q.stop)
}

// run is the drainer loop; it returns after close.
func (q *eventQueue) run(onEvent func(Event)) {
	for {
		select {
		case <-q.wake:
		case <-q.stop:
			q.releaseBarriers()
			return
		}
		for {
			q.mu.Lock()
			batch := q.items
			q.items = nil
			closed := q.closed
			q.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, it := range batch {
				switch {
				case it.barrier != nil:
					close(it.barrier)
				case closed:
				case onEvent != nil:
					onEvent(it.ev)
				}
			}
		}
	}
}

func (q *eventQueue) releaseBarriers() {
	q.mu.Lock()
	batch := q.items
	q.items = nil
	q.mu.Unlock()
	for _, it := range batch {
		if it.barrier != nil {
			close(it.barrier)
		}
	}
}

// toEvent maps the live-turn updates the orchestrator shows; everything
// else (available commands, modes, usage) is dropped here.
func toEvent(u acp.SessionUpdate) (Event, bool) {
	switch {
	case u.AgentMessageChunk != nil:
		t := blockText(u.AgentMessageChunk.Content)
		return Event{Kind: EventAgentMessage, Text: t}, t != ""
	case u.AgentThoughtChunk != nil:
		t := blockText(u.AgentThoughtChunk.Content)
		return Event{Kind: EventAgentThought, Text: t}, t != ""
	case u.ToolCall != nil:
		tc := u.ToolCall
		return Event{
			Kind:       EventToolCall,
			ToolCallID: string(tc.ToolCallId),
			Title:      tc.Title,
			Status:     string(tc.Status),
			ToolKind:   string(tc.Kind),
			Input:      rawText(tc.RawInput),
			Output:     toolOutput(tc.RawOutput, tc.Content),
		}, true
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		ev := Event{Kind: EventToolCallUpdate, ToolCallID: string(tu.ToolCallId)}
		if tu.Title != nil {
			ev.Title = *tu.Title
		}
		if tu.Status != nil {
			ev.Status = string(*tu.Status)
		}
		if tu.Kind != nil {
			ev.ToolKind = string(*tu.Kind)
		}
		ev.Input = rawText(tu.RawInput)
		ev.Output = toolOutput(tu.RawOutput, tu.Content)
		return ev, true
	case u.Plan != nil:
		var b strings.Builder
		for _, e := range u.Plan.Entries {
			b.WriteString("- [" + string(e.Status) + "] " + e.Content + "\n")
		}
		return Event{Kind: EventPlan, Text: b.String()}, true
	case u.UsageUpdate != nil:
		uu := u.UsageUpdate
		us := &Usage{ContextUsed: uu.Used, ContextSize: uu.Size}
		if uu.Cost != nil {
			us.CostAmount, us.CostCurrency = uu.Cost.Amount, uu.Cost.Currency
		}
		return Event{Kind: EventUsage, Usage: us}, true
	}
	return Event{}, false
}

// maxToolText caps a tool call's input or output kept for the chat.
const maxToolText = 16 << 10

// rawText renders a tool's raw input or output as indented JSON text.
func rawText(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return capText(s)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return capText(string(b))
}

// toolOutput is the raw output, else the text of the content blocks.
func toolOutput(raw any, content []acp.ToolCallContent) string {
	if s := rawText(raw); s != "" {
		return s
	}
	var parts []string
	for _, c := range content {
		if c.Content != nil {
			if t := blockText(c.Content.Content); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return capText(strings.Join(parts, "\n"))
}

func capText(s string) string {
	if len(s) <= maxToolText {
		return s
	}
	cut := maxToolText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n…"
}

// turnUsage reads a prompt response's token usage; nil when absent.
func turnUsage(u *acp.Usage) *Usage {
	if u == nil {
		return nil
	}
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return &Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
		CachedReadTokens: deref(u.CachedReadTokens), ThoughtTokens: deref(u.ThoughtTokens)}
}

func blockText(c acp.ContentBlock) string {
	if c.Text != nil {
		return c.Text.Text
	}
	return ""
}
