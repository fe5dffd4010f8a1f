-- 0001: the initial schema.
--
-- Conventions for every table:
--   * STRICT, so a wrong type is an error rather than a silent coercion.
--   * Times are TEXT in a fixed-width UTC form, 2006-01-02T15:04:05.000000000Z:
--     exact to the nanosecond, readable in the sqlite3 shell, and ordered
--     correctly by plain text comparison (RFC 3339 with trimmed fractions is not).
--   * JSON columns (metadata, actions, payload, evidence, classification,
--     extra) are TEXT holding one JSON value, or NULL for "absent".
--   * Nothing cascades: the store never deletes a task or a session, and a
--     foreign key that still points somewhere is a bug worth an error.

CREATE TABLE tasks (
    id           TEXT    NOT NULL PRIMARY KEY,
    title        TEXT    NOT NULL,
    agent        TEXT    NOT NULL,
    workdir      TEXT    NOT NULL,
    max_attempts INTEGER NOT NULL DEFAULT 0, -- 0 = unset (policy budget)
    state        TEXT    NOT NULL,
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL
) STRICT;

-- ListTasks is newest first.
CREATE INDEX tasks_by_created ON tasks (created_at);

CREATE TABLE sessions (
    id               TEXT    NOT NULL PRIMARY KEY,
    task_id          TEXT    NOT NULL REFERENCES tasks (id),
    state            TEXT    NOT NULL,
    agent_session_id TEXT    NOT NULL DEFAULT '',
    generation       INTEGER NOT NULL DEFAULT 0,
    last_seq         INTEGER NOT NULL DEFAULT 0, -- seq of the newest event; advanced only by AppendEvent
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL
) STRICT;

CREATE INDEX sessions_by_task ON sessions (task_id, created_at);

-- The current state of each chat item. seq is the seq of the event that
-- created the message and never changes afterwards; it orders the chat.
CREATE TABLE messages (
    id         TEXT    NOT NULL PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    turn_id    TEXT    NOT NULL DEFAULT '',
    seq        INTEGER NOT NULL,
    role       TEXT    NOT NULL,
    variant    TEXT    NOT NULL DEFAULT '',
    text       TEXT    NOT NULL DEFAULT '',
    metadata   TEXT,
    actions    TEXT,
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
) STRICT;

CREATE INDEX messages_by_session ON messages (session_id, seq);

-- The append-only per-session event log. WITHOUT ROWID clusters each
-- session's events by seq, so a replay after_seq is one range scan.
CREATE TABLE events (
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    seq        INTEGER NOT NULL,
    type       TEXT    NOT NULL,
    payload    TEXT,
    at         TEXT    NOT NULL,
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

-- One row per agent process run.
CREATE TABLE executions (
    id             TEXT    NOT NULL PRIMARY KEY,
    session_id     TEXT    NOT NULL REFERENCES sessions (id),
    generation     INTEGER NOT NULL,
    attempt        INTEGER NOT NULL,
    started_at     TEXT    NOT NULL,
    ended_at       TEXT,   -- NULL while running
    outcome        TEXT    NOT NULL DEFAULT '',
    evidence       TEXT,
    classification TEXT
) STRICT;

CREATE INDEX executions_by_session ON executions (session_id, started_at);

-- At most one parked retry per session. state moves pending → dispatching
-- exactly once (ClaimPendingRetry); a row still dispatching at start-up was
-- interrupted by a crash.
CREATE TABLE pending_retries (
    session_id   TEXT    NOT NULL PRIMARY KEY REFERENCES sessions (id),
    task_id      TEXT    NOT NULL REFERENCES tasks (id),
    generation   INTEGER NOT NULL,
    attempt      INTEGER NOT NULL,
    max_attempts INTEGER NOT NULL,
    code         TEXT    NOT NULL DEFAULT '',
    rule_id      TEXT    NOT NULL DEFAULT '',
    retry_at     TEXT    NOT NULL,
    prompt       TEXT    NOT NULL DEFAULT '',
    resume       INTEGER NOT NULL DEFAULT 0 CHECK (resume IN (0, 1)),
    notice_id    TEXT    NOT NULL DEFAULT '',
    state        TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dispatching')),
    extra        TEXT,
    created_at   TEXT    NOT NULL
) STRICT;

-- Re-arming at start-up walks retries by due time.
CREATE INDEX pending_retries_by_retry_at ON pending_retries (retry_at);
