-- 0003: fleet membership and row leases (internal/fleet), PostgreSQL only:
-- a fleet of daemons shares one PostgreSQL database; the SQLite store has
-- one daemon by construction and no such tables.
--
-- Every time here is the database's clock (now()), never a daemon's: the
-- daemons of a fleet compare expiries written by each other, and their
-- clocks may disagree.

-- One row per daemon that ever joined, keyed by its stable id (the data
-- dir's daemon-id). A daemon is live while expires_at > now(); its heartbeat
-- renews expires_at every lease/3. stopped: it left cleanly (shutdown).
CREATE TABLE fleet_members (
    id           text COLLATE "C" NOT NULL PRIMARY KEY,
    addr         text        NOT NULL,
    hostname     text        NOT NULL DEFAULT '',
    profiles     text[]      NOT NULL DEFAULT '{}',
    max_agents   integer     NOT NULL DEFAULT 0 CHECK (max_agents >= 0),
    load         integer     NOT NULL DEFAULT 0 CHECK (load >= 0),
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    stopped      boolean     NOT NULL DEFAULT false
);

-- A lease on one row's worth of work (kind, key): a session's ownership, a
-- gate's probe. holder is a daemon id; fence grows by one on every change
-- of holder and is never reused (a release keeps the row), so a write
-- carrying an old fence can be refused. Expired leases are taken over with
-- FOR UPDATE SKIP LOCKED, so takers never wait for each other.
CREATE TABLE fleet_leases (
    kind        text COLLATE "C" NOT NULL,
    key         text COLLATE "C" NOT NULL,
    holder      text COLLATE "C" NOT NULL DEFAULT '',
    fence       bigint      NOT NULL DEFAULT 1,
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (kind, key)
);

CREATE INDEX fleet_leases_by_expiry ON fleet_leases (kind, expires_at);
CREATE INDEX fleet_leases_by_holder ON fleet_leases (holder);
