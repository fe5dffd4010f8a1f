-- 0009: the model a session's agent reported over ACP (the SQLite store's
-- 0007); '' when it reported none. A change of it notifies the fleet's
-- task lists like a change of state does (0007).

ALTER TABLE sessions ADD COLUMN model text NOT NULL DEFAULT '';

DROP TRIGGER sessions_state_notify ON sessions;
CREATE TRIGGER sessions_state_notify AFTER UPDATE ON sessions
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.model IS DISTINCT FROM NEW.model)
    EXECUTE FUNCTION orchestratord_task_notify();
