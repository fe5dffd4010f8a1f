// Package fleet is the membership of a fleet of orchestratord daemons that
// share one PostgreSQL database (issue 17): each daemon's stable identity,
// its heartbeat lease in fleet_members, the listing of live and expired
// members, and a generic row lease (fleet_leases) on which session
// ownership and failover are built.
//
// PostgreSQL is the coordinator: every expiry is computed by the
// database's clock (now() + interval), never a daemon's, so daemons whose
// clocks disagree still agree on who holds what. A daemon on the SQLite
// store is a fleet of one (Local).
package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// IDFile is the daemon id's file in the data dir.
const IDFile = "daemon-id"

// LoadID returns the daemon's stable id, kept in dataDir/daemon-id (0600):
// created once, on first start, and read on every start after. A file that
// does not hold a uuid is an error rather than replaced: the id names this
// daemon's leases, and a new one would orphan them.
func LoadID(dataDir string) (string, error) {
	path := filepath.Join(dataDir, IDFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		id := strings.TrimSpace(string(b))
		if _, perr := uuid.Parse(id); perr != nil {
			return "", fmt.Errorf("fleet: %s does not hold a daemon id (a uuid): %q; remove it to get a new one", path, truncate(id, 40))
		}
		return id, nil
	case !errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("fleet: read daemon id: %w", err)
	}
	id := uuid.NewString()
	// Written to a temporary file and linked into place: two starts racing
	// on an empty data dir (the data dir's lock prevents it, but cheaply)
	// agree on one id, and a crash never leaves a half-written file.
	tmp, err := os.CreateTemp(dataDir, IDFile+".tmp*")
	if err != nil {
		return "", fmt.Errorf("fleet: create daemon id: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.WriteString(id + "\n"); err != nil {
		_ = tmp.Close()
		return "", fmt.Errorf("fleet: write daemon id: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return "", fmt.Errorf("fleet: write daemon id: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return "", fmt.Errorf("fleet: write daemon id: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("fleet: write daemon id: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return LoadID(dataDir)
		}
		return "", fmt.Errorf("fleet: write daemon id: %w", err)
	}
	return id, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Identity is what a daemon advertises to its fleet.
type Identity struct {
	// ID is the stable daemon id (LoadID).
	ID string
	// Addr is the address other daemons and clients reach it at
	// (host:port of its listener).
	Addr string
	// Hostname is the machine's name, for people.
	Hostname string
	// Profiles are the agent profiles it can run.
	Profiles []string
	// MaxAgents is its --max-agents.
	MaxAgents int
}

func (id Identity) validate() error {
	if _, err := uuid.Parse(id.ID); err != nil {
		return fmt.Errorf("fleet: daemon id must be a uuid, got %q", id.ID)
	}
	if id.MaxAgents < 0 {
		return fmt.Errorf("fleet: max agents must not be negative, got %d", id.MaxAgents)
	}
	return nil
}
