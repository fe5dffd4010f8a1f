package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// Errors of Send. Both mean the client's command did not get an answer
// from the daemon that runs its session; they differ in what the client
// may assume.
var (
	// ErrOwnerUnavailable: the command was withdrawn before its owner took
	// it (the owner is gone or did not answer in time). Nothing was done;
	// the client may try again.
	ErrOwnerUnavailable = errors.New("fleet: the daemon that runs the session is unavailable")
	// ErrNoAnswer: the owner took the command but did not answer in time;
	// it may have been applied (the session's events will show it).
	ErrNoAnswer = errors.New("fleet: the daemon that runs the session took the command but did not answer")
)

// Command is a session command forwarded from the daemon a client gave it
// to (Origin) to the daemon that owns the session (Target).
type Command struct {
	ID        string          `json:"id"`
	Origin    string          `json:"origin"`
	Target    string          `json:"target"`
	Action    string          `json:"action"` // the request's action, e.g. session.prompt
	SessionID string          `json:"session_id"`
	Payload   json.RawMessage `json:"payload"` // the request's payload, as the client sent it
}

// Answer is the owner's answer: Result, or Error (opaque here: the
// executor's encoding of a typed error, returned to the client as is).
type Answer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// Executor runs a forwarded command on the daemon that owns its session.
type Executor func(ctx context.Context, cmd Command) Answer

// answerGrace is how long Send waits past CommandTimeout for the answer of
// a command its owner already took.
const answerGrace = 5 * time.Second

// Send forwards a command to target, the daemon that owns the session, and
// returns its answer: a row in fleet_commands and a NOTIFY to target in
// one statement; target executes it and writes the answer with a NOTIFY
// back. Past CommandTimeout the command is withdrawn if target has not
// taken it (ErrOwnerUnavailable: it will never run); a command target
// took is waited for answerGrace more (then ErrNoAnswer). So a prompt is
// either accepted by its owner, or the client is told — never lost
// silently, never run after the client was told it failed.
func (r *Relay) Send(ctx context.Context, target string, cmd Command) (Answer, error) {
	cmd.ID, cmd.Origin, cmd.Target = uuid.NewString(), r.cfg.Self, target
	if cmd.Payload == nil {
		cmd.Payload = json.RawMessage("{}")
	}
	wake := make(chan struct{}, 1)
	r.mu.Lock()
	if r.closed || !r.started {
		r.mu.Unlock()
		return Answer{}, fmt.Errorf("%w: this daemon's relay is not running", ErrOwnerUnavailable)
	}
	r.waiters[cmd.ID] = wake
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiters, cmd.ID)
		r.mu.Unlock()
	}()
	// Detached from ctx: the row's fate is settled below even when the
	// client's request ends.
	db := context.WithoutCancel(ctx)
	if _, err := r.cfg.Pool.Exec(db, `WITH c AS (
			INSERT INTO fleet_commands (id, origin, target, action, session_id, payload, deadline)
			VALUES ($1, $2, $3, $4, $5, $6, now() + $7::bigint * interval '1 microsecond') RETURNING id)
		SELECT pg_notify('`+commandsChannel+`', $3 || ' ' || $1) FROM c`,
		cmd.ID, cmd.Origin, cmd.Target, cmd.Action, cmd.SessionID, string(cmd.Payload), r.cfg.CommandTimeout.Microseconds()); err != nil {
		return Answer{}, fmt.Errorf("%w: send command: %w", ErrOwnerUnavailable, err)
	}
	timeout := r.cfg.Clock.NewTimer(r.cfg.CommandTimeout, "fleet", "command-timeout")
	defer timeout.Stop()
	for {
		select {
		case <-wake:
			if a, done, err := r.answer(db, cmd.ID); err != nil || done {
				return a, err
			}
			continue
		case <-timeout.C:
		case <-ctx.Done():
		case <-r.ctx.Done():
		}
		break
	}
	// Withdraw it, unless its owner has taken it.
	tag, err := r.cfg.Pool.Exec(db, `DELETE FROM fleet_commands WHERE id = $1 AND state = 'pending'`, cmd.ID)
	if err == nil && tag.RowsAffected() == 1 {
		return Answer{}, fmt.Errorf("%w: it did not take the command within %v; nothing was done", ErrOwnerUnavailable, r.cfg.CommandTimeout)
	}
	grace := r.cfg.Clock.NewTimer(answerGrace, "fleet", "command-grace")
	defer grace.Stop()
	for {
		if a, done, err := r.answer(db, cmd.ID); err != nil || done {
			return a, err
		}
		select {
		case <-wake:
		case <-grace.C:
			_, _ = r.cfg.Pool.Exec(db, `DELETE FROM fleet_commands WHERE id = $1`, cmd.ID)
			return Answer{}, fmt.Errorf("%w within %v", ErrNoAnswer, r.cfg.CommandTimeout+answerGrace)
		case <-r.ctx.Done():
			return Answer{}, fmt.Errorf("%w (this daemon is shutting down)", ErrNoAnswer)
		}
	}
}

// answer reads a command's row: done with its answer (the row is deleted,
// its work is over), or not yet.
func (r *Relay) answer(ctx context.Context, id string) (Answer, bool, error) {
	var raw []byte
	err := r.cfg.Pool.QueryRow(ctx, `DELETE FROM fleet_commands WHERE id = $1 AND state = 'done' RETURNING answer`, id).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return Answer{}, false, nil
	}
	if err != nil {
		return Answer{}, false, fmt.Errorf("%w: read the answer: %w", ErrNoAnswer, err)
	}
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return Answer{}, false, fmt.Errorf("%w: the answer is not readable: %w", ErrNoAnswer, err)
	}
	return a, true, nil
}

// answered: the answer of a command sent from here is in.
func (r *Relay) answered(id string) {
	r.mu.Lock()
	w := r.waiters[id]
	r.mu.Unlock()
	if w != nil {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// runCommand takes a command sent here (only while it is pending and
// before its deadline: a command its sender withdrew or gave up on never
// runs), executes it and writes the answer, notifying the sender.
func (r *Relay) runCommand(id string) {
	ctx := r.ctx
	var cmd Command
	var payload []byte
	err := r.cfg.Pool.QueryRow(ctx, `UPDATE fleet_commands SET state = 'running'
		WHERE id = $1 AND target = $2 AND state = 'pending' AND deadline > now()
		RETURNING origin, action, session_id, payload`, id, r.cfg.Self).Scan(&cmd.Origin, &cmd.Action, &cmd.SessionID, &payload)
	if errors.Is(err, pgx.ErrNoRows) {
		return // withdrawn, expired, or taken by an earlier wake-up
	}
	if err != nil {
		if ctx.Err() == nil {
			r.cfg.Logger.Warn("fleet relay: taking a forwarded command failed", zap.String("command_id", id), zap.Error(err))
		}
		return
	}
	cmd.ID, cmd.Target, cmd.Payload = id, r.cfg.Self, payload
	var a Answer
	if r.cfg.Execute == nil {
		a.Error, _ = json.Marshal(map[string]string{"code": "UNAVAILABLE", "message": "this daemon does not execute forwarded commands"})
	} else {
		ectx, cancel := context.WithTimeout(ctx, r.cfg.CommandTimeout)
		a = r.cfg.Execute(ectx, cmd)
		cancel()
	}
	raw, err := json.Marshal(a)
	if err != nil {
		raw = []byte(`{"error":{"code":"INTERNAL_ERROR","message":"the answer could not be encoded"}}`)
	}
	// Written even while shutting down: the command ran.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := r.cfg.Pool.Exec(wctx, `WITH a AS (
			UPDATE fleet_commands SET state = 'done', answer = $2, answered_at = now() WHERE id = $1 RETURNING origin)
		SELECT pg_notify('`+answersChannel+`', origin || ' ' || $1) FROM a`, id, string(raw)); err != nil {
		r.cfg.Logger.Warn("fleet relay: writing a command's answer failed; its sender reports no answer",
			zap.String("command_id", id), zap.String("action", cmd.Action), zap.Error(err))
	}
}

// runPending runs the commands sent here that are still pending: those
// whose notification came while the listener was away.
func (r *Relay) runPending() {
	rows, err := r.cfg.Pool.Query(r.ctx, `SELECT id FROM fleet_commands
		WHERE target = $1 AND state = 'pending' AND deadline > now() ORDER BY created_at`, r.cfg.Self)
	if err != nil {
		if r.ctx.Err() == nil {
			r.cfg.Logger.Warn("fleet relay: listing pending commands failed", zap.Error(err))
		}
		return
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, id := range ids {
		r.runCommand(id) // in order: a prompt and the stop after it
	}
}

// sweepCommands deletes rows no sender will read any more: answered,
// withdrawn or abandoned long ago (a sender that died mid-wait).
func (r *Relay) sweepCommands() {
	if _, err := r.cfg.Pool.Exec(r.ctx, `DELETE FROM fleet_commands WHERE deadline < now() - interval '1 hour'`); err != nil && r.ctx.Err() == nil {
		r.cfg.Logger.Debug("fleet relay: sweeping old commands failed", zap.Error(err))
	}
}

// splitNotice reads "<daemon> <id>".
func splitNotice(payload string) (daemon, id string, ok bool) {
	daemon, id, ok = strings.Cut(payload, " ")
	return daemon, id, ok && daemon != "" && id != ""
}
