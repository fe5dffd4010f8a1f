package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

// daemonStore is what serve needs of a store: *store.DB and *postgres.DB.
type daemonStore interface {
	orchestrator.Store
	WriteHealth() store.WriteHealth
	Close() error
}

// storeKind names a --store value: "sqlite" (the data dir's file, the
// default) or a postgres:// URL.
func storeKind(spec string) (string, error) {
	switch {
	case spec == "" || spec == "sqlite":
		return "sqlite", nil
	case postgres.IsURL(spec):
		return "postgres", nil
	}
	return "", fmt.Errorf("--store must be sqlite or a postgres:// URL, got %q", redactStore(spec))
}

// openDaemonStore opens the store --store names; sqlite lives in dataDir.
// daemonID (--fleet): the database is shared with the fleet's other
// daemons, and this one's writes are fenced by its session leases.
func openDaemonStore(ctx context.Context, spec, dataDir, daemonID string) (daemonStore, error) {
	inFleet := daemonID != ""
	kind, err := storeKind(spec)
	if err != nil {
		return nil, err
	}
	if inFleet && kind != "postgres" {
		return nil, errors.New("--fleet needs a PostgreSQL store (--store postgres://…): the daemons of a fleet share its database")
	}
	if kind == "postgres" {
		var opts []postgres.Option
		if inFleet {
			opts = append(opts, postgres.AsDaemon(daemonID))
		}
		db, err := postgres.Open(ctx, spec, opts...)
		if err != nil {
			return nil, err
		}
		// One daemon per database, as one per data dir; or one fleet.
		mode := postgres.OwnAlone
		if inFleet {
			mode = postgres.OwnShared
		}
		if err := db.Own(ctx, mode); err != nil {
			_ = db.Close()
			return nil, err
		}
		return db, nil
	}
	db, err := store.Open(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// redactStore is a --store value fit for logs: a URL without its password.
func redactStore(spec string) string {
	if postgres.IsURL(spec) {
		return postgres.Redact(spec)
	}
	if i := strings.Index(spec, "password="); i >= 0 {
		return spec[:i] + "password=xxxxx"
	}
	return spec
}
