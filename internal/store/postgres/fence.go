package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/orchestratord/orchestratord/internal/store"
)

// Option changes how Open connects.
type Option func(*pgxpool.Config)

// fenceGUC is the connection setting that names the daemon of a fleet
// whose writes the events_fenced trigger checks (migration 0005).
const fenceGUC = "orchd.daemon"

// AsDaemon makes every connection of the store one of fleet daemon id
// (--fleet): each event it appends is fenced by the session's lease, in
// the statement that appends it — refused with store.ErrNotOwner unless
// id holds the session's lease in fleet_leases (internal/fleet). Without
// it (a daemon alone on its database, migrate-store) nothing is fenced.
func AsDaemon(id string) Option {
	return func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams[fenceGUC] = id
	}
}

// notOwned is the SQLSTATE the fence trigger raises.
const notOwned = "OD002" // OD001 is orchestratord_assert's (migration 0006)

// fenced maps the fence trigger's refusal to store.ErrNotOwner.
func fenced(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == notOwned && !errors.Is(err, store.ErrNotOwner) {
		return fmt.Errorf("%w: %s", store.ErrNotOwner, pe.Message)
	}
	return err
}
