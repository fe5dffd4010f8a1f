package chaos

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orchestratord/orchestratord/internal/mockagent"
	"github.com/orchestratord/orchestratord/internal/store"
)

const (
	stateRunning  = "RUNNING"
	stateStarting = "STARTING"
	stateFailed   = "FAILED"
)

type taskList struct {
	Tasks []struct {
		ID       string `json:"id"`
		Sessions []struct {
			ID string `json:"id"`
			sessionState
		} `json:"sessions"`
	} `json:"tasks"`
}

type sessionState struct {
	State   string `json:"state"`
	LastSeq int64  `json:"last_seq"`
}

// states is every session's state, by id, as task.list reports it.
func (r *runner) states(ctx context.Context) (map[string]sessionState, error) {
	raw, err := r.call(ctx, "task.list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var l taskList
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, err
	}
	out := map[string]sessionState{}
	for _, t := range l.Tasks {
		for _, s := range t.Sessions {
			out[s.ID] = s.sessionState
		}
	}
	return out, nil
}

// pendingRetries reads the durable pending retries, by session, from the
// database beside the running daemon.
func (r *runner) pendingRetries(ctx context.Context) (map[string]string, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(r.dataDir, store.FileName)+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT session_id, state FROM pending_retries`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, state string
		if err := rows.Scan(&id, &state); err != nil {
			return nil, err
		}
		out[id] = state
	}
	return out, rows.Err()
}

// settle waits until no session runs and no retry is pending. A session
// that makes no progress (its last_seq still) for StallTimeout while busy
// is stuck; the whole wait is bounded by SettleTimeout.
func (r *runner) settle(ctx context.Context, round int, seed int64) {
	deadline := time.Now().Add(r.cfg.SettleTimeout)
	quiet := 0
	var states map[string]sessionState
	var pending map[string]string
	lastSeq := map[string]int64{}
	progress := time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var err error
		states, err = r.states(ctx)
		if err == nil {
			pending, err = r.pendingRetries(ctx)
		}
		if err != nil {
			r.cfg.Logf("settle: %v", err)
			quiet = 0
			pause(ctx, 200*time.Millisecond)
			continue
		}
		busy := false
		for id, st := range pending {
			// A dispatching row of a session that runs nothing is left over
			// (check reports it); it will not move by itself.
			if live(st, states[id].State) {
				busy = true
			}
		}
		for id, st := range states {
			if st.State == stateRunning || st.State == stateStarting {
				busy = true
			}
			if st.LastSeq != lastSeq[id] {
				lastSeq[id] = st.LastSeq
				progress = time.Now()
			}
		}
		if !busy {
			if quiet++; quiet >= 2 {
				return
			}
		} else {
			quiet = 0
		}
		if busy && time.Since(progress) > r.cfg.StallTimeout {
			break
		}
		pause(ctx, 200*time.Millisecond)
	}
	for id, st := range states {
		if st.State == stateRunning || st.State == stateStarting {
			r.violate(round, seed, VStuckRunning, id, fmt.Sprintf("session %s still %s, no progress for %v", id, st.State, r.cfg.StallTimeout))
		}
	}
	for id, st := range pending {
		if live(st, states[id].State) {
			r.violate(round, seed, VStuckPending, id, fmt.Sprintf("session %s still has a pending retry, no progress for %v", id, r.cfg.StallTimeout))
		}
	}
}

// leftovers reads the retry rows and session states, giving the daemon's
// reconcile (every 5s) time to delete rows a full disk left behind.
func (r *runner) leftovers(ctx context.Context) (map[string]string, map[string]sessionState, error) {
	deadline := time.Now().Add(7 * time.Second)
	for {
		pending, err := r.pendingRetries(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("pending retries: %w", err)
		}
		states, err := r.states(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("task.list: %w", err)
		}
		stale := false
		for id, row := range pending {
			if !live(row, states[id].State) {
				stale = true
			}
		}
		if !stale || !time.Now().Before(deadline) || ctx.Err() != nil {
			return pending, states, nil
		}
		pause(ctx, 500*time.Millisecond)
	}
}

// live reports whether a retry row can still move by itself: pending
// beside a session that is not FAILED (a banner), or dispatching beside a
// running one. Any other row is left over (stale-retry-row).
func live(row, state string) bool {
	switch row {
	case "pending":
		return state != stateFailed
	case "dispatching":
		return state == stateRunning || state == stateStarting
	}
	return false
}

// wireEvent is a replayed session event.
type wireEvent struct {
	Action  string          `json:"action"`
	Seq     int64           `json:"seq"`
	Payload json.RawMessage `json:"payload"`
	At      time.Time       `json:"ts"`
}

type wireMessage struct {
	ID       string         `json:"id"`
	Role     string         `json:"role"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

type subscribed struct {
	Messages []wireMessage `json:"messages"`
	Events   []wireEvent   `json:"events"`
	Session  struct {
		State string `json:"state"`
	} `json:"session"`
}

func (r *runner) subscribe(ctx context.Context, s *session, after *int64) (subscribed, error) {
	p := map[string]any{"task_id": s.taskID, "session_id": s.id}
	if after != nil {
		p["after_seq"] = *after
	}
	var res subscribed
	raw, err := r.call(ctx, "session.subscribe", p)
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	_, _ = r.call(ctx, "session.unsubscribe", map[string]any{"session_id": s.id})
	return res, err
}

// check verifies every invariant over every session so far.
func (r *runner) check(ctx context.Context, round int, seed int64) error {
	r.mu.Lock()
	sessions := append([]*session(nil), r.sessions...)
	r.mu.Unlock()
	banners := map[string][]time.Time{} // session → when a recovery banner was added
	interrupted := 0                    // of them "interrupted" (a kill caught a retry mid-dispatch)
	pending, states, err := r.leftovers(ctx)
	if err != nil {
		return err
	}
	for _, s := range sessions {
		banners[s.id] = append(banners[s.id], s.banners...)
		interrupted += s.interrupted
		if _, busy := pending[s.id]; !busy && s.checkedInc == r.inc && s.checkedSeq == states[s.id].LastSeq {
			continue // nothing happened to it since its last check
		}
		snap, err := r.subscribe(ctx, s, nil)
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.id, err)
		}
		row, stuck := pending[s.id] // stuck-pending or stale-retry-row say so
		r.checkHistory(round, seed, s, snap, stuck)
		if stuck && !live(row, snap.Session.State) {
			r.violate(round, seed, VStaleRetryRow, s.id, fmt.Sprintf("session %s (%s) shows its outcome, yet its retry row says %s: "+
				"the next start will act on it", s.id, snap.Session.State, row))
		}
		zero := int64(0)
		replay, err := r.subscribe(ctx, s, &zero)
		if err != nil {
			return fmt.Errorf("replay of %s: %w", s.id, err)
		}
		chain := map[string]bool{}
		for _, e := range replay.Events {
			var body struct {
				Retry   int          `json:"retry"`
				Message *wireMessage `json:"message"`
			}
			_ = json.Unmarshal(e.Payload, &body)
			if e.Action == "session.turn.started" && body.Retry == 0 {
				chain = map[string]bool{}
			}
			if e.Action != "session.message.added" || body.Message == nil {
				continue
			}
			switch body.Message.Metadata["kind"] {
			case "retry_notice":
				chain[body.Message.ID] = true
				if len(chain) > 1 {
					r.violate(round, seed, VNoticePerChain, s.id+fmt.Sprint(e.Seq),
						fmt.Sprintf("session %s: %d retry notices in one chain (seq %d: %q)", s.id, len(chain), e.Seq, body.Message.Text))
				}
			case "recovery":
				if !slices.Contains(s.banners, e.At) {
					s.banners = append(s.banners, e.At)
					banners[s.id] = append(banners[s.id], e.At)
					if body.Message.Metadata["reason"] == "interrupted_retry" {
						s.interrupted++
					}
				}
			}
		}
		s.checkedInc, s.checkedSeq = r.inc, states[s.id].LastSeq
		if kinds := found(r.secrets, eventsOf(replay)); len(kinds) > 0 {
			r.violate(round, seed, VSecretEvents, s.id, fmt.Sprintf("session %s replays %s from seq 0", s.id, strings.Join(kinds, ", ")))
		}
	}
	if err := r.checkAgentTurns(round, seed); err != nil {
		return err
	}
	r.rep.Interrupted = interrupted
	r.checkRetries(round, seed, banners)
	hits, err := scanDB(ctx, r.dataDir, r.secrets)
	if err != nil {
		r.cfg.Logf("secret scan: %v", err)
	}
	for _, h := range hits {
		r.violate(round, seed, VSecretDB, h, h)
	}
	for i, logs := range r.allLogs() {
		for _, line := range strings.Split(logs, "\n") {
			kinds := found(r.secrets, line)
			if len(kinds) == 0 {
				continue
			}
			var m struct{ Logger, Msg string }
			_ = json.Unmarshal([]byte(line), &m)
			r.violate(round, seed, VSecretLog, strings.Join(kinds, ",")+m.Logger+m.Msg,
				fmt.Sprintf("daemon log (incarnation %d) line %s %q holds %s", i+1, m.Logger, m.Msg, strings.Join(kinds, ", ")))
		}
	}
	r.cfg.Logf("round %d checked: %d sessions, %d violations so far", round, len(sessions), len(r.rep.Violations))
	return nil
}

func eventsOf(s subscribed) string {
	var b strings.Builder
	for _, e := range s.Events {
		b.Write(e.Payload)
	}
	return b.String()
}

// checkHistory: every acknowledged prompt once, no notice left behind.
func (r *runner) checkHistory(round int, seed int64, s *session, snap subscribed, pending bool) {
	count := map[string]int{}
	for _, m := range snap.Messages {
		if m.Role == "user" {
			count[m.Text]++
		}
		if m.Metadata["kind"] == "retry_notice" && !pending && snap.Session.State != stateRunning && snap.Session.State != stateStarting {
			r.violate(round, seed, VStaleNotice, s.id+m.ID,
				fmt.Sprintf("session %s (%s) still shows %q with no retry pending", s.id, snap.Session.State, m.Text))
		}
	}
	r.mu.Lock()
	acked := append([]string(nil), s.acked...)
	r.mu.Unlock()
	for _, p := range acked {
		switch n := count[p]; {
		case n == 0:
			r.violate(round, seed, VLostPrompt, s.id+p, fmt.Sprintf("session %s lost the acknowledged prompt %q", s.id, p))
		case n > 1:
			r.violate(round, seed, VDupHistory, s.id+p, fmt.Sprintf("session %s holds %q %d times", s.id, p, n))
		}
	}
}

// checkAgentTurns: no agent session received one of our prompts twice.
func (r *runner) checkAgentTurns(round int, seed int64) error {
	got, err := mockagent.ReceivedPrompts(r.mockDir)
	if err != nil {
		return err
	}
	r.rep.AgentTurns = len(got)
	seen := map[string]int{}
	for _, g := range got {
		if !strings.Contains(g.Text, "chaos#") {
			continue // the daemon's continuation after a resume
		}
		k := g.Session + "\x00" + g.Text
		if seen[k]++; seen[k] == 2 {
			r.violate(round, seed, VDupAgentTurn, k, fmt.Sprintf("agent session %s (task %s) received %q twice", g.Session, g.Task, g.Text))
		}
	}
	return nil
}

// logEvent is one retry line of the daemon's log.
type logEvent struct {
	msg     string
	inc     int
	ts      time.Time
	attempt int
	retryAt time.Time
	// Where a firing's time went, as the daemon measured it: "retry timer
	// late" (woke, lock) and the claim of "retry firing".
	woke, lock, claim time.Duration
}

func seconds(v any) time.Duration {
	f, _ := v.(float64)
	return time.Duration(f * float64(time.Second))
}

func parseTime(v any) time.Time {
	switch v := v.(type) {
	case float64:
		sec, frac := math.Modf(v)
		return time.Unix(int64(sec), int64(frac*1e9))
	case string:
		t, _ := time.Parse(time.RFC3339Nano, v)
		return t
	}
	return time.Time{}
}

// retryEvents are the retry lines of every incarnation, by session, in order.
func retryEvents(logs []string) map[string][]logEvent {
	out := map[string][]logEvent{}
	for inc, l := range logs {
		for _, line := range strings.Split(l, "\n") {
			if !strings.Contains(line, "retry") {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil {
				continue
			}
			msg, _ := m["msg"].(string)
			switch msg {
			case "retry scheduled", "pending retry re-armed", "retry firing", msgClaimUnsaved, msgTimerLate:
			default:
				continue
			}
			if msg == "pending retry re-armed" {
				// Measured from when the restarted daemon is up: its start-up
				// writes come before the first claim.
				if up := listening(l); up.After(parseTime(m["ts"])) {
					m["ts"] = float64(up.UnixNano()) / 1e9
				}
			}
			id, _ := m["session_id"].(string)
			att, _ := m["attempt"].(float64)
			out[id] = append(out[id], logEvent{msg: msg, inc: inc + 1, ts: parseTime(m["ts"]), attempt: int(att), retryAt: parseTime(m["retry_at"]),
				woke: seconds(m["woke_late"]), lock: seconds(m["lock_wait"]), claim: seconds(m["claim"])})
		}
	}
	return out
}

// listening is when an incarnation's daemon started serving (its
// "orchestratord listening" line), zero when it never did.
func listening(log string) time.Time {
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, "orchestratord listening") {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			return parseTime(m["ts"])
		}
	}
	return time.Time{}
}

// msgClaimUnsaved is the daemon's log line for a due retry whose claim the
// store refused (internal/orchestrator/retry_unsaved.go).
const msgClaimUnsaved = "a due retry could not be claimed; it ends with the could-not-save banner"

// msgTimerLate is the daemon's log line for a retry timer that woke late
// or waited for its session (noteLateTimerLocked).
const msgTimerLate = "retry timer late"

// Where a late retry's time went (Report.LateCauses).
const (
	CauseParkedLate = "parked after its retry_at (the session's writes outlasted the delay)"
	CauseTimerWoke  = "timer callback ran late (CPU contention)"
	CauseLockWait   = "waited for the session's other work"
	CauseClaim      = "claim write (the store)"
	CauseUnknown    = "between claim and log line (unattributed)"
)

// lateCause names the largest part of a firing's lateness and says all.
// due is when it was due (retry_at, or the restart that re-armed it).
func lateCause(p *pendingRetry, due time.Time, fired logEvent, timer *logEvent) (string, string) {
	parked := max(p.sched.Sub(due), 0)
	var woke, lock time.Duration
	if timer != nil { // its woke_late counts from retry_at
		woke, lock = max(timer.woke-due.Sub(p.retryAt)-parked, 0), timer.lock
	}
	parts := []struct {
		cause string
		d     time.Duration
	}{{CauseParkedLate, parked}, {CauseTimerWoke, woke}, {CauseLockWait, lock}, {CauseClaim, fired.claim}}
	best := CauseUnknown
	var bestD time.Duration
	var b strings.Builder
	for _, x := range parts {
		fmt.Fprintf(&b, "%s %v; ", x.cause, x.d.Round(time.Millisecond))
		if x.d > bestD {
			best, bestD = x.cause, x.d
		}
	}
	return best, strings.TrimSuffix(b.String(), "; ")
}

// pendingRetry is one scheduled retry followed through the logs.
type pendingRetry struct {
	attempt int
	retryAt time.Time
	sched   time.Time
	rearm   map[int]time.Time // incarnation → when it re-armed it
}

// checkRetries: every scheduled retry fired once, on time; or was caught
// mid-dispatch (an interrupted banner), or superseded by the user.
func (r *runner) checkRetries(round int, seed int64, banners map[string][]time.Time) {
	r.rep.Retries, r.rep.Superseded, r.rep.DiskDelayed, r.rep.ClaimUnsaved, r.rep.Lateness = 0, 0, 0, 0, nil
	r.rep.LateCauses = map[string]int{}
	tol := r.cfg.FireTolerance
	actions := map[string][]action{}
	r.mu.Lock()
	for _, s := range r.sessions {
		actions[s.id] = append([]action(nil), s.actions...)
	}
	r.mu.Unlock()
	for id, evs := range retryEvents(r.allLogs()) {
		var open *pendingRetry
		var lastFired, timerLate *logEvent
		unresolved := func(p *pendingRetry) {
			due := p.retryAt
			for _, a := range actions[id] {
				if !a.at.Before(p.sched.Add(-50*time.Millisecond)) && a.at.Before(due.Add(tol+time.Second)) {
					r.rep.Superseded++
					return
				}
			}
			for _, at := range banners[id] {
				if !at.Before(p.sched) {
					return // it became a banner (caught mid-dispatch, could not be saved…), nothing re-sent
				}
			}
			r.violate(round, seed, VRetryLost, fmt.Sprintf("%s|%d|%s", id, p.attempt, p.sched),
				fmt.Sprintf("session %s: retry %d due %s never fired, was not superseded and became no banner",
					id, p.attempt, p.retryAt.UTC().Format(time.RFC3339Nano)))
		}
		for i := range evs {
			e := evs[i]
			switch e.msg {
			case "retry scheduled":
				if open != nil {
					unresolved(open)
				}
				open = &pendingRetry{attempt: e.attempt, retryAt: e.retryAt, sched: e.ts, rearm: map[int]time.Time{}}
			case "pending retry re-armed":
				if open == nil {
					open = &pendingRetry{retryAt: e.retryAt, sched: e.ts, rearm: map[int]time.Time{}, attempt: -1}
				}
				open.rearm[e.inc] = e.ts
			case msgTimerLate:
				if open != nil {
					timerLate = &evs[i]
				}
			case msgClaimUnsaved:
				// It came due on a full disk and ended with the could-not-save
				// banner; held in memory, that banner reaches the event log
				// only if the store takes it before the user acts.
				if open != nil {
					r.rep.ClaimUnsaved++
					open = nil
				}
			case "retry firing":
				if open == nil || open.attempt != e.attempt && open.attempt != -1 {
					if lastFired != nil && lastFired.attempt == e.attempt {
						r.violate(round, seed, VRetryTwice, fmt.Sprintf("%s|%d|%s", id, e.attempt, e.ts),
							fmt.Sprintf("session %s: retry %d fired again at %s", id, e.attempt, e.ts.UTC().Format(time.RFC3339Nano)))
					}
					continue
				}
				due := open.retryAt
				if at, ok := open.rearm[e.inc]; ok && at.After(due) {
					due = at
				}
				late := e.ts.Sub(due)
				delayed := false
				switch {
				case e.ts.Before(open.retryAt.Add(-5 * time.Millisecond)):
					r.violate(round, seed, VRetryEarly, fmt.Sprintf("%s|%d|%s", id, e.attempt, e.ts),
						fmt.Sprintf("session %s: retry %d fired %v before its retry_at", id, e.attempt, open.retryAt.Sub(e.ts)))
				case late > tol && (r.inFullDisk(due) || r.inFullDisk(e.ts)):
					r.rep.DiskDelayed++
					delayed = true // not a timer's lateness: kept out of the figures
				case late > tol:
					_, parts := lateCause(open, due, e, timerLate)
					r.violate(round, seed, VRetryLate, fmt.Sprintf("%s|%d|%s", id, e.attempt, e.ts),
						fmt.Sprintf("session %s: retry %d fired %v after it was due (tolerance %v): %s", id, e.attempt, late.Round(time.Millisecond), tol, parts))
				}
				if !delayed {
					r.rep.Lateness = append(r.rep.Lateness, max(late, 0))
					if late > LateNote {
						cause, _ := lateCause(open, due, e, timerLate)
						r.rep.LateCauses[cause]++
					}
				}
				timerLate = nil
				r.rep.Retries++
				lastFired = &evs[i]
				open = nil
			}
		}
		if open != nil {
			unresolved(open)
		}
	}
}
