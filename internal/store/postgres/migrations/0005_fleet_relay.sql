-- 0005: events and commands between the daemons of a fleet (internal/fleet
-- relay), PostgreSQL only, like 0003.
--
-- Events: every statement that inserts events sends, for each session it
-- wrote, one NOTIFY on orchestratord_events carrying "<session_id> <seq>"
-- (its highest seq): a wake-up with ids, never the data, which the
-- listening daemons read from the events table. A trigger, so the
-- notification rides in the writing transaction whatever the write path
-- (the single-statement chunk, a transaction, a group commit, a copy) and
-- is delivered at its commit, never before and never for a rollback.
CREATE FUNCTION orchestratord_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('orchestratord_events', n.session_id || ' ' || max(n.seq))
        FROM new_events n GROUP BY n.session_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_notify AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION orchestratord_events_notify();

-- Commands: a session command given to one daemon (origin) for a session
-- another daemon (target) owns. origin inserts the row and notifies
-- orchestratord_commands ("<target> <id>"); target claims it (pending →
-- running, only before deadline, so a command its sender gave up on never
-- runs), executes it and writes the answer (→ done), notifying
-- orchestratord_answers ("<origin> <id>"). A sender that gives up first
-- cancels it (pending → cancelled). Times are the database's clock.
CREATE TABLE fleet_commands (
    id          text COLLATE "C" NOT NULL PRIMARY KEY,
    origin      text COLLATE "C" NOT NULL,
    target      text COLLATE "C" NOT NULL,
    action      text        NOT NULL,
    session_id  text        NOT NULL DEFAULT '',
    payload     json        NOT NULL,
    state       text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'cancelled')),
    answer      json,
    created_at  timestamptz NOT NULL DEFAULT now(),
    deadline    timestamptz NOT NULL,
    answered_at timestamptz
);

CREATE INDEX fleet_commands_pending ON fleet_commands (target, created_at) WHERE state = 'pending';
