package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// TaskWithSessions is a task and its sessions, oldest session first.
type TaskWithSessions struct {
	Task     Task
	Sessions []Session
}

// MaxTaskPage bounds one page of ListTaskPage.
const MaxTaskPage = 1000

// ListTaskPage returns up to limit tasks (1…MaxTaskPage; 0 means
// MaxTaskPage) newest first, in the order of ListTasks, each with its
// sessions, in one query. cursor is "" for the first page, else the next
// cursor of the previous page; next is "" after the last page. A cursor
// this store did not hand out is ErrInvalid.
func (db *DB) ListTaskPage(ctx context.Context, limit int, cursor string) (page []TaskWithSessions, next string, err error) {
	if limit <= 0 || limit > MaxTaskPage {
		limit = MaxTaskPage
	}
	afterAt, afterRow, err := decodeTaskCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	page = []TaskWithSessions{}
	var lastAt string
	var lastRow int64
	more := false
	err = db.query(ctx, func(s scanner) error {
		var t Task
		var row int64
		var created, updated string
		var archived sql.NullString
		var sid, stask, sstate, sagent, screated, supdated, smodel sql.NullString
		var sgen, sseq sql.NullInt64
		if err := s.Scan(&t.ID, &t.Title, &t.Agent, &t.Workdir, &t.MaxAttempts, &t.State, &created, &updated, &t.GateDeadline, &archived, &t.OnUsageLimit, &row,
			&sid, &stask, &sstate, &sagent, &sgen, &sseq, &screated, &supdated, &smodel); err != nil {
			return err
		}
		if n := len(page); n == 0 || page[n-1].Task.ID != t.ID {
			if n == limit {
				more = true
				return nil
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
			page = append(page, TaskWithSessions{Task: t, Sessions: []Session{}})
			lastAt, lastRow = created, row
		}
		if !sid.Valid || more {
			return nil
		}
		x := Session{ID: sid.String, TaskID: stask.String, State: sstate.String, AgentSessionID: sagent.String,
			Generation: sgen.Int64, LastSeq: sseq.Int64, Model: smodel.String}
		var err error
		if x.CreatedAt, err = parseTime(screated.String); err != nil {
			return err
		}
		if x.UpdatedAt, err = parseTime(supdated.String); err != nil {
			return err
		}
		ts := &page[len(page)-1].Sessions
		*ts = append(*ts, x)
		return nil
	}, listTaskPageSQL, cursor == "", afterAt, afterRow, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("store: list tasks: %w", err)
	}
	if more {
		next = encodeTaskCursor(lastAt, lastRow)
	}
	return page, next, nil
}

// listTaskPageSQL: one page of tasks (plus one, to tell whether another
// page follows) by the (created_at) index, which holds the rowid too, joined
// to their sessions by sessions_by_task.
const listTaskPageSQL = `SELECT t.id, t.title, t.agent, t.workdir, t.max_attempts, t.state, t.created_at, t.updated_at, t.gate_deadline_ns, t.archived_at, t.on_usage_limit, t.rowid,
	s.id, s.task_id, s.state, s.agent_session_id, s.generation, s.last_seq, s.created_at, s.updated_at, s.model
FROM (SELECT rowid, * FROM tasks WHERE ?1 OR (created_at, rowid) < (?2, ?3) ORDER BY created_at DESC, rowid DESC LIMIT ?4) AS t
LEFT JOIN sessions s ON s.task_id = t.id
ORDER BY t.created_at DESC, t.rowid DESC, s.created_at, s.rowid`

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
	return "", 0, fmt.Errorf("%w: unknown task cursor %q", ErrInvalid, c)
}
