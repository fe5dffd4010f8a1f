package postgres

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orchestratord/orchestratord/internal/store"
)

// maxGroup bounds how many writes share one commit, so the first of a
// group never waits long for the last.
const maxGroup = 256

// stmt is one statement of a write. A write that must stop half-way (a
// seq that is not the next one, a retry already claimed) says so from
// inside the database: its check is a call of orchestratord_assert, which
// raises errCheck, so the server rolls the write back and skips whatever
// follows it; fail turns that error, or any other of this statement's
// errors, into the caller's.
type stmt struct {
	sql  string
	args []any
	fail func(error) error
	// before runs ahead of the statement in the write's transaction (the
	// scrub of a deleted message's text, which is read and rewritten in
	// Go). A write with one runs on its own, not in a group.
	before func(ctx context.Context, tx pgx.Tx) error

	// alone is the statement as it runs when it is a group's only one,
	// in autocommit, with async (a streamed chunk) included: one statement
	// instead of four (BEGIN, set_config, it, COMMIT). Empty: sql.
	alone string

	tag pgconn.CommandTag // the statement's result, once run
}

// checkCode is the SQLSTATE that orchestratord_assert raises (migration
// 0006): a write's own check failed, not the database.
const checkCode = "OD001"

// failed reports whether err is the raise of orchestratord_assert.
func failed(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == checkCode
}

// job is one caller's write, waiting for the committer.
type job struct {
	ctx   context.Context
	stmts []*stmt
	// async: the write may commit without waiting for its WAL flush (a
	// streamed chunk; see Open).
	async bool
	done  chan error // buffered: the committer never blocks on a reply
}

// The committers take every write queued while their previous commit ran
// and send them to the server as one pgx.Batch — BEGIN, every write's
// statements, COMMIT — in one round trip and one commit, so that many
// sessions writing at once (500 streams, the overload gate releasing its
// waiters) share round trips and WAL flushes instead of queueing on the
// pool for one each. A lone write is the same batch of one: one round
// trip, as a single autocommit statement was.
//
// A write whose statement fails (its check raised, or a key was
// violated) alone gets the error: the group's transaction is rolled back
// and the others run again without it, so one caller's seq conflict never
// fails another's write. A deadlock or serialization failure runs the
// group again. The async writes of a group (streamed chunks) commit in a
// transaction of their own ahead of the durable ones, so that a chunk
// never waits for another write's WAL flush.
func (db *DB) startCommitter() {
	db.jobs = make(chan *job)
	db.stopCommit = make(chan struct{})
	for range committers {
		db.commitWG.Go(db.commitLoop)
	}
}

// committers: two, so that one group can run on the server while the
// next is collected and sent (a durable group spends most of its time
// waiting for its WAL flush).
const committers = 2

// stopCommitter lets the groups in flight finish, then stops the
// committers; writers still queued get ErrClosed.
func (db *DB) stopCommitter() {
	if db.stopCommit == nil {
		return
	}
	close(db.stopCommit)
	db.commitWG.Wait()
}

func (db *DB) commitLoop() {
	group := make([]*job, 0, maxGroup)
	for {
		select {
		case <-db.stopCommit:
			return
		case j := <-db.jobs:
			group = append(group[:0], j)
		}
	collect:
		for len(group) < maxGroup {
			select {
			case j := <-db.jobs:
				group = append(group, j)
			default:
				break collect
			}
		}
		db.commitGroup(group)
		clear(group)
	}
}

// commitGroup answers every job of group exactly once.
func (db *DB) commitGroup(group []*job) {
	var async, durable []*job
	for _, j := range group {
		switch {
		case j.ctx.Err() != nil:
			j.done <- j.ctx.Err() // gave up before its turn; nothing ran
		case j.async:
			async = append(async, j)
		default:
			durable = append(durable, j)
		}
	}
	db.commitJobs(async, true)
	db.commitJobs(durable, false)
}

// commitJobs commits live in one transaction, the failing ones left out.
func (db *DB) commitJobs(live []*job, async bool) {
	for tries := 0; len(live) > 0; {
		k, err := db.runBatch(live, async)
		switch {
		case err == nil:
			for _, j := range live {
				j.done <- nil
			}
			return
		case retryable(err) && tries < 3:
			tries++ // a deadlock with another transaction: the whole group again
		case k >= 0:
			// Job k's own statement failed: it alone gets the error; the
			// others, rolled back with it, run again without it.
			live[k].done <- err
			live = append(live[:k:k], live[k+1:]...)
		case len(live) == 1 || !isStatementError(err):
			// The connection failed: whether the commit happened is not
			// known, so nothing runs again (a claim must not be made
			// twice); every write gets the error.
			for _, j := range live {
				j.done <- err
			}
			return
		default:
			// The group as a whole was refused (its commit, or a statement
			// the server could not even prepare): nothing of it happened,
			// so each write runs again alone and gets its own answer.
			for _, j := range live {
				db.commitJobs([]*job{j}, async)
			}
			return
		}
	}
}

// runBatch runs live in one transaction, as one batch. On an error, k is
// the job whose statement failed (the transaction was rolled back), or -1
// when it is not one job's (the commit itself, the connection).
func (db *DB) runBatch(live []*job, async bool) (k int, err error) {
	ctx, cancel := groupContext(live)
	defer cancel()
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return -1, err
	}
	defer c.Release()
	if len(live) == 1 && len(live[0].stmts) == 1 {
		// A lone write of one statement (a chunk, a claim): autocommit.
		s := live[0].stmts[0]
		sql := s.sql
		if async && s.alone != "" {
			sql = s.alone
		}
		if s.tag, err = c.Exec(ctx, sql, s.args...); err != nil {
			if !isStatementError(err) {
				return -1, err
			}
			if s.fail != nil {
				err = s.fail(err)
			}
			return 0, err
		}
		return -1, nil
	}
	b := &pgx.Batch{}
	at := -1 // the statement whose result is being read, and k its job
	k = -1
	queue := func(job int, sql string, args []any, tag *pgconn.CommandTag) {
		i := b.Len()
		b.Queue(sql, args...).Fn = func(br pgx.BatchResults) error {
			at, k = i, job
			t, err := br.Exec()
			if tag != nil {
				*tag = t
			}
			return err
		}
	}
	queue(-1, "BEGIN", nil, nil)
	if async {
		queue(-1, "SELECT set_config('synchronous_commit', 'off', true)", nil, nil)
	}
	var fails []func(error) error
	for ji, j := range live {
		for _, s := range j.stmts {
			queue(ji, s.sql, s.args, &s.tag)
			fails = append(fails, s.fail)
		}
	}
	queue(-1, "COMMIT", nil, nil)
	err = c.SendBatch(ctx, b).Close()
	if err == nil {
		return -1, nil
	}
	db.rollback(ctx, c)
	if k < 0 || !isStatementError(err) {
		return -1, err
	}
	// at is the failed statement; its index among the jobs' statements is
	// at less BEGIN and set_config.
	if fail := fails[at-1-btoi(async)]; fail != nil {
		err = fail(err)
	}
	return k, err
}

// groupContext is done when every job's context is: a started group is
// not interrupted while anyone still waits for it (one caller giving up
// must not fail the others), but a server that hangs does not hold a
// group whose callers have all gone.
func groupContext(live []*job) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	waiting := int64(len(live))
	var mu sync.Mutex
	stops := make([]func() bool, 0, len(live))
	for _, j := range live {
		stops = append(stops, context.AfterFunc(j.ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			if waiting--; waiting == 0 {
				cancel()
			}
		}))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// rollback ends the transaction of a batch that failed half-way (the
// server skipped the rest of it, COMMIT included).
func (db *DB) rollback(ctx context.Context, c *pgxpool.Conn) {
	if pc := c.Conn().PgConn(); !pc.IsClosed() && pc.TxStatus() != 'I' {
		if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
			_ = pc.Close(ctx) // the pool drops it
		}
	}
}

// isStatementError: the server refused a statement (not the connection).
func isStatementError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && !isStorageFault(err)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// submit queues a write for the committers and waits for its answer;
// ctx bounds the wait for its turn, but a write that has started is not
// interrupted. Every statement of stmts runs in order, in one transaction,
// all or nothing.
func (db *DB) submit(ctx context.Context, async bool, stmts ...*stmt) error {
	if err := db.usable(ctx); err != nil {
		return err
	}
	for _, s := range stmts {
		if s.before != nil {
			return db.runAlone(ctx, stmts)
		}
	}
	j := &job{ctx: ctx, stmts: stmts, async: async && db.asyncChunks, done: make(chan error, 1)}
	select {
	case db.jobs <- j:
	case <-db.stopCommit:
		return store.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return db.fail(ctx, db.note(<-j.done))
}

// runAlone runs stmts in a transaction of their own, with their before
// hooks, statement by statement.
func (db *DB) runAlone(ctx context.Context, stmts []*stmt) error {
	return db.write(ctx, func(tx pgx.Tx) error {
		for _, s := range stmts {
			if s.before != nil {
				if err := s.before(ctx, tx); err != nil {
					return err
				}
			}
			tag, err := tx.Exec(ctx, s.sql, s.args...)
			if err != nil {
				if s.fail != nil && !retryable(err) {
					return s.fail(err)
				}
				return err
			}
			s.tag = tag
		}
		return nil
	})
}

// check is a statement with a check: sql ends in a SELECT of
// orchestratord_assert, whose failure is err; its other errors are
// mapped by mapConstraint.
func check(what, sql string, err error, args ...any) *stmt {
	return &stmt{sql: sql, args: args, fail: func(e error) error {
		if failed(e) {
			return err
		}
		return mapConstraint(e, what)
	}}
}

// plain is a statement whose errors are mapped by mapConstraint.
func plain(what, sql string, args ...any) *stmt {
	return &stmt{sql: sql, args: args, fail: func(e error) error { return mapConstraint(e, what) }}
}
