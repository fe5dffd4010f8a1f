package orchestrator

// The waiting notice of a session parked on an overload gate: written when
// it starts waiting, kept current for those who watch (gate.go).

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/overload"
	"github.com/orchestratord/orchestratord/internal/routingerr"
	"github.com/orchestratord/orchestratord/internal/store"
)

// gateView is what a session's waiting notice shows.
type gateView struct {
	key       string
	state     overload.State
	nextProbe time.Time // zero while a probe is in flight
	waiting   int
	releaseAt time.Time // released, not yet gone
	code      string
	ruleID    string
}

func (gr *gateRT) view(session string) gateView {
	// In a fleet the count is the fleet's: the sessions waiting on other
	// daemons wait for the same probe.
	v := gateView{key: gr.g.Key(), state: gr.g.State(), waiting: gr.g.Waiting() + gr.g.Peers(), code: gr.code, ruleID: gr.ruleID}
	if at, ok := gr.g.NextProbe(); ok {
		v.nextProbe = at
	}
	return v
}

// parkOnGateLocked makes the session wait on a gate: the notice and the
// durable row in one transaction (with next, the session row of a manual
// recovery), then the state, then the deadline timer. No retry timer: the
// gate's timer and its release decide when the session goes.
func (s *Service) parkOnGateLocked(rt *sessionRT, gw gateWait, view gateView, next *store.Session) error {
	now := s.now()
	noticeID := rt.notice
	if noticeID == "" {
		noticeID = uuid.NewString()
	}
	rec := store.PendingRetry{
		SessionID: rt.sess.ID, TaskID: rt.task.ID, Generation: gw.gen,
		Attempt: gw.attempt, MaxAttempts: gw.max, Code: gw.code, RuleID: gw.ruleID,
		RetryAt: view.retryAt(now), Prompt: gw.prompt, Resume: gw.resume,
		NoticeID: noticeID, State: store.RetryPending, CreatedAt: now,
		Extra: map[string]any{
			extraGate:         gw.key,
			extraGateSince:    gw.since.UTC().Format(time.RFC3339Nano),
			extraGateDeadline: gw.deadline.UTC().Format(time.RFC3339Nano),
		},
	}
	m := s.gateNotice(rt, rec, view, gw.deadline, now)
	if err := s.writeNoticeLocked(rt, m, change{retry: &rec, sess: next}); err != nil {
		s.log.Error("persist gate wait failed", zap.String("session_id", rt.sess.ID), zap.Error(err))
		return err
	}
	if gw.fromFailedTurnID != "" {
		_ = s.emitLocked(rt, "session.turn.completed", map[string]any{"turn_id": gw.fromFailedTurnID, "stop_reason": "retry_scheduled"}, change{})
	}
	_ = s.setStateLocked(rt, store.SessionWaitingForInput, store.TaskInProgress)
	if old := rt.retry; old != nil {
		s.stopTimersLocked(old)
	}
	if rt.retry == nil {
		s.cfg.Metrics.parkedSessions.Inc()
	}
	rt.chain = chainOf(gw.attempt, gw.max, gw.deadline)
	p := &parkedRetry{rec: rec, gate: gw.key, noticeSaid: saidSum(view.said())}
	rt.retry = p
	s.armDeadlineLocked(rt, p, gw.deadline)
	return nil
}

// said identifies what a notice says, leaving out the countdown that
// clients compute from retry_at: a notice is rewritten only when this
// changes.
func (v gateView) said() string {
	return fmt.Sprintf("%s|%s|%d|%s", v.state, v.nextProbe.Format(time.RFC3339Nano), v.waiting, v.releaseAt.Format(time.RFC3339Nano))
}

func (v gateView) retryAt(now time.Time) time.Time {
	switch {
	case v.state != overload.Open && !v.releaseAt.IsZero():
		return v.releaseAt
	case !v.nextProbe.IsZero() && v.nextProbe.After(now):
		return v.nextProbe
	}
	return now
}

func (v gateView) text(code string, now time.Time) string {
	label := routingerr.FamilyLabel(code)
	switch {
	case v.state != overload.Open && !v.releaseAt.IsZero():
		return fmt.Sprintf("%s — the provider is answering again; resuming in %s", label, humanDelay(v.releaseAt.Sub(now)))
	case v.state != overload.Open:
		return fmt.Sprintf("%s — the provider is answering again; resuming now", label)
	case v.nextProbe.IsZero() || !v.nextProbe.After(now):
		return fmt.Sprintf("%s — waiting for it to recover; checking now (%s waiting)", label, sessionsN(v.waiting))
	}
	return fmt.Sprintf("%s — waiting for it to recover; next check in %s (%s waiting)", label,
		humanDelay(v.nextProbe.Sub(now)), sessionsN(v.waiting))
}

func sessionsN(n int) string {
	if n == 1 {
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}

// gateNotice is the one status message of a session waiting on a gate.
func (s *Service) gateNotice(rt *sessionRT, rec store.PendingRetry, v gateView, deadline, now time.Time) store.Message {
	state := v.state
	if state == "" {
		state = overload.Closed
	}
	return store.Message{
		ID: rec.NoticeID, Role: "status", Variant: "warning", Text: v.text(rec.Code, now),
		Metadata: map[string]any{
			"kind": kindRetryNotice, "retrying": true, "attempt": rec.Attempt, "max_attempts": rec.MaxAttempts,
			"retry_at": rec.RetryAt.UTC().Format(time.RFC3339Nano), "failure_code": rec.Code, "rule_id": rec.RuleID,
			"gate":     map[string]any{"key": v.key, "state": string(state)},
			"waiting":  v.waiting,
			"deadline": deadline.UTC().Format(time.RFC3339Nano),
		},
		Actions: waitingActions(rt),
	}
}

// refreshGateNoticeLocked rewrites a waiting session's notice when what it
// says (next check, count, release) has changed since it was written. It
// runs when someone subscribes to the session, and for watched sessions
// when their gate changes: unwatched notices are not rewritten on every
// probe, which with thousands of waiting sessions would be thousands of
// writes a minute that nobody reads.
func (s *Service) refreshGateNoticeLocked(rt *sessionRT) {
	p := rt.retry
	if p == nil || p.gate == "" || p.dispatching || rt.notice == "" {
		return
	}
	now := s.now()
	s.gate.mu.Lock()
	gr := s.gate.gates[p.gate]
	if gr == nil {
		s.gate.mu.Unlock()
		return
	}
	v := gr.view(rt.sess.ID)
	if r, ok := s.gate.releases.pending(rt.sess.ID); ok {
		v.releaseAt = r.at
	}
	s.gate.mu.Unlock()
	said := saidSum(v.said())
	if said == p.noticeSaid {
		return
	}
	rec := p.rec
	rec.RetryAt = v.retryAt(now)
	m := s.gateNotice(rt, rec, v, rt.chain.deadline(), now)
	if err := s.replaceMessageWithLocked(rt, m, change{retry: &rec}); err != nil {
		return
	}
	p.rec, p.noticeSaid = rec, said
}

// saidSum is what a waiting notice says, as parkedRetry keeps it: a hash,
// eight bytes instead of the text's sixteen-byte header and its bytes, for
// each of thousands of waiting sessions. A collision only skips one refresh.
func saidSum(said string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(said))
	return h.Sum64()
}

// refreshWatchedNotices refreshes the notices of a gate's waiting sessions
// that someone is subscribed to, here or on another daemon of the fleet. It runs on an owned goroutine, so it may
// take session mutexes.
func (s *Service) refreshWatchedNotices(key string) {
	s.gate.mu.Lock()
	gr := s.gate.gates[key]
	var ids []string
	if gr != nil {
		for _, w := range gr.g.Waiters() {
			ids = append(ids, w.Session)
		}
	}
	s.gate.mu.Unlock()
	ids = append(ids, s.gate.releases.of(key)...)
	for _, sid := range ids {
		s.mu.Lock()
		rt := s.sessions[sid]
		s.mu.Unlock()
		if rt == nil {
			continue
		}
		rt.mu.Lock() // guards rt.subs itself (nil until someone subscribes)
		if rt.subs.len() > 0 || s.watchedRemotelyLocked(rt) {
			s.refreshGateNoticeLocked(rt)
		}
		rt.mu.Unlock()
	}
}

// writeNoticeLocked adds or replaces the session's one retry notice.
func (s *Service) writeNoticeLocked(rt *sessionRT, m store.Message, c change) error {
	if rt.notice == m.ID {
		return s.replaceMessageWithLocked(rt, m, c)
	}
	if err := s.addMessageWithLocked(rt, m, c); err != nil {
		return err
	}
	rt.notice = m.ID
	return nil
}

// deadlineText is the banner of a session whose wait outlasted its deadline.
func deadlineText(code string, d time.Duration) string {
	switch code {
	case "overloaded", "capacity":
		return fmt.Sprintf("The provider stayed overloaded for %s.", longDuration(d))
	case "unavailable":
		return fmt.Sprintf("The provider stayed unavailable for %s.", longDuration(d))
	}
	return fmt.Sprintf("The provider kept failing for %s.", longDuration(d))
}

// longDuration renders a configured span in words: "30 minutes", "2 hours".
func longDuration(d time.Duration) string {
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	}
	return unit(int64((d+time.Second/2)/time.Second), "second")
}
