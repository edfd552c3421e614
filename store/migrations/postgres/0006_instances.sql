-- migrations/sqlite/0006_instances.sql in PostgreSQL's types. The
-- generation's trigger also sends a notification on the secutil_auth
-- channel, delivered when the change commits: servers listening on it drop
-- their auth caches at once; reading the generation twice a second is the
-- fallback for a notification missed while a server was reconnecting.
CREATE TABLE auth_generation (
    id integer PRIMARY KEY CHECK (id = 1),
    n  bigint  NOT NULL
);
INSERT INTO auth_generation (id, n) VALUES (1, 0);

-- The function keeps the schema's search_path, so that a change made from
-- a session with another one (an operator's psql, say) still finds the
-- generation's table.
CREATE FUNCTION auth_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE auth_generation SET n = n + 1;
    PERFORM pg_notify('secutil_auth', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_changed AFTER UPDATE OF account_id, name, hash OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION auth_changed();
CREATE TRIGGER accounts_changed AFTER UPDATE OR DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION auth_changed();

CREATE TABLE throttle (
    bucket     text             PRIMARY KEY,
    tokens     double precision NOT NULL,
    updated_ms bigint           NOT NULL,
    full_ms    bigint           NOT NULL
);
CREATE INDEX throttle_full ON throttle (full_ms);

-- How many calls the last update of a usage row added: the meter's
-- conditional update returns it beside the new count, which tells the
-- count before the update (see grantSQL in meter.go).
ALTER TABLE usage ADD COLUMN granted bigint NOT NULL DEFAULT 0;
