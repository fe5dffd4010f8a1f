package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// routeLeaseKind is the kind of the lease by which a daemon owns a
// session (fleet_leases: key the session id, holder the owner's daemon id).
const routeLeaseKind = "session"

// Route says where a session runs, as this daemon must treat it.
type Route struct {
	// Owner is the daemon id of the session's owner when it is another
	// daemon; "" when the session is this daemon's to run (it holds the
	// lease, or nobody does).
	Owner string
	// Gone: the owner's lease ran out (it died or lost the database) and
	// nobody has taken the session over yet; commands cannot reach it.
	Gone bool
	// Here: this daemon holds the session's lease; it writes its events.
	// (Owner "" and not Here: nobody runs it now; whoever takes it next
	// writes them.)
	Here bool
}

// Route reads the session's owner from its lease.
func (r *Relay) Route(ctx context.Context, sessionID string) (Route, error) {
	return r.route(ctx, sessionID, `SELECT holder, expires_at > now() FROM fleet_leases WHERE kind = $1 AND key = $2`, routeLeaseKind, sessionID)
}

// RouteTask is Route for the task's newest session: the one whose events a
// change of the task (task.update, task.delete) writes.
func (r *Relay) RouteTask(ctx context.Context, taskID string) (Route, error) {
	return r.route(ctx, taskID, `SELECT l.holder, l.expires_at > now()
		FROM (SELECT id FROM sessions WHERE task_id = $2 ORDER BY row_id DESC LIMIT 1) s
		JOIN fleet_leases l ON l.kind = $1 AND l.key = s.id`, routeLeaseKind, taskID)
}

func (r *Relay) route(ctx context.Context, id, query string, args ...any) (Route, error) {
	var holder string
	var live bool
	err := r.cfg.Pool.QueryRow(ctx, query, args...).Scan(&holder, &live)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Route{}, nil
	case err != nil:
		return Route{}, fmt.Errorf("%w: read the owner of %s: %w", ErrUnavailable, id, err)
	case holder == r.cfg.Self:
		return Route{Here: live}, nil
	case holder == "":
		return Route{}, nil
	}
	return Route{Owner: holder, Gone: !live}, nil
}
