package orchestrator

import (
	"fmt"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Usage: where an agent reports tokens (the prompt response's usage) or
// its context window and cost (ACP usage_update), the turn ends with one
// quiet status message, metadata kind "usage", that the page shows small
// under the reply and sums per task. Nothing is written when the agent
// reports nothing.

const kindUsage = "usage"

// mergeUsage folds a later report into what the turn has: non-zero fields
// of next win.
func mergeUsage(have, next *lifecycle.Usage) *lifecycle.Usage {
	if next == nil {
		return have
	}
	if have == nil {
		c := *next
		return &c
	}
	out := *have
	for _, f := range []struct{ dst, src *int }{
		{&out.InputTokens, &next.InputTokens}, {&out.OutputTokens, &next.OutputTokens},
		{&out.TotalTokens, &next.TotalTokens}, {&out.CachedReadTokens, &next.CachedReadTokens},
		{&out.ThoughtTokens, &next.ThoughtTokens}, {&out.ContextUsed, &next.ContextUsed},
		{&out.ContextSize, &next.ContextSize},
	} {
		if *f.src != 0 {
			*f.dst = *f.src
		}
	}
	if next.CostAmount != 0 || next.CostCurrency != "" {
		out.CostAmount, out.CostCurrency = next.CostAmount, next.CostCurrency
	}
	return &out
}

// usageMetadata is the usage message's metadata: only reported fields.
func usageMetadata(u lifecycle.Usage) map[string]any {
	md := map[string]any{"kind": kindUsage}
	for k, v := range map[string]int{
		"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "total_tokens": u.TotalTokens,
		"cached_read_tokens": u.CachedReadTokens, "thought_tokens": u.ThoughtTokens,
		"context_used": u.ContextUsed, "context_size": u.ContextSize,
	} {
		if v > 0 {
			md[k] = v
		}
	}
	if u.TotalTokens == 0 && u.InputTokens+u.OutputTokens > 0 {
		md["total_tokens"] = u.InputTokens + u.OutputTokens
	}
	if u.CostAmount > 0 {
		md["cost_amount"] = u.CostAmount
		md["cost_currency"] = u.CostCurrency
	}
	return md
}

// usageText is the message's plain text (the page draws its own from the
// metadata; this is for other clients and the log).
func usageText(u lifecycle.Usage) string {
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	text := ""
	if total > 0 {
		text = fmt.Sprintf("%d tokens (%d in, %d out)", total, u.InputTokens, u.OutputTokens)
	}
	if u.CostAmount > 0 {
		if text != "" {
			text += " · "
		}
		text += fmt.Sprintf("%.4f %s so far", u.CostAmount, u.CostCurrency)
	}
	if text == "" && u.ContextSize > 0 {
		text = fmt.Sprintf("context %d of %d tokens", u.ContextUsed, u.ContextSize)
	}
	return text
}

// turnUsageLocked writes the turn's usage message, if the agent reported
// anything: the response's token counts over the turn's usage_update.
func (s *Service) turnUsageLocked(rt *sessionRT, t *turn, resp *lifecycle.Usage) {
	u := mergeUsage(t.usage, resp)
	if u == nil {
		return
	}
	text := usageText(*u)
	if text == "" {
		return
	}
	m := store.Message{ID: uuid.NewString(), TurnID: t.id, Role: "status", Text: text, Metadata: usageMetadata(*u)}
	if err := s.addMessageLocked(rt, m); err != nil {
		s.log.Warn("the turn's usage could not be saved", zap.String("session_id", rt.sess.ID), zap.Error(err))
	}
}
