package postgres

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Tasks, sessions, executions and gates: the SQLite store's contracts
// (see the methods of *store.DB of the same names).

const taskColumns = `id, title, agent, workdir, max_attempts, state, created_at, updated_at, gate_deadline_ns, archived_at, on_usage_limit`

type scanner interface{ Scan(dest ...any) error }

func scanTask(s scanner) (store.Task, error) {
	var t store.Task
	var created, updated string
	var deadline int64
	var archived *string
	if err := s.Scan(&t.ID, &t.Title, &t.Agent, &t.Workdir, &t.MaxAttempts, &t.State, &created, &updated, &deadline, &archived, &t.OnUsageLimit); err != nil {
		return store.Task{}, err
	}
	t.GateDeadline = time.Duration(deadline)
	var err error
	if t.ArchivedAt, err = parseNullTime(archived); err != nil {
		return store.Task{}, err
	}
	if t.CreatedAt, err = parseTime(created); err != nil {
		return store.Task{}, err
	}
	if t.UpdatedAt, err = parseTime(updated); err != nil {
		return store.Task{}, err
	}
	return t, nil
}

func taskArgs(t store.Task) []any {
	return []any{t.ID, t.Title, t.Agent, t.Workdir, t.MaxAttempts, t.State, fmtTime(t.CreatedAt), fmtTime(t.UpdatedAt), int64(t.GateDeadline), fmtNullTime(t.ArchivedAt), t.OnUsageLimit}
}

const insertTaskSQL = `INSERT INTO tasks (` + taskColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

// CreateTask inserts a task and its first session in one transaction.
func (db *DB) CreateTask(ctx context.Context, t store.Task, s store.Session) error {
	if t.ID == "" {
		return fmt.Errorf("store: create task: %w: task without id", store.ErrInvalid)
	}
	if t.GateDeadline < 0 {
		return fmt.Errorf("store: create task %s: %w: negative gate deadline %s", t.ID, store.ErrInvalid, t.GateDeadline)
	}
	if s.ID != "" {
		if s.TaskID == "" {
			s.TaskID = t.ID
		}
		if s.TaskID != t.ID {
			return fmt.Errorf("store: create task %s: %w: its session belongs to task %q", t.ID, store.ErrInvalid, s.TaskID)
		}
	}
	var err error
	if s.ID == "" {
		_, err = db.exec(ctx, insertTaskSQL, taskArgs(t)...)
		err = mapConstraint(err, "task "+t.ID)
	} else {
		// One statement, one round trip, atomic.
		_, err = db.exec(ctx, `WITH t AS (`+insertTaskSQL+` RETURNING id)
			INSERT INTO sessions (`+sessionColumns+`) SELECT $12::text, t.id, $13::text, $14::text, $15::bigint, $16::bigint, $17::text, $18::text, $19::text FROM t`,
			append(append(taskArgs(t), s.ID), sessionArgs(s)[2:]...)...)
		err = mapConstraint(err, "task "+t.ID+" or session "+s.ID)
	}
	if err != nil {
		return fmt.Errorf("store: create task %s: %w", t.ID, err)
	}
	return nil
}

// GetTask returns one task, or ErrNotFound.
func (db *DB) GetTask(ctx context.Context, id string) (store.Task, error) {
	var t store.Task
	err := db.getRow(ctx, func(r pgx.Row) (err error) {
		t, err = scanTask(r)
		return err
	}, "task "+id, `SELECT `+taskColumns+` FROM tasks WHERE id = $1`, id)
	if err != nil {
		return store.Task{}, fmt.Errorf("store: get task: %w", err)
	}
	return t, nil
}

// ListTasks returns every task, newest first (ties: last created first).
func (db *DB) ListTasks(ctx context.Context) ([]store.Task, error) {
	out := []store.Task{}
	err := db.query(ctx, func(r pgx.Rows) error {
		t, err := scanTask(r)
		out = append(out, t)
		return err
	}, `SELECT `+taskColumns+` FROM tasks ORDER BY created_at DESC, row_id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return out, nil
}

// ListTaskPage is store.DB.ListTaskPage: newest first, each task with its
// sessions, one query per page.
func (db *DB) ListTaskPage(ctx context.Context, limit int, cursor string) (page []store.TaskWithSessions, next string, err error) {
	if limit <= 0 || limit > store.MaxTaskPage {
		limit = store.MaxTaskPage
	}
	afterAt, afterRow, err := decodeTaskCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	page = []store.TaskWithSessions{}
	var lastAt string
	var lastRow int64
	more := false
	err = db.query(ctx, func(r pgx.Rows) error {
		var t store.Task
		var row, deadline int64
		var created, updated string
		var archived *string
		var sid, stask, sstate, sagent, screated, supdated, smodel *string
		var sgen, sseq *int64
		if err := r.Scan(&t.ID, &t.Title, &t.Agent, &t.Workdir, &t.MaxAttempts, &t.State, &created, &updated, &deadline, &archived, &t.OnUsageLimit, &row,
			&sid, &stask, &sstate, &sagent, &sgen, &sseq, &screated, &supdated, &smodel); err != nil {
			return err
		}
		t.GateDeadline = time.Duration(deadline)
		if n := len(page); n == 0 || page[n-1].Task.ID != t.ID {
			if n == limit {
				more = true
				return errStop
			}
			var err error
			if t.CreatedAt, err = parseTime(created); err != nil {
				return err
			}
			if t.UpdatedAt, err = parseTime(updated); err != nil {
				return err
			}
			if t.ArchivedAt, err = parseNullTime(archived); err != nil {
				return err
			}
			page = append(page, store.TaskWithSessions{Task: t, Sessions: []store.Session{}})
			lastAt, lastRow = created, row
		}
		if sid == nil {
			return nil
		}
		x := store.Session{ID: *sid, TaskID: *stask, State: *sstate, AgentSessionID: *sagent, Generation: *sgen, LastSeq: *sseq}
		if smodel != nil {
			x.Model = *smodel
		}
		var err error
		if x.CreatedAt, err = parseTime(*screated); err != nil {
			return err
		}
		if x.UpdatedAt, err = parseTime(*supdated); err != nil {
			return err
		}
		ts := &page[len(page)-1].Sessions
		*ts = append(*ts, x)
		return nil
	}, `SELECT t.id, t.title, t.agent, t.workdir, t.max_attempts, t.state, t.created_at, t.updated_at, t.gate_deadline_ns, t.archived_at, t.on_usage_limit, t.row_id,
		s.id, s.task_id, s.state, s.agent_session_id, s.generation, s.last_seq, s.created_at, s.updated_at, s.model
	FROM (SELECT * FROM tasks WHERE $1::boolean OR (created_at, row_id) < ($2::text, $3::bigint)
		ORDER BY created_at DESC, row_id DESC LIMIT $4) AS t
	LEFT JOIN sessions s ON s.task_id = t.id
	ORDER BY t.created_at DESC, t.row_id DESC, s.created_at, s.row_id`, cursor == "", afterAt, afterRow, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("store: list tasks: %w", err)
	}
	if more {
		next = encodeTaskCursor(lastAt, lastRow)
	}
	return page, next, nil
}

func encodeTaskCursor(createdAt string, row int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(createdAt + "/" + strconv.FormatInt(row, 10)))
}

func decodeTaskCursor(c string) (string, int64, error) {
	if c == "" {
		return "", 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		at, row, ok := strings.Cut(string(raw), "/")
		if n, perr := strconv.ParseInt(row, 10, 64); ok && perr == nil {
			if _, terr := parseTime(at); terr == nil {
				return at, n, nil
			}
		}
	}
	return "", 0, fmt.Errorf("%w: unknown task cursor %q", store.ErrInvalid, c)
}

const sessionColumns = `id, task_id, state, agent_session_id, generation, last_seq, created_at, updated_at, model`

func scanSession(s scanner) (store.Session, error) {
	var x store.Session
	var created, updated string
	if err := s.Scan(&x.ID, &x.TaskID, &x.State, &x.AgentSessionID, &x.Generation, &x.LastSeq, &created, &updated, &x.Model); err != nil {
		return store.Session{}, err
	}
	var err error
	if x.CreatedAt, err = parseTime(created); err != nil {
		return store.Session{}, err
	}
	if x.UpdatedAt, err = parseTime(updated); err != nil {
		return store.Session{}, err
	}
	return x, nil
}

func sessionArgs(s store.Session) []any {
	return []any{s.ID, s.TaskID, s.State, s.AgentSessionID, s.Generation, s.LastSeq, fmtTime(s.CreatedAt), fmtTime(s.UpdatedAt), s.Model}
}

// CreateSession inserts a session of an existing task.
func (db *DB) CreateSession(ctx context.Context, s store.Session) error {
	if s.ID == "" || s.TaskID == "" {
		return fmt.Errorf("store: create session: %w: session needs an id and a task id", store.ErrInvalid)
	}
	if _, err := db.exec(ctx, `INSERT INTO sessions (`+sessionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		sessionArgs(s)...); err != nil {
		return fmt.Errorf("store: create session %s: %w", s.ID, mapConstraint(err, "session "+s.ID))
	}
	return nil
}

// GetSession returns one session, or ErrNotFound.
func (db *DB) GetSession(ctx context.Context, id string) (store.Session, error) {
	var s store.Session
	err := db.getRow(ctx, func(r pgx.Row) (err error) {
		s, err = scanSession(r)
		return err
	}, "session "+id, `SELECT `+sessionColumns+` FROM sessions WHERE id = $1`, id)
	if err != nil {
		return store.Session{}, fmt.Errorf("store: get session: %w", err)
	}
	return s, nil
}

// ListSessions returns the task's sessions, oldest first.
func (db *DB) ListSessions(ctx context.Context, taskID string) ([]store.Session, error) {
	return db.listSessions(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE task_id = $1 ORDER BY created_at, row_id`, taskID)
}

// ListAllSessions returns every session, oldest first.
func (db *DB) ListAllSessions(ctx context.Context) ([]store.Session, error) {
	return db.listSessions(ctx, `SELECT `+sessionColumns+` FROM sessions ORDER BY created_at, row_id`)
}

func (db *DB) listSessions(ctx context.Context, sql string, args ...any) ([]store.Session, error) {
	out := []store.Session{}
	err := db.query(ctx, func(r pgx.Rows) error {
		s, err := scanSession(r)
		out = append(out, s)
		return err
	}, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return out, nil
}

const executionColumns = `id, session_id, generation, attempt, started_at, ended_at, outcome, evidence, classification`

// SaveExecution inserts or replaces an execution by ID.
func (db *DB) SaveExecution(ctx context.Context, e store.Execution) error {
	if e.ID == "" || e.SessionID == "" {
		return fmt.Errorf("store: save execution: %w: execution needs an id and a session id", store.ErrInvalid)
	}
	evidence, err := encodeRaw(e.Evidence, "execution evidence")
	if err != nil {
		return fmt.Errorf("store: save execution %s: %w", e.ID, err)
	}
	class, err := encodeRaw(e.Classification, "execution classification")
	if err != nil {
		return fmt.Errorf("store: save execution %s: %w", e.ID, err)
	}
	var ended any
	if e.EndedAt != nil {
		ended = fmtTime(*e.EndedAt)
	}
	_, err = db.exec(ctx, `INSERT INTO executions (`+executionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, generation = excluded.generation,
			attempt = excluded.attempt, started_at = excluded.started_at, ended_at = excluded.ended_at,
			outcome = excluded.outcome, evidence = excluded.evidence, classification = excluded.classification`,
		e.ID, e.SessionID, e.Generation, e.Attempt, fmtTime(e.StartedAt), ended, e.Outcome, evidence, class)
	if err != nil {
		return fmt.Errorf("store: save execution %s: %w", e.ID, mapConstraint(err, "execution "+e.ID))
	}
	return nil
}

// ListExecutions returns the session's executions, oldest first.
func (db *DB) ListExecutions(ctx context.Context, sessionID string) ([]store.Execution, error) {
	out := []store.Execution{}
	err := db.query(ctx, func(r pgx.Rows) error {
		var e store.Execution
		var started string
		var ended *string
		var evidence, class []byte
		if err := r.Scan(&e.ID, &e.SessionID, &e.Generation, &e.Attempt, &started, &ended, &e.Outcome, &evidence, &class); err != nil {
			return err
		}
		var err error
		if e.StartedAt, err = parseTime(started); err != nil {
			return err
		}
		if ended != nil {
			t, err := parseTime(*ended)
			if err != nil {
				return err
			}
			e.EndedAt = &t
		}
		e.Evidence, e.Classification = decodeRaw(evidence), decodeRaw(class)
		out = append(out, e)
		return nil
	}, `SELECT `+executionColumns+` FROM executions WHERE session_id = $1 ORDER BY started_at, row_id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list executions of %s: %w", sessionID, err)
	}
	return out, nil
}

const gateColumns = `key, state, opened_at, next_probe_at, failed_probes, probes_sent, updated_at`

// SaveGate inserts or replaces the row of an open gate.
func (db *DB) SaveGate(ctx context.Context, g store.Gate) error {
	if g.Key == "" {
		return fmt.Errorf("store: save gate: %w: gate without key", store.ErrInvalid)
	}
	if g.State != store.GateOpen {
		return fmt.Errorf("store: save gate %s: %w: state %q (only open gates are stored)", g.Key, store.ErrInvalid, g.State)
	}
	_, err := db.exec(ctx, `INSERT INTO overload_gates (`+gateColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (key) DO UPDATE SET state = excluded.state, opened_at = excluded.opened_at,
			next_probe_at = excluded.next_probe_at, failed_probes = excluded.failed_probes,
			probes_sent = excluded.probes_sent, updated_at = excluded.updated_at`,
		g.Key, g.State, fmtTime(g.OpenedAt), fmtTime(g.NextProbeAt), g.FailedProbes, g.ProbesSent, fmtTime(g.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: save gate %s: %w", g.Key, err)
	}
	return nil
}

// DeleteGate removes a gate's row; a missing row is not an error.
func (db *DB) DeleteGate(ctx context.Context, key string) error {
	if _, err := db.exec(ctx, `DELETE FROM overload_gates WHERE key = $1`, key); err != nil {
		return fmt.Errorf("store: delete gate %s: %w", key, err)
	}
	return nil
}

// ListGates returns every stored (open) gate by key.
func (db *DB) ListGates(ctx context.Context) ([]store.Gate, error) {
	out := []store.Gate{}
	err := db.query(ctx, func(r pgx.Rows) error {
		var g store.Gate
		var opened, next, updated string
		if err := r.Scan(&g.Key, &g.State, &opened, &next, &g.FailedProbes, &g.ProbesSent, &updated); err != nil {
			return err
		}
		var err error
		if g.OpenedAt, err = parseTime(opened); err != nil {
			return err
		}
		if g.NextProbeAt, err = parseTime(next); err != nil {
			return err
		}
		if g.UpdatedAt, err = parseTime(updated); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	}, `SELECT `+gateColumns+` FROM overload_gates ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("store: list gates: %w", err)
	}
	return out, nil
}
