-- 0003: a task's own overload gate deadline.
--
-- How long the task's sessions may wait on provider overload gates in all,
-- in nanoseconds (a Go time.Duration); 0 = the daemon's default (the
-- overload section's deadline). Rows from before this migration get 0.

ALTER TABLE tasks ADD COLUMN gate_deadline_ns INTEGER NOT NULL DEFAULT 0 CHECK (gate_deadline_ns >= 0);
