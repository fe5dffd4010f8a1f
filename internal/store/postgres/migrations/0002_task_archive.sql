-- 0002: archiving tasks, and deleting them (the SQLite store's 0005).
--
-- archived_at is when the user archived the task (the fixed-width UTC text
-- of every time here), NULL while it is not archived. Tasks can now be
-- deleted (DB.DeleteTask): a task goes with its sessions, messages, chunks,
-- events, executions and pending retry in one transaction, children first.
-- Still nothing cascades.

ALTER TABLE tasks ADD COLUMN archived_at text COLLATE "C";
