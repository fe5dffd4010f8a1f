package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// pgStats is what a fleet run's database did from the wall's end to the
// last session back (-pgstats): the statements pg_stat_statements counted
// in the run's database, those the daemons sent (top level) and those the
// server ran for them (triggers, foreign-key checks), and the time the
// server spent executing the top-level ones.
type pgStats struct {
	topLevel, nested int64
	execMS           float64
	top              []pgStatement // the most frequent, for -v
}

// pgStatement is one normalised statement's count.
type pgStatement struct {
	topLevel bool
	calls    int64
	execMS   float64
	query    string
}

// statsQuery reads the counters of the current database's statements.
const statsQuery = `SELECT toplevel, calls, total_exec_time, query FROM pg_stat_statements
	WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
	ORDER BY calls DESC`

// enablePGStats makes the run's database count its statements.
func enablePGStats(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return fmt.Errorf("-pgstats: %w (the server must load pg_stat_statements: shared_preload_libraries)", err)
	}
	return nil
}

// resetPGStats starts the count (at the wall's end). It resets every
// database's counters: a run's database is the server's only busy one.
func resetPGStats(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `SELECT pg_stat_statements_reset()`)
	return err
}

// readPGStats reads the count since resetPGStats.
func readPGStats(ctx context.Context, pool *pgxpool.Pool) (pgStats, error) {
	var st pgStats
	rows, err := pool.Query(ctx, statsQuery)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var s pgStatement
		if err := rows.Scan(&s.topLevel, &s.calls, &s.execMS, &s.query); err != nil {
			return st, err
		}
		if s.topLevel {
			st.topLevel += s.calls
			st.execMS += s.execMS
		} else {
			st.nested += s.calls
		}
		if len(st.top) < 25 {
			st.top = append(st.top, s)
		}
	}
	return st, rows.Err()
}

var spaces = regexp.MustCompile(`\s+`)

// writePGStats prints each fleet run's statement counts per released
// session (and, verbose, the most frequent statements).
func writePGStats(w io.Writer, rs []result, verbose bool) {
	header := false
	for _, r := range rs {
		if r.pg == nil || r.replied == 0 {
			continue
		}
		if !header {
			header = true
			fmt.Fprintln(w)
			fmt.Fprintln(w, "| fleet run | gate | statements per session back (sent / run by the server for them) | server execution per session back |")
			fmt.Fprintln(w, "|---|---|---:|---:|")
		}
		n := float64(r.replied)
		fmt.Fprintf(w, "| %d×%d %s ×%g | %s | %.1f / %.1f | %.2f ms |\n", r.daemons, r.n, shortDur(r.wall), r.scale, onOff(r.gate),
			float64(r.pg.topLevel)/n, float64(r.pg.nested)/n, r.pg.execMS/n)
		if verbose {
			for _, s := range r.pg.top {
				q := spaces.ReplaceAllString(s.query, " ")
				if len(q) > 140 {
					q = q[:140] + "…"
				}
				kind := "sent"
				if !s.topLevel {
					kind = "nested"
				}
				fmt.Fprintf(w, "    %6.2f/session %-6s %7.1f ms  %s\n", float64(s.calls)/n, kind, s.execMS, strings.TrimSpace(q))
			}
		}
	}
	if header {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Counted by pg_stat_statements in the run's database from the wall's end to the last session back, divided by the")
		fmt.Fprintln(w, "sessions that came back: what the daemons sent, and what the server ran for them (triggers, foreign-key checks).")
	}
}
