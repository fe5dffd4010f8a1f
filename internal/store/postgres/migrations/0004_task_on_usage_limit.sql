-- 0004: what a task does when its provider's usage window is exhausted
-- (the SQLite store's 0006): 'wait', 'ask', or '' for the daemon's default.

ALTER TABLE tasks ADD COLUMN on_usage_limit text NOT NULL DEFAULT '' CHECK (on_usage_limit IN ('', 'wait', 'ask'));
