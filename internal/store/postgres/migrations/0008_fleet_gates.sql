-- 0008: the fleet's overload gates (internal/fleet gates.go), PostgreSQL
-- only: in a fleet the gate of a provider key is one for every daemon. The
-- SQLite store keeps its daemon's gates in overload_gates, as before.
--
-- One row per open gate. opened_at identifies this opening (a daemon that
-- followed it and finds another opened_at knows it closed in between);
-- next_probe_at, failed_probes and probes_sent are the probe schedule,
-- written by the daemon holding the probe right (the lease ('gate', key)
-- in fleet_leases). These times are the writing daemon's clock, as in
-- overload_gates: only the prober acts on them, and only leases must agree.
CREATE TABLE fleet_gates (
    key           text COLLATE "C" NOT NULL PRIMARY KEY,
    opened_at     timestamptz NOT NULL,
    next_probe_at timestamptz NOT NULL,
    failed_probes integer     NOT NULL DEFAULT 0 CHECK (failed_probes >= 0),
    probes_sent   integer     NOT NULL DEFAULT 0 CHECK (probes_sent >= 0),
    code          text        NOT NULL DEFAULT '',
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- How many sessions wait on each open gate on each daemon: they count in
-- the probe cadence (n waiting in the fleet probe n times as often). A row
-- lives until expires_at (database clock), renewed while its daemon lives.
CREATE TABLE fleet_gate_waiters (
    key        text COLLATE "C" NOT NULL,
    daemon     text COLLATE "C" NOT NULL,
    opened_at  timestamptz NOT NULL,
    waiting    integer     NOT NULL CHECK (waiting >= 0),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (key, daemon)
);
