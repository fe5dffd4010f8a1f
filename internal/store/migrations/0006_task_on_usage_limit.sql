-- 0006: what a task does when its provider's usage window is exhausted.
--
-- 'wait': park the session until the window resets (plus a margin) and
-- continue; 'ask': show the recovery banner with the reset time; '' = the
-- daemon's default (--config usage_limit.default). Rows from before this
-- migration get ''.

ALTER TABLE tasks ADD COLUMN on_usage_limit TEXT NOT NULL DEFAULT '' CHECK (on_usage_limit IN ('', 'wait', 'ask'));
