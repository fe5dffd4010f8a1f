-- 0006: orchestratord_assert(ok, message) raises SQLSTATE OD001 unless ok
-- is true. The store sends many sessions' writes to the server as one
-- batch in one transaction (group commit); a write's check that fails (a
-- seq that is not the next one, a retry already claimed) raises this from
-- inside its statement, so the server stops there and rolls the group
-- back, and the store runs the others again without that write. Not a
-- table: nothing for the SQLite store to mirror.

CREATE FUNCTION orchestratord_assert(ok boolean, message text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	IF ok IS NOT TRUE THEN
		RAISE EXCEPTION USING ERRCODE = 'OD001', MESSAGE = message;
	END IF;
	RETURN true;
END
$$;
