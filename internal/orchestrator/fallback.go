package orchestrator

// Fallback profiles on a long overload (issue 14, item 6). A profile may
// name fallbacks (`fallback: [profile…]`, typically the same agent with
// another model). When an overload gate has held a session past its task's
// gate deadline — the point where it would otherwise show the "stayed
// overloaded" banner — the session continues on the first fallback whose
// gates are not open: its agent process is replaced by the fallback's, the
// parked prompt is re-driven there, resuming the agent session with ACP
// session/load where the fallback can load it and re-sending the
// transcript where it cannot (transcript.go), and a chat line says so. On
// the fallback the session has the fallback's own gate key (gateKey uses
// rt.agent), so a fallback that is overloaded too waits on its own gate,
// and past the deadline again moves on to the next fallback, or shows the
// banner when none is left.
//
// The session moves back to its task's profile at a turn boundary, never
// in the middle of a turn: at the start of a turn, once that profile has
// answered a turn (any session's) since the switch and none of its gates
// is open. An open gate closing is such an answer (its probe succeeded); a
// gate that closed because nobody waited on it any more is not. The chat
// line of every switch is the durable record: a restart reads the last one
// back (fallbackOf).

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// kindFallback marks the chat line of a switch to a fallback profile or
// back; its metadata "profile" is the profile the session runs on after it.
const kindFallback = "fallback"

// stopFallback ends the turn whose failure sent the session to a fallback.
const stopFallback = "fallback"

// fallbackState is a session continuing on a fallback profile.
type fallbackState struct {
	profile string    // the fallback it runs on
	since   time.Time // when it switched: answers of the task's profile before it do not count
	// trying: the running turn tries the task's profile again (a return
	// try, fallbackBoundaryLocked); tried is when the last one began.
	trying bool
	tried  time.Time
}

// fallbackOwner remembers when each profile last answered a turn.
type fallbackOwner struct {
	mu       sync.Mutex           // guards answered; taken after a session's mutex and gate.mu, never before one
	answered map[string]time.Time // profile → its latest successful turn
}

// agent is the profile the session runs on: its task's, or the fallback it
// continues on. rt.mu is held.
func (rt *sessionRT) agent() string {
	if rt.fb != nil && !rt.fb.trying {
		return rt.fb.profile
	}
	return rt.task.Agent
}

// ValidateFallbacks checks every profile's fallback list: each names
// another configured profile, once, and no chain of fallbacks leads back
// to where it started (a fallback is used only from a task's own profile,
// so a cycle would only say the same thing twice, and most likely a typo).
func ValidateFallbacks(profiles map[string]lifecycle.Profile) error {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		seen := map[string]bool{}
		for _, fb := range profiles[name].Fallback {
			switch _, ok := profiles[fb]; {
			case fb == name:
				return fmt.Errorf("orchestrator: agent %q: fallback %q is the agent itself", name, fb)
			case !ok:
				return fmt.Errorf("orchestrator: agent %q: fallback %q is not a configured agent (configured: %s)", name, fb, strings.Join(names, ", "))
			case seen[fb]:
				return fmt.Errorf("orchestrator: agent %q: fallback %q is listed twice", name, fb)
			}
			seen[fb] = true
		}
	}
	// A cycle: depth-first, reporting the first one found as a path.
	const (
		unvisited = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) error
	visit = func(n string) error {
		state[n] = onPath
		path = append(path, n)
		for _, fb := range profiles[n].Fallback {
			switch state[fb] {
			case onPath:
				cycle := append(slices.Clone(path[slices.Index(path, fb):]), fb)
				return fmt.Errorf("orchestrator: agent fallbacks form a cycle: %s; list each fallback in one direction only", strings.Join(cycle, " → "))
			case unvisited:
				if err := visit(fb); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	for _, name := range names {
		if state[name] == unvisited {
			if err := visit(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// fallbackLocked continues the session on its next usable fallback where
// its gate deadline would end the chain with a banner; false: no fallback
// is configured or usable, and the banner shows. t is the turn whose
// failure passed the deadline, nil when the session was waiting. rt.mu is held.
func (s *Service) fallbackLocked(rt *sessionRT, t *turn, r recoveryReason) bool {
	list := s.cfg.Profiles[rt.task.Agent].Fallback
	if len(list) == 0 || rt.gone {
		return false
	}
	var prompt string
	resume := true
	switch {
	case t != nil:
		prompt = t.prompt
	case rt.retry != nil:
		prompt, resume = rt.retry.rec.Prompt, rt.retry.rec.Resume
	default:
		return false
	}
	from := rt.agent()
	to := s.nextFallbackLocked(rt, list)
	if to == "" {
		s.log.Info("no fallback profile is usable (their gates are open); the session stops waiting",
			zap.String("session_id", rt.sess.ID), zap.String("agent", from), zap.Strings("fallback", list))
		return false
	}
	rt.fb = &fallbackState{profile: to, since: s.now()}
	text := fmt.Sprintf("%s stayed overloaded for %s — continuing on %s. The session goes back to %s once it answers again.",
		from, longDuration(r.wait), to, rt.task.Agent)
	meta := map[string]any{"kind": kindFallback, "profile": to, "from": from, "reason": r.kind}
	if r.class.Code != "" {
		meta["failure_code"] = r.class.Code
	}
	s.cfg.Metrics.fallbacks.WithLabelValues(from, to, "fallback").Inc()
	s.log.Info("overload gate held the session past its deadline; continuing on a fallback profile",
		zap.String("session_id", rt.sess.ID), zap.String("task_id", rt.task.ID), zap.String("from", from), zap.String("to", to),
		zap.Duration("deadline", r.wait), zap.Bool("resume", resume))
	s.redriveLocked(rt, t, prompt, resume, text, meta)
	return true
}

// redriveLocked re-drives prompt on the profile the session has just moved
// to (rt.agent()): it ends the chain and the turn t (when not nil) that
// moved it, replaces the agent process, which belongs to the profile it was
// started for, says so in the chat (text, meta), and starts the turn, which
// resumes the agent session where the profile can load it (runTurn re-sends
// the transcript where it cannot). rt.mu is held.
func (s *Service) redriveLocked(rt *sessionRT, t *turn, prompt string, resume bool, text string, meta map[string]any) {
	s.disarmLocked(rt, outcomeFallback)
	s.dropNoticeLocked(rt)
	rt.chain = chainState{}
	if t != nil {
		_ = s.emitLocked(rt, "session.turn.completed", map[string]any{"turn_id": t.id, "stop_reason": stopFallback}, change{})
	}
	s.dropExecLocked(rt)
	rt.gateKey = ""
	m := store.Message{ID: uuid.NewString(), Role: "status", Variant: "info", Text: text, Metadata: meta}
	if t != nil {
		m.TurnID = t.id
	}
	if err := s.addMessageLocked(rt, m); err != nil {
		// In memory only: a restart finds the session where its last line says.
		s.log.Error("record fallback switch failed", zap.String("session_id", rt.sess.ID), zap.Error(err))
	}
	nt := s.newTurn(rt, prompt)
	nt.replay, nt.fresh = true, !resume
	if err := s.launchOrFailLocked(rt, nt, nil); err != nil {
		s.log.Warn("fallback turn not started", zap.String("session_id", rt.sess.ID), zap.Error(err)) // closing
	}
}

// nextFallbackLocked is the first fallback after the one the session is on
// whose gates are all closed; "" when none is left.
func (s *Service) nextFallbackLocked(rt *sessionRT, list []string) string {
	next := 0
	if rt.fb != nil {
		next = slices.Index(list, rt.fb.profile) + 1
	}
	for _, name := range list[next:] {
		if s.profileGateOpen(name) {
			s.log.Info("fallback profile skipped: its overload gate is open", zap.String("session_id", rt.sess.ID), zap.String("fallback", name))
			continue
		}
		return name
	}
	return ""
}

// profileGateOpen reports whether a gate of the profile (any model) is open.
func (s *Service) profileGateOpen(profile string) bool {
	if !s.gateEnabled() {
		return false
	}
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	for key, gr := range s.gate.gates {
		if (key == profile || strings.HasPrefix(key, overload.Key(profile, "")+"/")) && gr.g.State() == overload.Open {
			return true
		}
	}
	return false
}

// fallbackBoundaryLocked moves a session on a fallback back to its task's
// profile as a turn starts, once that profile has answered since the switch
// and none of its gates is open. When nobody has heard from it (its gate
// closed only because its last waiter left for a fallback, and no other
// session uses it), the turn tries it again, at most once per gate deadline
// of the task (the same per-task limit that sent it away): a success moves
// the session back (fallbackSucceededLocked), an overload sends it straight
// back to the fallback (fallbackTryFailedLocked). A probe of the fallback's
// own gate stays where it is: its answer is about the fallback. rt.mu is held.
func (s *Service) fallbackBoundaryLocked(rt *sessionRT, t *turn) {
	fb := rt.fb
	if fb == nil || t.probe {
		return
	}
	if fb.trying {
		// The last try ended without a verdict (stopped): its process is
		// the task profile's.
		fb.trying = false
		s.dropExecLocked(rt)
	}
	primary := rt.task.Agent
	if _, ok := s.cfg.Profiles[primary]; !ok || s.profileGateOpen(primary) {
		return
	}
	now := s.now()
	s.fallback.mu.Lock()
	at, answered := s.fallback.answered[primary]
	s.fallback.mu.Unlock()
	if !answered || !at.After(fb.since) {
		if now.Before(fb.since.Add(s.gateDeadline(rt))) || !fb.tried.IsZero() && now.Before(fb.tried.Add(s.gateDeadline(rt))) {
			return
		}
		fb.trying, fb.tried = true, now
		s.dropExecLocked(rt)
		rt.gateKey = ""
		s.log.Info("trying the task's profile again from its fallback", zap.String("session_id", rt.sess.ID),
			zap.String("fallback", fb.profile), zap.String("agent", primary))
		return
	}
	s.dropExecLocked(rt)
	rt.fb = nil
	rt.gateKey = ""
	s.movedBackLocked(rt, t, fb, "answered")
}

// movedBackLocked says in the chat that the session is back on its task's
// profile. rt.mu is held.
func (s *Service) movedBackLocked(rt *sessionRT, t *turn, fb *fallbackState, how string) {
	primary := rt.task.Agent
	m := store.Message{ID: uuid.NewString(), TurnID: t.id, Role: "status", Variant: "info",
		Text:     fmt.Sprintf("%s answers again — back on %s (after %s on %s).", primary, primary, humanDelay(s.now().Sub(fb.since)), fb.profile),
		Metadata: map[string]any{"kind": kindFallback, "profile": primary, "from": fb.profile, "back": true, "reason": how}}
	if err := s.addMessageLocked(rt, m); err != nil {
		s.log.Error("record move back from fallback failed", zap.String("session_id", rt.sess.ID), zap.Error(err))
	}
	s.cfg.Metrics.fallbacks.WithLabelValues(fb.profile, primary, "back").Inc()
	s.log.Info("the task's profile answers again; the session moves back from its fallback",
		zap.String("session_id", rt.sess.ID), zap.String("from", fb.profile), zap.String("to", primary), zap.String("how", how))
}

// fallbackSucceededLocked records that the session's profile answered a
// turn; a return try that answered moves the session back. rt.mu is held.
func (s *Service) fallbackSucceededLocked(rt *sessionRT, t *turn) {
	s.fallback.mu.Lock()
	if s.fallback.answered == nil {
		s.fallback.answered = make(map[string]time.Time)
	}
	s.fallback.answered[rt.agent()] = s.now()
	s.fallback.mu.Unlock()
	if fb := rt.fb; fb != nil && fb.trying {
		rt.fb = nil
		s.movedBackLocked(rt, t, fb, "tried")
	}
}

// fallbackTryFailedLocked ends a return try that failed: on an overload
// the session goes straight back to its fallback and the prompt is
// re-driven there (true), spending no budget and waiting on no gate; any
// other failure is the retry owner's, on the fallback (false). rt.mu is held.
func (s *Service) fallbackTryFailedLocked(rt *sessionRT, t *turn, c routingerr.Classification, d routingerr.Decision) bool {
	fb := rt.fb
	if fb == nil || !fb.trying {
		return false
	}
	fb.trying = false
	primary := rt.task.Agent
	retryable := d.Kind == routingerr.DecisionRetry || d.Kind == routingerr.DecisionManual && d.Reason == routingerr.ReasonExhausted
	if !overload.Gated(c.Code) || c.Class != routingerr.ClassTransient || !retryable {
		s.dropExecLocked(rt)
		rt.gateKey = ""
		return false
	}
	s.cfg.Metrics.fallbacks.WithLabelValues(primary, fb.profile, "fallback").Inc()
	s.log.Info("the task's profile is still overloaded; back on the fallback", zap.String("session_id", rt.sess.ID),
		zap.String("agent", primary), zap.String("fallback", fb.profile), zap.String("code", c.Code))
	s.redriveLocked(rt, t, t.prompt, true, fmt.Sprintf("%s is still overloaded — staying on %s.", primary, fb.profile),
		map[string]any{"kind": kindFallback, "profile": fb.profile, "from": primary, "reason": "still_overloaded", "failure_code": c.Code})
	return true
}

// dropExecLocked ends the session's live agent process, off the lock (a
// process may take its kill grace to end). rt.mu is held.
func (s *Service) dropExecLocked(rt *sessionRT) {
	ex := rt.exec
	if ex == nil {
		return
	}
	rt.exec = nil
	s.stopIdleLocked(rt)
	if !s.goTurn(func() { _ = ex.Close() }) {
		_ = ex.Close() // closing: the lifecycle manager reaps it anyway
	}
}

// fallbackOf reads a session's fallback back from its latest switch line
// (load): nil when that line moved it back, or names a profile no longer
// configured, or one the task's profile no longer lists.
func (s *Service) fallbackOf(task store.Task, m store.Message) *fallbackState {
	profile, _ := m.Metadata["profile"].(string)
	if profile == "" || profile == task.Agent || !slices.Contains(s.cfg.Profiles[task.Agent].Fallback, profile) {
		return nil
	}
	return &fallbackState{profile: profile, since: m.CreatedAt}
}
