-- 0010: session ownership in a fleet (issue 17), PostgreSQL only.
--
-- Fencing: a daemon of a fleet connects with orchd.daemon set to its id
-- (postgres.AsDaemon). Every event it writes is checked, in the statement
-- that writes it, against the session's lease (fleet_leases kind
-- 'session'): only the lease's holder may append to a session's log. The
-- lease row is read FOR KEY SHARE: a takeover (TakeExpired, FOR UPDATE
-- SKIP LOCKED) passes over a lease whose holder has a write in flight and
-- takes it at its next look, and a write that starts after the takeover
-- sees the new holder and is refused — the taker, which reads the session
-- after its takeover committed, never misses an event of the old owner,
-- and the old owner never writes past it. A renewal (an UPDATE of
-- expires_at, no key) never waits for the writes. Connections without
-- orchd.daemon (a daemon alone on its database, migrate-store) are not
-- fenced: the advisory lock keeps them apart from a fleet.
CREATE FUNCTION orchd_fence_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    me text := current_setting('orchd.daemon', true);
BEGIN
    IF me IS NULL OR me = '' THEN
        RETURN NEW;
    END IF;
    PERFORM 1 FROM fleet_leases
        WHERE kind = 'session' AND key = NEW.session_id AND holder = me
        FOR KEY SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'session % is not owned by daemon %', NEW.session_id, me
            USING ERRCODE = 'OD002', HINT = 'its lease passed to another daemon of the fleet';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER events_fenced BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION orchd_fence_event();

-- A task placed on another daemon than the one that received task.create
-- (placement): its first prompt waits here until that daemon starts it
-- (it polls on its heartbeat tick), or, should it die first, the daemon
-- that takes over the session's lease. The row is deleted once the turn
-- has started (its user message is in the log), so a start is never lost
-- and never made twice: a row whose session already has events is a turn
-- that started.
CREATE TABLE fleet_starts (
    session_id text COLLATE "C" NOT NULL PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    daemon     text COLLATE "C" NOT NULL,
    prompt     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX fleet_starts_by_daemon ON fleet_starts (daemon, created_at);
