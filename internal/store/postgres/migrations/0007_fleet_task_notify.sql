-- 0007: task changes between the daemons of a fleet (internal/fleet relay),
-- PostgreSQL only: every committed change of a task row (created, changed,
-- deleted) and every change of a session's state sends one NOTIFY on
-- orchestratord_tasks carrying the task's id (identical ones of one
-- transaction arrive as one), so every daemon's task list follows tasks
-- other daemons run. Ids only; the listeners read the rows. A session's
-- other updates (last_seq, with every event) notify nothing: the WHEN is
-- evaluated without calling the function.
CREATE FUNCTION orchestratord_task_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'sessions' THEN
        PERFORM pg_notify('orchestratord_tasks', NEW.task_id);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('orchestratord_tasks', OLD.id);
    ELSE
        PERFORM pg_notify('orchestratord_tasks', NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER tasks_notify AFTER INSERT OR UPDATE OR DELETE ON tasks
    FOR EACH ROW EXECUTE FUNCTION orchestratord_task_notify();

CREATE TRIGGER sessions_state_notify AFTER UPDATE ON sessions
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION orchestratord_task_notify();
