-- 0007: the model a session's agent reported over ACP (its id, e.g.
-- "gpt-5.4"), shown with the task; '' when it reported none. Written by
-- SetSessionModel when an agent process starts or announces another model.

ALTER TABLE sessions ADD COLUMN model TEXT NOT NULL DEFAULT '';
