package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// Every query of the store runs as a prepared statement. Compiling the SQL
// cost about as much as running it: releasing 1,000 sessions from an
// overload gate spent 12% of its CPU in sqlite3Prepare, most of it for
// reads (a session's messages, its task) and the writes outside
// AppendEvent (executions, sealing a reply). Reads are prepared on first
// use on the read pool (database/sql prepares each statement once per
// connection and keeps it); writes on the writer connection, always
// outside the committer's transaction, since that connection is its only
// one. The queries are the store's constants, so the caches stay small.
type stmtCache struct {
	mu     sync.Mutex // guards m, closed
	m      map[string]*sql.Stmt
	closed bool
}

// get returns the statement of query, preparing it on p the first time.
func (c *stmtCache) get(ctx context.Context, p *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	s, closed := c.m[query], c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if s != nil {
		return s, nil
	}
	// Prepared without the lock: on the writer it waits for the committer
	// to finish its transaction.
	s, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = s.Close()
		return nil, ErrClosed
	}
	if old := c.m[query]; old != nil {
		_ = s.Close() // prepared twice at once; keep the first
		return old, nil
	}
	if c.m == nil {
		c.m = make(map[string]*sql.Stmt)
	}
	c.m[query] = s
	return s, nil
}

func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, s := range c.m {
		errs = append(errs, s.Close())
	}
	c.m = nil
	return errors.Join(errs...)
}

// readStmt is query prepared on the read pool.
func (db *DB) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	return db.readStmts.get(ctx, db.r, query)
}

// writeStmt is query prepared on the writer connection. Never call it from
// inside a write (the committer holds that connection): fetch the
// statements first, then use them through tx.StmtContext.
func (db *DB) writeStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	return db.writeStmts.get(ctx, db.w, query)
}
