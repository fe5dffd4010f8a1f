package main

import (
	"fmt"
	"io"
	"math"
	"time"
)

// writeTable prints the results as a Markdown table. Times are simulated
// seconds (real time divided by the scale).
func writeTable(w io.Writer, rs []result) {
	fmt.Fprintln(w, "| agents | N | wall | scale | gate | requests in wall (retries) | min gap between retries | probes (daemons probing) | red banners | replied | wall end → reply p50 / p99 / max | wall end → gate closed | gate closed → last reply | dup turns | lost | events written | create N | run |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		gap := "—"
		if r.minRetryGap >= 0 {
			gap = fmt.Sprintf("%.1fs", r.minRetryGap)
		}
		reply := "—"
		if len(r.reply) > 0 {
			reply = fmt.Sprintf("%s / %s / %s", secs(pct(r.reply, 50)), secs(pct(r.reply, 99)), secs(r.reply[len(r.reply)-1]))
		}
		closeToLast, detect := "—", "—"
		if r.closeToLast >= 0 {
			closeToLast, detect = secs(r.closeToLast), secs(r.detect)
		}
		n := fmt.Sprint(r.n)
		if r.mode == "fleet" {
			n = fmt.Sprintf("%d×%d", r.daemons, r.n)
		}
		fmt.Fprintf(w, "| %s | %s | %s | ×%g | %s | %d (%d) | %s | %.0f (%d) | %d | %d | %s | %s | %s | %d | %d | %d | %s | %s |\n",
			agentsLabel(r.mode), n, shortDur(r.wall), r.scale, onOff(r.gate), r.wallRequests, r.wallRetries, gap,
			r.probes, r.probers, r.banners, r.replied, reply, detect, closeToLast, r.dupTurns, r.lost, r.events,
			r.createDuration.Round(10*time.Millisecond), r.elapsed.Round(100*time.Millisecond))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Times are simulated seconds (real ÷ scale) except the last two columns (real). \"requests in wall\" counts every prompt")
	fmt.Fprintln(w, "that reached the provider while it answered 529: each session's first prompt plus the retries in brackets.")
	fmt.Fprintln(w, "A fleet's N is daemons × sessions each; its requests, gaps and probes are the whole fleet's, as the provider sees them.")
	writeDaemons(w, rs)
}

// writeDaemons prints each fleet run's daemons apart: where the time from
// the wall's end to the last session back goes on each.
func writeDaemons(w io.Writer, rs []result) {
	header := false
	for _, r := range rs {
		if r.mode != "fleet" || !r.gate {
			continue
		}
		if !header {
			header = true
			fmt.Fprintln(w)
			fmt.Fprintln(w, "| fleet run | daemon | probes | red banners | replied | wall end → its gate closed | → provider's last answer | → last session back |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
		}
		for i, d := range r.perDaemon {
			fmt.Fprintf(w, "| %d×%d %s ×%g | %d | %d | %d | %d | %s | %s | %s |\n", r.daemons, r.n, shortDur(r.wall), r.scale, i,
				d.probes, d.banners, d.replied, orDash(d.closed), orDash(d.lastAnswer), orDash(d.lastReply))
		}
	}
	if header {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Per daemon, simulated seconds from the wall's end: its gate closing (the probe's success, or the fleet's word of it),")
		fmt.Fprintln(w, "the provider's last answer to one of its released sessions, and its last session back (task.updated).")
	}
}

func orDash(v float64) string {
	if v < 0 {
		return "—"
	}
	return secs(v)
}

func agentsLabel(mode string) string {
	switch mode {
	case "process":
		return "mock processes"
	case "fleet":
		return "in-process, fleet on PostgreSQL"
	}
	return "in-process"
}

// pct is the p-th percentile of sorted values (nearest rank).
func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func secs(v float64) string { return fmt.Sprintf("%.1fs", v) }

func shortDur(d time.Duration) string { return fmt.Sprintf("%gs", d.Seconds()) }
