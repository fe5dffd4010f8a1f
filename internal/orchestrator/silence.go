package orchestrator

// Agents that retry in silence (issue 11): opencode and Qwen Code retry a
// failing provider by themselves for 60–100 s with nothing on the wire. A
// running turn with no update for the profile's silence_notice (45s) gets a
// calm status line, refreshed as the silence goes on and removed when output
// resumes or the turn ends; a turn still silent at silence_limit (5m) is
// cancelled as hung and classified as a lost connection, so it is retried
// like one. Timers run on the injected clock.

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// Silence defaults (Config.SilenceNotice, Config.SilenceLimit).
const (
	DefaultSilenceNotice = 45 * time.Second
	DefaultSilenceLimit  = 5 * time.Minute
)

// kindSilence marks the "no response from the agent" status line.
const kindSilence = "silence"

// silenceOf returns the notice and limit for the session's agent; 0 = off.
func (s *Service) silenceOf(agent string) (notice, limit time.Duration) {
	notice, limit = s.cfg.SilenceNotice, s.cfg.SilenceLimit
	if p, ok := s.cfg.Profiles[agent]; ok {
		if p.SilenceNotice != 0 {
			notice = time.Duration(p.SilenceNotice)
		}
		if p.SilenceLimit != 0 {
			limit = time.Duration(p.SilenceLimit)
		}
	}
	return max(notice, 0), max(limit, 0)
}

// armSilenceLocked starts watching a turn that has just been launched. rt.mu is held.
func (s *Service) armSilenceLocked(rt *sessionRT, t *turn) {
	notice, limit := s.silenceOf(rt.agent())
	if notice == 0 && limit == 0 {
		return
	}
	t.lastActivity = s.now()
	first := notice
	if first == 0 || limit != 0 && limit < first {
		first = limit
	}
	t.silence = s.cfg.Clock.AfterFunc(first, func() { s.onSilence(rt, t) }, "silence")
}

// activityLocked records an update of the running turn; a silence line
// goes away once the agent speaks again. rt.mu is held.
func (s *Service) activityLocked(rt *sessionRT, t *turn) {
	if t.silence == nil {
		return
	}
	t.lastActivity = s.now()
	if t.silentNote != "" {
		s.dropSilenceLocked(rt, t)
	}
}

// stopSilenceLocked ends the watch at the turn's end. rt.mu is held.
func (s *Service) stopSilenceLocked(rt *sessionRT, t *turn) {
	if t.silence != nil {
		t.silence.Stop()
		t.silence = nil
	}
	if t.silentNote != "" {
		s.dropSilenceLocked(rt, t)
	}
}

func (s *Service) dropSilenceLocked(rt *sessionRT, t *turn) {
	if s.deleteMessageLocked(rt, t.silentNote) == nil {
		t.silentNote = ""
	}
}

// onSilence is the timer callback: show or refresh the line, or cancel a
// hung turn, then re-arm for the next step.
func (s *Service) onSilence(rt *sessionRT, t *turn) {
	if !s.enter() {
		return
	}
	defer s.leave()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.turn != t || t.silence == nil || t.hung {
		return
	}
	notice, limit := s.silenceOf(rt.agent())
	now := s.now()
	silent := now.Sub(t.lastActivity)
	if limit > 0 && silent >= limit {
		t.hung = true
		t.silence = nil
		s.log.Warn("agent silent past the silence limit; cancelling the turn as hung")
		t.cancel()
		return
	}
	next := time.Duration(0)
	if notice > 0 {
		if silent >= notice {
			s.showSilenceLocked(rt, t, silent)
			next = notice - silent%notice // refresh at every further multiple of notice
		} else {
			next = notice - silent
		}
	}
	if limit > 0 && (next == 0 || limit-silent < next) {
		next = limit - silent
	}
	if next <= 0 {
		t.silence = nil
		return
	}
	t.silence = s.cfg.Clock.AfterFunc(next, func() { s.onSilence(rt, t) }, "silence")
}

func (s *Service) showSilenceLocked(rt *sessionRT, t *turn, silent time.Duration) {
	m := store.Message{ID: t.silentNote, TurnID: t.id, Role: "status", Variant: "info",
		Text:     fmt.Sprintf("No response from the agent for %s — it may be retrying on its own.", humanDelay(silent.Truncate(time.Second))),
		Metadata: map[string]any{"kind": kindSilence, "silent_seconds": int(silent.Seconds())}}
	if m.ID == "" {
		m.ID = uuid.NewString()
		if s.addMessageLocked(rt, m) == nil {
			t.silentNote = m.ID
		}
		return
	}
	_ = s.replaceMessageLocked(rt, m)
}

// hungFailure is the evidence of a turn cancelled for its silence: a lost
// connection to the agent, so the policy retries it like one.
func (s *Service) hungFailure(rt *sessionRT, t *turn, err error) error {
	_, limit := s.silenceOf(rt.agent())
	ev := routingerr.Evidence{Agent: rt.agent(), Phase: routingerr.PhasePromptSend}
	if fe, ok := lifecycle.AsFailure(err); ok {
		ev.Phase, ev.StderrTail, ev.ExitStatus = fe.Evidence.Phase, fe.Evidence.StderrTail, fe.Evidence.ExitStatus
		ev.HadOutput, ev.OutputText, ev.HadToolActivity = fe.Evidence.HadOutput, fe.Evidence.OutputText, fe.Evidence.HadToolActivity
	}
	if t.hadOutput || t.hadTool {
		ev.Phase = routingerr.PhaseStreaming
	}
	ev.Err = fmt.Sprintf("connection to agent closed: no update from the agent for %s, so orchestratord cancelled the turn as hung", limit)
	return &lifecycle.FailureError{Evidence: ev}
}
