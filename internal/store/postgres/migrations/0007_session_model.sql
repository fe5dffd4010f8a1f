-- 0007: the model a session's agent reported over ACP (the SQLite store's
-- 0007); '' when it reported none.

ALTER TABLE sessions ADD COLUMN model text NOT NULL DEFAULT '';
