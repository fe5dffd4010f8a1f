-- 0001: the schema of internal/store's SQLite migrations 0001–0004, in PostgreSQL.
--
-- Conventions (the same as the SQLite store's, so a copy between them is exact):
--   * Times are text in a fixed-width UTC form, 2006-01-02T15:04:05.000000000Z:
--     exact to the nanosecond (timestamptz keeps microseconds) and ordered
--     correctly by plain comparison; every column is COLLATE "C" so that
--     comparison is bytewise whatever the database's locale.
--   * The event log's JSON (events.payload, executions.evidence and
--     classification) is json, kept verbatim; JSON that is decoded on read
--     (metadata, actions, extra) is jsonb. NULL is "absent".
--   * tasks, sessions and executions carry a row number (an identity
--     column) that breaks ties between equal created_at, as SQLite's rowid does.
--   * Nothing cascades: the store never deletes a task or a session.

CREATE TABLE tasks (
    row_id           bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id               text COLLATE "C" NOT NULL PRIMARY KEY,
    title            text   NOT NULL,
    agent            text   NOT NULL,
    workdir          text   NOT NULL,
    max_attempts     bigint NOT NULL DEFAULT 0,
    state            text   NOT NULL,
    created_at       text COLLATE "C" NOT NULL,
    updated_at       text COLLATE "C" NOT NULL,
    gate_deadline_ns bigint NOT NULL DEFAULT 0 CHECK (gate_deadline_ns >= 0)
);

-- ListTasks and ListTaskPage are newest first.
CREATE INDEX tasks_by_created ON tasks (created_at, row_id);

CREATE TABLE sessions (
    row_id           bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id               text COLLATE "C" NOT NULL PRIMARY KEY,
    task_id          text COLLATE "C" NOT NULL REFERENCES tasks (id),
    state            text   NOT NULL,
    agent_session_id text   NOT NULL DEFAULT '',
    generation       bigint NOT NULL DEFAULT 0,
    last_seq         bigint NOT NULL DEFAULT 0, -- seq of the newest event; advanced only by AppendEvent
    created_at       text COLLATE "C" NOT NULL,
    updated_at       text COLLATE "C" NOT NULL
);

CREATE INDEX sessions_by_task ON sessions (task_id, created_at, row_id);

CREATE TABLE messages (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    session_id text COLLATE "C" NOT NULL REFERENCES sessions (id),
    turn_id    text   NOT NULL DEFAULT '',
    seq        bigint NOT NULL,
    role       text   NOT NULL,
    variant    text   NOT NULL DEFAULT '',
    text       text   NOT NULL DEFAULT '',
    metadata   jsonb,
    actions    jsonb,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
);

CREATE INDEX messages_by_session ON messages (session_id, seq, id);

CREATE TABLE events (
    session_id text COLLATE "C" NOT NULL REFERENCES sessions (id),
    seq        bigint NOT NULL,
    type       text   NOT NULL,
    payload    json,
    at         text COLLATE "C" NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE message_chunks (
    message_id text COLLATE "C" NOT NULL REFERENCES messages (id),
    seq        bigint NOT NULL, -- the event that appended it
    text       text   NOT NULL,
    PRIMARY KEY (message_id, seq)
);

CREATE TABLE executions (
    row_id         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id             text COLLATE "C" NOT NULL PRIMARY KEY,
    session_id     text COLLATE "C" NOT NULL REFERENCES sessions (id),
    generation     bigint NOT NULL,
    attempt        bigint NOT NULL,
    started_at     text COLLATE "C" NOT NULL,
    ended_at       text COLLATE "C", -- NULL while running
    outcome        text   NOT NULL DEFAULT '',
    evidence       json,
    classification json
);

CREATE INDEX executions_by_session ON executions (session_id, started_at, row_id);

CREATE TABLE pending_retries (
    session_id   text COLLATE "C" NOT NULL PRIMARY KEY REFERENCES sessions (id),
    task_id      text COLLATE "C" NOT NULL REFERENCES tasks (id),
    generation   bigint  NOT NULL,
    attempt      bigint  NOT NULL,
    max_attempts bigint  NOT NULL,
    code         text    NOT NULL DEFAULT '',
    rule_id      text    NOT NULL DEFAULT '',
    retry_at     text COLLATE "C" NOT NULL,
    prompt       text    NOT NULL DEFAULT '',
    resume       boolean NOT NULL DEFAULT false,
    notice_id    text    NOT NULL DEFAULT '',
    state        text    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dispatching')),
    extra        jsonb,
    created_at   text COLLATE "C" NOT NULL
);

CREATE INDEX pending_retries_by_retry_at ON pending_retries (retry_at, session_id);

CREATE TABLE overload_gates (
    key           text COLLATE "C" NOT NULL PRIMARY KEY,
    state         text   NOT NULL CHECK (state IN ('open')),
    opened_at     text COLLATE "C" NOT NULL,
    next_probe_at text COLLATE "C" NOT NULL,
    failed_probes bigint NOT NULL DEFAULT 0,
    probes_sent   bigint NOT NULL DEFAULT 0,
    updated_at    text COLLATE "C" NOT NULL
);
