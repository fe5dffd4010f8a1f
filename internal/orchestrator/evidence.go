package orchestrator

// Evidence of a failed turn, notice first (issue 13): the failure is
// classified from what arrived with it; only when that leaves the verdict
// open does the daemon wait for the agent's stderr — briefly while it lives
// on, or through its exit when the process is ending anyway (Gemini CLI
// writes its stderr only then). The failed process is torn down after the
// notice is out, or kept for the retry when a new process could not restore
// its session (keepForRetry).

import (
	"time"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

const (
	// decisiveConfidence: a classification at least this sure is not
	// second-guessed by the agent's stderr.
	decisiveConfidence = 0.8
	// stderrLiveBound bounds the wait for a live agent's stderr to go quiet
	// (codex-acp logs its error 2 ms after answering with it; opencode and
	// Qwen Code log it before).
	stderrLiveBound = 100 * time.Millisecond
	// stderrExitBound bounds the wait for an ending agent's last stderr
	// words: Gemini CLI 0.61 writes them 5–50 ms after SIGTERM and closes
	// stderr 50–220 ms after it (measured on a loaded 2-core machine).
	stderrExitBound = 500 * time.Millisecond
)

// failureEvidence returns the evidence of a failed turn and what to run once
// its verdict is published: the teardown of the failed process, unless it is
// kept for the retry.
func (s *Service) failureEvidence(rt *sessionRT, t *turn, ex Execution, err error) (routingerr.Evidence, func()) {
	fe, ok := lifecycle.AsFailure(err)
	var ev routingerr.Evidence
	if ok {
		ev = fe.Evidence
	} else {
		ev = routingerr.Evidence{Phase: routingerr.PhaseProcessStart, Err: err.Error()}
	}
	if ev.Agent == "" {
		ev.Agent = rt.task.Agent
	}
	keep := ex != nil && ok && s.keepForRetry(ex, ev)
	rt.mu.Lock()
	if ex != nil && !keep && rt.exec == ex {
		rt.exec = nil // a failed execution is not reused, unless kept on purpose
	}
	probe := ev
	probe.HadOutput = probe.HadOutput || t.hadOutput
	probe.HadToolActivity = probe.HadToolActivity || t.hadTool
	stopped := t.stopped || t.cancelledRetry
	rt.mu.Unlock()

	teardown := func() {}
	if ex != nil && !keep {
		teardown = func() { _ = ex.Close() }
	}
	if !ok || stopped || ev.Cancelled || decisive(probe, s.now()) {
		return ev, teardown
	}
	if keep {
		return fe.Settle(stderrLiveBound, false), teardown
	}
	if ex == nil {
		return fe.Settle(stderrLiveBound, false), teardown
	}
	// The process ends anyway: end it now and read what it says on the way out.
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_ = ex.Close()
	}()
	return fe.Settle(stderrExitBound, true), func() { <-closed }
}

// decisive reports whether the evidence already settles the verdict, so
// stderr could not change it.
func decisive(ev routingerr.Evidence, now time.Time) bool {
	c := routingerr.Classify(ev, now)
	return c.Class != routingerr.ClassUnclassified && c.Confidence >= decisiveConfidence
}

// keepForRetry: the agent answered with an error and lives on (a provider
// error leaves a healthy process and connection), and a new process could
// not restore its session — so the retry runs in this one and the agent
// keeps the conversation.
func (s *Service) keepForRetry(ex Execution, ev routingerr.Evidence) bool {
	if !ev.HasRPCError || ev.Cancelled || ev.Err != "" || ev.ExitStatus != "" {
		return false
	}
	r, ok := ex.(resumer)
	return ok && !r.CanResume()
}
