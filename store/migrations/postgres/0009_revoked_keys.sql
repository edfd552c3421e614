-- migrations/sqlite/0009_revoked_keys.sql in PostgreSQL's types.
CREATE TABLE revoked_keys (
    hash       bytea  NOT NULL PRIMARY KEY,
    revoked_at bigint NOT NULL,
    reason     text   NOT NULL
);
CREATE INDEX revoked_keys_revoked_at ON revoked_keys (revoked_at);
