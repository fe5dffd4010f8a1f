package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// step is one planned action of a round, at an offset from its start.
type step struct {
	at     time.Duration
	kind   string // prompt, stop, resume, cancel, fresh, or a fault kind, or "free" (end of disk-full)
	target int    // index into the round's sessions
	prompt string
	hold   time.Duration // faults: downtime / how long the fault lasts
	atFire bool          // daemon-kill: wait for the next retry to fire, then kill (mid-dispatch)
}

// scenarios are the mock prompts a round draws from, with their weights.
func scenario(rng *rand.Rand) string {
	switch n := rng.IntN(100); {
	case n < 22:
		return fmt.Sprintf("/overloaded:%d", 1+rng.IntN(4)) // 4 exhausts the budget of 3
	case n < 36:
		return fmt.Sprintf("/conn-closed:%d", 1+rng.IntN(3)) // 3 exhausts the network budget of 2
	case n < 46:
		return fmt.Sprintf("/rate-limit:%d:%d", 1+rng.IntN(2), 1+rng.IntN(2))
	case n < 58:
		return fmt.Sprintf("/slow:%d", 300+rng.IntN(1200))
	case n < 68:
		return fmt.Sprintf("/crash:%d", 1+rng.IntN(2))
	case n < 82:
		return fmt.Sprintf("/leak:%d", 1+rng.IntN(2))
	case n < 86:
		return "/tool"
	}
	return "" // a plain echo
}

// plan draws a round: its new tasks, then follow-ups and one fault.
func plan(rng *rand.Rand, faults []string, round int, seed int64) (creates []string, steps []step) {
	tag := func(k, j int) string { return fmt.Sprintf("chaos#%d-%d-%d-%d", seed, round, k, j) }
	words := []string{"fix the bug", "write the docs", "refactor it", "add a test", "ship it"}
	mk := func(k, j int) string {
		p := tag(k, j) + " " + words[rng.IntN(len(words))]
		if sc := scenario(rng); sc != "" {
			p = sc + " " + p
		}
		return p
	}
	nTasks := 2 + rng.IntN(3)
	for k := range nTasks {
		creates = append(creates, mk(k, 0))
	}
	const window = 2500 * time.Millisecond
	nSteps := 3 + rng.IntN(5)
	for j := range nSteps {
		s := step{at: time.Duration(rng.Int64N(int64(window))), target: rng.IntN(nTasks)}
		switch n := rng.IntN(100); {
		case n < 55:
			s.kind, s.prompt = "prompt", mk(s.target, j+1)
		case n < 65:
			s.kind = "stop"
		case n < 82:
			s.kind = "resume"
		case n < 94:
			s.kind = "cancel"
		default:
			s.kind = "fresh"
		}
		steps = append(steps, s)
	}
	fault := faults[rng.IntN(len(faults))]
	if rng.IntN(8) == 0 {
		fault = FaultNone
	}
	at := time.Duration(rng.Int64N(int64(window)))
	switch fault {
	case FaultDaemonKill:
		first := len(steps)
		steps = append(steps, step{at: at, kind: fault, hold: time.Duration(rng.IntN(800)) * time.Millisecond})
		if rng.IntN(3) == 0 { // a second kill, often while the first restart's retries are due
			steps = append(steps, step{at: at + time.Duration(300+rng.IntN(1200))*time.Millisecond, kind: fault,
				hold: time.Duration(rng.IntN(400)) * time.Millisecond})
		}
		// Drawn last, so the rest of the plan is what it was before this
		// existed: the first kill lands just as a retry is claimed.
		steps[first].atFire = rng.IntN(2) == 0
	case FaultAgentKill:
		steps = append(steps, step{at: at, kind: fault, target: rng.IntN(1 << 20)})
		if rng.IntN(2) == 0 {
			steps = append(steps, step{at: at + time.Duration(200+rng.IntN(800))*time.Millisecond, kind: fault, target: rng.IntN(1 << 20)})
		}
	case FaultDiskFull:
		hold := time.Duration(300+rng.IntN(1500)) * time.Millisecond
		steps = append(steps, step{at: at, kind: fault}, step{at: at + hold, kind: "free"})
	case FaultReadOnly:
		steps = append(steps, step{at: at, kind: fault, hold: time.Duration(200+rng.IntN(800)) * time.Millisecond,
			prompt: tag(0, 99) + " sent while the data dir is read-only"})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].at < steps[j].at })
	return creates, steps
}

func roundRand(seed int64) *rand.Rand { return rand.New(rand.NewPCG(uint64(seed), 0x6368616f73)) } // "chaos"

// Describe says what a seed's round does: its tasks' prompts and its steps.
func Describe(seed int64, faults []string) string {
	if len(faults) == 0 {
		faults = AllFaults
	}
	creates, steps := plan(roundRand(seed), faults, 1, seed)
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d:", seed)
	for _, c := range creates {
		fmt.Fprintf(&b, " [%s]", c)
	}
	for _, st := range steps {
		fmt.Fprintf(&b, " %v:%s", st.at.Round(time.Millisecond), st.kind)
		if st.atFire {
			b.WriteString("@fire")
		}
	}
	return b.String()
}

// round runs one seed's plan, lets the daemon settle and checks everything.
func (r *runner) round(ctx context.Context, round int, seed int64) error {
	creates, steps := plan(roundRand(seed), r.cfg.Faults, round, seed)
	var mine []*session
	for _, p := range creates {
		s, err := r.createTask(ctx, round, seed, p)
		if err != nil {
			return err
		}
		if s != nil {
			mine = append(mine, s)
		}
	}
	r.cfg.Logf("round %d (seed %d): %d tasks, %d steps", round, seed, len(mine), len(steps))
	began := time.Now()
	filled := false
	for _, st := range steps {
		pause(ctx, time.Until(began.Add(st.at)))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := r.ensureUp(ctx, round, seed); err != nil {
			return err
		}
		switch st.kind {
		case FaultDaemonKill:
			kind := FaultDaemonKill
			if st.atFire {
				if r.waitFire(ctx, 3*time.Second) {
					kind = FaultDaemonKill + " (as a retry fired)"
				} else {
					kind = FaultDaemonKill + " (no retry fired within 3s)"
				}
			}
			r.kill()
			r.rep.Faults[kind]++
			pause(ctx, st.hold)
			if err := r.restart(ctx); err != nil {
				r.violate(round, seed, VDaemonStart, fmt.Sprint(r.inc), err.Error())
			}
		case FaultAgentKill:
			if r.killAgent(st.target) {
				r.rep.Faults[FaultAgentKill]++
			} else {
				r.rep.Faults[FaultAgentKill+" (no agent alive)"]++
			}
		case FaultDiskFull:
			if r.mount == "" {
				r.rep.Skipped[FaultDiskFull] = "the data dir is not on a tmpfs (mount not permitted: not root?)"
				continue
			}
			if err := r.fill(); err != nil {
				r.cfg.Logf("disk-full: %v", err)
				continue
			}
			filled = true
			r.rep.Faults[FaultDiskFull]++
		case "free":
			if filled {
				r.free()
				filled = false
			}
		case FaultReadOnly:
			if r.mount == "" {
				r.rep.Skipped[FaultReadOnly] = "the data dir is not on a tmpfs (mount not permitted: not root?)"
				continue
			}
			if err := r.readOnly(ctx, round, seed, st); err != nil {
				return err
			}
			r.rep.Faults[FaultReadOnly]++
		default:
			if st.target < len(mine) {
				r.act(ctx, mine[st.target], st)
			}
		}
	}
	if filled {
		r.free()
	}
	if err := r.ensureUp(ctx, round, seed); err != nil {
		return err
	}
	acted := time.Now()
	r.settle(ctx, round, seed)
	settled := time.Now()
	err := r.check(ctx, round, seed)
	r.cfg.Logf("round %d (seed %d): steps %v, settle %v, checks %v", round, seed,
		acted.Sub(began).Round(time.Millisecond), settled.Sub(acted).Round(time.Millisecond), time.Since(settled).Round(time.Millisecond))
	return err
}

// waitFire polls the daemon's log until its next "retry firing" line
// (the claim is saved, the attempt starting), bounded by d.
func (r *runner) waitFire(ctx context.Context, d time.Duration) bool {
	count := func() int { return strings.Count(r.d.Logs(), `"msg":"retry firing"`) }
	before := count()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if count() > before {
			return true
		}
		pause(ctx, 2*time.Millisecond)
	}
	return false
}

// ensureUp restarts a daemon that a fault left down (a failed restart).
func (r *runner) ensureUp(ctx context.Context, round int, seed int64) error {
	if r.d != nil {
		select {
		case <-r.d.Exited():
			r.violate(round, seed, VDaemonStart, fmt.Sprintf("exit-%d", r.inc), "the daemon exited by itself:\n"+daemontest.Tail(r.d.Logs(), 20))
			r.kill()
		default:
			return nil
		}
	}
	if err := r.restart(ctx); err != nil {
		return fmt.Errorf("the daemon cannot be started again: %w", err)
	}
	return nil
}

// createTask sends task.create; an acknowledged prompt is recorded.
func (r *runner) createTask(ctx context.Context, round int, seed int64, prompt string) (*session, error) {
	raw, err := r.call(ctx, "task.create", map[string]any{"prompt": prompt})
	if err != nil {
		var we *daemontest.WireError
		if errors.As(err, &we) {
			r.cfg.Logf("task.create refused: %v", we)
			return nil, nil
		}
		return nil, fmt.Errorf("task.create: %w", err)
	}
	var created struct {
		Task struct {
			ID       string `json:"id"`
			Sessions []struct {
				ID string `json:"id"`
			} `json:"sessions"`
		} `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || len(created.Task.Sessions) != 1 {
		return nil, fmt.Errorf("task.create answered %s", raw)
	}
	s := &session{taskID: created.Task.ID, id: created.Task.Sessions[0].ID, round: round, seed: seed, acked: []string{prompt}}
	r.mu.Lock()
	r.sessions = append(r.sessions, s)
	r.mu.Unlock()
	r.rep.Prompts++
	return s, nil
}

// act sends one follow-up; refusals (a turn running, nothing to resume)
// are part of the game, only acknowledgements are recorded.
func (r *runner) act(ctx context.Context, s *session, st step) {
	ids := map[string]any{"task_id": s.taskID, "session_id": s.id}
	var err error
	sent := time.Now()
	switch st.kind {
	case "prompt":
		_, err = r.call(ctx, "session.prompt", map[string]any{"task_id": s.taskID, "session_id": s.id, "text": st.prompt})
	case "stop":
		_, err = r.call(ctx, "session.stop", ids)
	case "resume", "cancel", "fresh":
		a := map[string]string{"resume": "resume", "cancel": "cancel_retry", "fresh": "fresh_start"}[st.kind]
		_, err = r.call(ctx, "session.recover", map[string]any{"task_id": s.taskID, "session_id": s.id, "action": a})
	}
	if err != nil {
		return
	}
	r.rep.Actions[st.kind]++
	r.mu.Lock()
	if st.kind == "prompt" {
		s.acked = append(s.acked, st.prompt)
		r.rep.Prompts++
	}
	s.actions = append(s.actions, action{at: sent, kind: st.kind})
	r.mu.Unlock()
}
