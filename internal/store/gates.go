package store

import (
	"context"
	"fmt"
)

const gateColumns = `key, state, opened_at, next_probe_at, failed_probes, probes_sent, updated_at`

func scanGate(s scanner) (Gate, error) {
	var g Gate
	var opened, next, updated string
	if err := s.Scan(&g.Key, &g.State, &opened, &next, &g.FailedProbes, &g.ProbesSent, &updated); err != nil {
		return Gate{}, err
	}
	var err error
	if g.OpenedAt, err = parseTime(opened); err != nil {
		return Gate{}, err
	}
	if g.NextProbeAt, err = parseTime(next); err != nil {
		return Gate{}, err
	}
	if g.UpdatedAt, err = parseTime(updated); err != nil {
		return Gate{}, err
	}
	return g, nil
}

// SaveGate inserts or replaces the row of an open gate.
func (db *DB) SaveGate(ctx context.Context, g Gate) error {
	if g.Key == "" {
		return fmt.Errorf("store: save gate: %w: gate without key", ErrInvalid)
	}
	if g.State != GateOpen {
		return fmt.Errorf("store: save gate %s: %w: state %q (only open gates are stored)", g.Key, ErrInvalid, g.State)
	}
	_, err := db.exec(ctx, `INSERT INTO overload_gates (`+gateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET state = excluded.state, opened_at = excluded.opened_at,
			next_probe_at = excluded.next_probe_at, failed_probes = excluded.failed_probes,
			probes_sent = excluded.probes_sent, updated_at = excluded.updated_at`,
		g.Key, g.State, fmtTime(g.OpenedAt), fmtTime(g.NextProbeAt), g.FailedProbes, g.ProbesSent, fmtTime(g.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: save gate %s: %w", g.Key, err)
	}
	return nil
}

// DeleteGate removes a gate's row (it closed). A missing row is not an error.
func (db *DB) DeleteGate(ctx context.Context, key string) error {
	if _, err := db.exec(ctx, `DELETE FROM overload_gates WHERE key = ?`, key); err != nil {
		return fmt.Errorf("store: delete gate %s: %w", key, err)
	}
	return nil
}

// ListGates returns every stored (open) gate by key. The result is never nil.
func (db *DB) ListGates(ctx context.Context) ([]Gate, error) {
	out := []Gate{}
	err := db.query(ctx, func(s scanner) error {
		g, err := scanGate(s)
		out = append(out, g)
		return err
	}, `SELECT `+gateColumns+` FROM overload_gates ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("store: list gates: %w", err)
	}
	return out, nil
}
