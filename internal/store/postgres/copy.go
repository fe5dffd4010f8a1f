package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Source is the store Import reads: *store.DB (the SQLite file of a data
// dir), or another *DB.
type Source interface {
	ListTasks(ctx context.Context) ([]store.Task, error)
	ListAllSessions(ctx context.Context) ([]store.Session, error)
	ListMessages(ctx context.Context, sessionID string) ([]store.Message, error)
	ListEvents(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]store.Event, error)
	ListExecutions(ctx context.Context, sessionID string) ([]store.Execution, error)
	ListPendingRetries(ctx context.Context) ([]store.PendingRetry, error)
	ListGates(ctx context.Context) ([]store.Gate, error)
}

// Counts are the rows of each kind, copied or found.
type Counts struct {
	Tasks, Sessions, Messages, Events, Executions, PendingRetries, Gates int64
}

func (c Counts) String() string {
	return fmt.Sprintf("%d tasks, %d sessions, %d messages, %d events, %d executions, %d pending retries, %d gates",
		c.Tasks, c.Sessions, c.Messages, c.Events, c.Executions, c.PendingRetries, c.Gates)
}

// ErrNotEmpty: Import refuses a target that already holds data.
var ErrNotEmpty = errors.New("store: the target database is not empty")

// Import copies every record of src into db, which must be empty, in one
// transaction (all or nothing), then verifies the copy: the count of every
// kind of record, and every session's last seq (its row and its newest
// event). A message's streamed chunks arrive folded into its text, as
// SealMessages leaves it. src must not change meanwhile (migrate-store
// holds the data dir's lock).
func Import(ctx context.Context, db *DB, src Source) (Counts, error) {
	if err := db.usable(ctx); err != nil {
		return Counts{}, err
	}
	var want copied
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		// No other writer while we copy: a daemon starting on the target
		// now waits for this transaction (its first write blocks).
		if _, err := tx.Exec(ctx, `LOCK TABLE tasks, sessions, messages, message_chunks, events, executions,
			pending_retries, overload_gates IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		var free bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", int64(ownLock)).Scan(&free); err != nil {
			return err
		}
		if !free {
			return fmt.Errorf("%w: a daemon is running on it; stop it first", ErrInUse)
		}
		have, err := countRows(ctx, tx)
		if err != nil {
			return err
		}
		if have != (Counts{}) {
			return fmt.Errorf("%w (%s): migrate-store only writes into an empty one", ErrNotEmpty, have)
		}
		want, err = copyAll(ctx, tx, src)
		if err != nil {
			return err
		}
		return verify(ctx, tx, want)
	})
	if err != nil {
		return want.Counts, fmt.Errorf("store: import into %s: %w", db.name, err)
	}
	return want.Counts, nil
}

// copied is what copyAll copied: the counts, and each session's newest event.
type copied struct {
	Counts
	lastEvent map[string]int64
	lastSeq   map[string]int64
}

func copyAll(ctx context.Context, tx pgx.Tx, src Source) (copied, error) {
	n := copied{lastEvent: map[string]int64{}, lastSeq: map[string]int64{}}
	put := func(table string, cols []string, rows [][]any) (int64, error) {
		if len(rows) == 0 {
			return 0, nil
		}
		return tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	}
	tasks, err := src.ListTasks(ctx)
	if err != nil {
		return n, err
	}
	slices.Reverse(tasks) // oldest first: row numbers keep the source's order of ties
	rows := make([][]any, 0, len(tasks))
	for _, t := range tasks {
		rows = append(rows, taskArgs(t))
	}
	if n.Tasks, err = put("tasks", cols(taskColumns), rows); err != nil {
		return n, err
	}
	sessions, err := src.ListAllSessions(ctx)
	if err != nil {
		return n, err
	}
	rows = rows[:0]
	for _, s := range sessions {
		rows = append(rows, sessionArgs(s))
		n.lastSeq[s.ID] = s.LastSeq
	}
	if n.Sessions, err = put("sessions", cols(sessionColumns), rows); err != nil {
		return n, err
	}
	for _, s := range sessions {
		msgs, err := src.ListMessages(ctx, s.ID)
		if err != nil {
			return n, err
		}
		rows = rows[:0]
		for _, m := range msgs {
			a, err := upsertArgs(&m, store.Event{SessionID: s.ID})
			if err != nil {
				return n, err
			}
			rows = append(rows, a)
		}
		c, err := put("messages", []string{"id", "session_id", "turn_id", "seq", "role", "variant", "text", "metadata",
			"actions", "created_at", "updated_at"}, rows)
		if err != nil {
			return n, err
		}
		n.Messages += c

		evs, err := src.ListEvents(ctx, s.ID, 0, 0)
		if err != nil {
			return n, err
		}
		rows = rows[:0]
		for _, e := range evs {
			p, err := encodeRaw(e.Payload, "event payload")
			if err != nil {
				return n, err
			}
			rows = append(rows, []any{e.SessionID, e.Seq, e.Type, p, fmtTime(e.At)})
		}
		if c, err = put("events", []string{"session_id", "seq", "type", "payload", "at"}, rows); err != nil {
			return n, err
		}
		n.Events += c
		if len(evs) > 0 {
			n.lastEvent[s.ID] = evs[len(evs)-1].Seq
		}

		execs, err := src.ListExecutions(ctx, s.ID)
		if err != nil {
			return n, err
		}
		rows = rows[:0]
		for _, e := range execs {
			ev, err := encodeRaw(e.Evidence, "execution evidence")
			if err != nil {
				return n, err
			}
			cl, err := encodeRaw(e.Classification, "execution classification")
			if err != nil {
				return n, err
			}
			var ended any
			if e.EndedAt != nil {
				ended = fmtTime(*e.EndedAt)
			}
			rows = append(rows, []any{e.ID, e.SessionID, e.Generation, e.Attempt, fmtTime(e.StartedAt), ended, e.Outcome, ev, cl})
		}
		if c, err = put("executions", cols(executionColumns), rows); err != nil {
			return n, err
		}
		n.Executions += c
	}
	retries, err := src.ListPendingRetries(ctx)
	if err != nil {
		return n, err
	}
	rows = rows[:0]
	for _, r := range retries {
		a, err := savePendingRetryArgs(r)
		if err != nil {
			return n, err
		}
		rows = append(rows, a)
	}
	if n.PendingRetries, err = put("pending_retries", cols(retryColumns), rows); err != nil {
		return n, err
	}
	gates, err := src.ListGates(ctx)
	if err != nil {
		return n, err
	}
	rows = rows[:0]
	for _, g := range gates {
		rows = append(rows, []any{g.Key, g.State, fmtTime(g.OpenedAt), fmtTime(g.NextProbeAt), g.FailedProbes, g.ProbesSent, fmtTime(g.UpdatedAt)})
	}
	if n.Gates, err = put("overload_gates", cols(gateColumns), rows); err != nil {
		return n, err
	}
	return n, nil
}

// cols splits a column list constant.
func cols(list string) []string {
	out := strings.Split(list, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

func countRows(ctx context.Context, tx pgx.Tx) (Counts, error) {
	var c Counts
	err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages),
		(SELECT count(*) FROM events), (SELECT count(*) FROM executions), (SELECT count(*) FROM pending_retries),
		(SELECT count(*) FROM overload_gates)`).Scan(&c.Tasks, &c.Sessions, &c.Messages, &c.Events, &c.Executions, &c.PendingRetries, &c.Gates)
	return c, err
}

// verify compares the target with what was copied: the counts, and every
// session's last seq, both its row's and its newest event's.
func verify(ctx context.Context, tx pgx.Tx, want copied) error {
	got, err := countRows(ctx, tx)
	if err != nil {
		return err
	}
	if got != want.Counts {
		return fmt.Errorf("verify: the target has %s, the source %s", got, want.Counts)
	}
	rows, err := tx.Query(ctx, `SELECT s.id, s.last_seq, coalesce((SELECT max(seq) FROM events e WHERE e.session_id = s.id), 0) FROM sessions s`)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id string
		var seq, newest int64
		if err := rows.Scan(&id, &seq, &newest); err != nil {
			return err
		}
		seen++
		if seq != want.lastSeq[id] || newest != want.lastEvent[id] {
			return fmt.Errorf("verify: session %s: last seq %d and newest event %d in the target, %d and %d in the source",
				id, seq, newest, want.lastSeq[id], want.lastEvent[id])
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if seen != len(want.lastSeq) {
		return fmt.Errorf("verify: %d sessions in the target, %d in the source", seen, len(want.lastSeq))
	}
	return nil
}
