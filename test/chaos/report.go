package chaos

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Percentile of sorted durations, p in [0, 1].
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return sorted[i]
}

// Write prints the report as Markdown.
func (rep *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "## chaos: %d rounds in %v (load average %s at the start, %s at the end; CPU pressure %s, %s)\n\n",
		rep.Rounds, rep.Duration.Round(time.Second), rep.Load[0], rep.Load[1], rep.CPUPressure[0], rep.CPUPressure[1])
	fmt.Fprintf(w, "| fault | injected |\n|---|---:|\n")
	for _, k := range sortedKeys(rep.Faults) {
		fmt.Fprintf(w, "| %s | %d |\n", k, rep.Faults[k])
	}
	for _, k := range sortedKeys(rep.Skipped) {
		fmt.Fprintf(w, "| %s | skipped: %s |\n", k, rep.Skipped[k])
	}
	fmt.Fprintf(w, "\nrestarts %d; read-only starts: %s\n", rep.Restarts, kv(rep.ReadOnlyRuns))
	fmt.Fprintf(w, "acknowledged prompts %d; follow-up actions acknowledged: %s; prompts the agents received %d\n",
		rep.Prompts, kv(rep.Actions), rep.AgentTurns)
	fmt.Fprintf(w, "pending retries fired %d (lateness p50 %v, p99 %v, max %v; %d due on a full disk not held to the tolerance), caught mid-dispatch %d, superseded %d, "+
		"could not be claimed on a full disk (could-not-save banner) %d\n\n",
		rep.Retries, Percentile(rep.Lateness, 0.5).Round(time.Millisecond), Percentile(rep.Lateness, 0.99).Round(time.Millisecond),
		Percentile(rep.Lateness, 1).Round(time.Millisecond), rep.DiskDelayed, rep.Interrupted, rep.Superseded, rep.ClaimUnsaved)
	if n := len(rep.ControlLateness); n > 0 {
		over := 0
		for _, d := range rep.ControlLateness {
			if d > 100*time.Millisecond {
				over++
			}
		}
		c := rep.ControlLateness
		fmt.Fprintf(w, "control: a bare %v time.AfterFunc in the harness process, on the same machine meanwhile, fired late by p50 %v, p99 %v, max %v "+
			"(%d timers, %d over 100ms)\n\n", probeEvery, Percentile(c, 0.5).Round(time.Millisecond), Percentile(c, 0.99).Round(time.Millisecond),
			Percentile(c, 1).Round(time.Millisecond), n, over)
	}
	if len(rep.LateCauses) > 0 {
		fmt.Fprintf(w, "| retries later than %v, by where most of the time went | retries |\n|---|---:|\n", LateNote)
		for _, k := range sortedKeys(rep.LateCauses) {
			fmt.Fprintf(w, "| %s | %d |\n", k, rep.LateCauses[k])
		}
		fmt.Fprintln(w)
	}
	if len(rep.Violations) == 0 {
		fmt.Fprintf(w, "violations: none\n")
		return
	}
	byKind := map[string]int{}
	for _, v := range rep.Violations {
		byKind[v.Kind]++
	}
	fmt.Fprintf(w, "violations: %d (%s)\n\n", len(rep.Violations), kv(byKind))
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "- %s\n", v)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func kv(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
