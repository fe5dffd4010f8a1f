package orchestrator

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// attentionLog is an AttentionSink that keeps what it heard.
type attentionLog struct {
	mu  sync.Mutex // guards got
	got []Attention
}

func (l *attentionLog) Attention(a Attention) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, a)
}

func (l *attentionLog) of(sessionID string) []Attention {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Attention
	for _, a := range l.got {
		if a.SessionID == sessionID {
			out = append(out, a)
		}
	}
	return out
}

func TestAttentionTellsBannersFinishedTurnsAndParkedRetries(t *testing.T) {
	log := &attentionLog{}
	h := newHarness(t, func(c *Config) { c.Attention = log })
	trap := h.trapAfterFunc("retry")
	defer trap.Close()

	// A banner: a person must act; the failed turn is not "finished".
	auth, f := h.create("/auth hello", nil)
	banner := f.until(isBanner).Message
	f.until(isState(store.SessionFailed))
	got := log.of(auth.Sessions[0].ID)
	require.Len(t, got, 1, "%+v", got)
	require.Equal(t, AttentionNeedsYou, got[0].Kind)
	require.Equal(t, "banner:"+banner.ID, got[0].Key)
	require.Equal(t, banner.Text, got[0].Text)
	require.Equal(t, auth.ID, got[0].TaskID)
	require.Equal(t, auth.Title, got[0].Title)
	require.Equal(t, "mock", got[0].Agent)

	// A parked retry, then the recovered turn's end.
	v, f := h.create("/overloaded:1 fix it", nil)
	sid := v.Sessions[0].ID
	expectRetry(t, h, trap, f, 5*time.Second, "Provider overloaded — retrying in 5s (attempt 1/3)")
	got = log.of(sid)
	require.Len(t, got, 1, "%+v", got)
	require.Equal(t, AttentionWaiting, got[0].Kind)
	require.Equal(t, "overloaded", got[0].Reason)
	require.False(t, got[0].UsageWindow)
	require.Equal(t, got[0].At.Add(5*time.Second), got[0].RetryAt)
	h.clock.Advance(5 * time.Second).MustWait(h.ctx)
	done := f.until(func(n note) bool { return isTurnDone(n) && n.StopReason == "end_turn" })
	f.until(isState(store.SessionWaitingForInput))
	got = log.of(sid)
	require.Len(t, got, 2, "%+v", got)
	require.Equal(t, AttentionFinished, got[1].Kind)
	require.Equal(t, "end_turn", got[1].Reason)
	require.Equal(t, "The agent finished its turn.", got[1].Text)
	var ids struct {
		TurnID string `json:"turn_id"`
	}
	require.NoError(t, json.Unmarshal(done.raw, &ids))
	require.Equal(t, "turn:"+ids.TurnID, got[1].Key)

	// Stop is the user's own doing: nothing to tell.
	s, f := h.create("/slow:60000 long", nil)
	f.until(isState(store.SessionRunning))
	require.NoError(t, h.svc.StopTurn(h.ctx, StopRequest{SessionID: s.Sessions[0].ID}))
	f.until(isTurnDone)
	f.until(isState(store.SessionWaitingForInput))
	require.Empty(t, log.of(s.Sessions[0].ID))
}

func TestAttentionClassifiesNotices(t *testing.T) {
	log := &attentionLog{}
	now := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	s := &Service{cfg: Config{Attention: log, Clock: quartzAt(t, now)}}
	rt := &sessionRT{task: store.Task{ID: "t", Title: "title", Agent: "mock"}, sess: store.Session{ID: "s"}}
	retryAt := now.Add(time.Hour).Format(time.RFC3339Nano)
	notice := func(extra map[string]any) map[string]any {
		meta := map[string]any{"kind": kindRetryNotice, "retrying": true, "retry_at": retryAt, "failure_code": "rate_limited"}
		for k, v := range extra {
			meta[k] = v
		}
		return map[string]any{"message": store.Message{ID: "n", Text: "waiting", Metadata: meta}}
	}
	for _, tc := range []struct {
		name   string
		action string
		body   map[string]any
		want   string // kind told, "" for none
		usage  bool
	}{
		{"a retry notice", "session.message.added", notice(nil), AttentionWaiting, false},
		{"updated in place", "session.message.updated", notice(nil), AttentionWaiting, false},
		{"a usage window", "session.message.added", notice(map[string]any{"usage": map[string]any{"hint": false}}), AttentionWaiting, true},
		{"a long hint", "session.message.added", notice(map[string]any{"usage": map[string]any{"hint": true}}), AttentionWaiting, false},
		{"a quota code", "session.message.added", notice(map[string]any{"failure_code": "quota"}), AttentionWaiting, true},
		{"an overload gate's wait", "session.message.added", notice(map[string]any{"gate": map[string]any{"key": "mock"}}), "", false},
		{"no retry_at", "session.message.added", notice(map[string]any{"retry_at": nil}), "", false},
		{"an agent reply", "session.message.added", map[string]any{"message": store.Message{ID: "a", Role: "agent", Text: "hi"}}, "", false},
		{"a deleted message", "session.message.deleted", map[string]any{"message_id": "n"}, "", false},
		{"a banner", "session.message.added", map[string]any{"message": store.Message{ID: "b", Text: "Bad key",
			Metadata: map[string]any{"kind": kindRecovery, "reason": "user_action"}}}, AttentionNeedsYou, false},
		{"a finished turn", "session.turn.completed", map[string]any{"turn_id": "x", "stop_reason": "max_tokens"}, AttentionFinished, false},
		{"a failed turn", "session.turn.completed", map[string]any{"turn_id": "x", "stop_reason": "failed"}, "", false},
		{"a parked turn", "session.turn.completed", map[string]any{"turn_id": "x", "stop_reason": "retry_scheduled"}, "", false},
		{"a stopped turn", "session.turn.completed", map[string]any{"turn_id": "x", "stop_reason": "cancelled"}, "", false},
	} {
		log.got = nil
		s.attentionLocked(rt, tc.action, tc.body)
		if tc.want == "" {
			require.Empty(t, log.got, tc.name)
			continue
		}
		require.Len(t, log.got, 1, tc.name)
		a := log.got[0]
		require.Equal(t, tc.want, a.Kind, tc.name)
		require.Equal(t, tc.usage, a.UsageWindow, tc.name)
		require.Equal(t, now, a.At, tc.name)
		if a.Kind == AttentionWaiting {
			require.Equal(t, now.Add(time.Hour), a.RetryAt, tc.name)
			require.Equal(t, "wait:n", a.Key, tc.name)
		}
	}
}

func quartzAt(t *testing.T, at time.Time) *quartz.Mock {
	c := quartz.NewMock(t)
	c.Set(at).MustWait(context.Background())
	return c
}
