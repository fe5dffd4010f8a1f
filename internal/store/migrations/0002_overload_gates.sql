-- 0002: provider overload gates (internal/overload).
--
-- One row per open gate: what a restart needs to carry on where it stood
-- (when it opened, how many probes failed, when the next one is due). The
-- sessions waiting on a gate are not listed here: each keeps its own row in
-- pending_retries, with the gate key in extra. A closed gate has no row.

CREATE TABLE overload_gates (
    key           TEXT    NOT NULL PRIMARY KEY, -- agent profile (and model)
    state         TEXT    NOT NULL CHECK (state IN ('open')),
    opened_at     TEXT    NOT NULL,
    next_probe_at TEXT    NOT NULL,
    failed_probes INTEGER NOT NULL DEFAULT 0,
    probes_sent   INTEGER NOT NULL DEFAULT 0,
    updated_at    TEXT    NOT NULL
) STRICT;
