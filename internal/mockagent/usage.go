package mockagent

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// The /tokens scenario reports usage as agents that know it do: a
// usage_update session update (context window, cumulative cost) and the
// turn's token counts in the prompt response.

const (
	defaultTokensIn     = 1200
	defaultTokensOut    = 340
	defaultTokensMicros = 12500 // $0.0125 a turn
	tokensWindow        = 200000
)

func (a *agent) tokens(ctx context.Context, sid, reply string, sc scenario) (acp.PromptResponse, error) {
	if err := a.stream(ctx, sid, chunks(reply, 3), 0); err != nil {
		return acp.PromptResponse{}, err
	}
	a.mu.Lock()
	if a.spent == nil {
		a.spent = map[string][2]int{}
	}
	was := a.spent[sid]
	now := [2]int{was[0] + sc.in + sc.out, was[1] + sc.micros}
	a.spent[sid] = now
	a.mu.Unlock()
	if err := a.send(ctx, sid, acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{
		SessionUpdate: "usage_update", Used: min(now[0], tokensWindow), Size: tokensWindow,
		Cost: &acp.Cost{Amount: float64(now[1]) / 1e6, Currency: "USD"},
	}}); err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn,
		Usage: &acp.Usage{InputTokens: sc.in, OutputTokens: sc.out, TotalTokens: sc.in + sc.out}}, nil
}
