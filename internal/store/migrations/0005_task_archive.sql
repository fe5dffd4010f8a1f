-- 0005: archiving tasks, and deleting them.
--
-- archived_at is when the user archived the task (the fixed-width UTC form
-- of every time here), NULL while it is not archived. An archived task
-- keeps everything; the UI lists it only under "Archived".
--
-- Tasks can now be deleted (DB.DeleteTask): a task goes with its sessions,
-- messages, chunks, events, executions and pending retry, in one
-- transaction, children first. Still nothing cascades.

ALTER TABLE tasks ADD COLUMN archived_at TEXT;
