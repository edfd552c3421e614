-- migrations/sqlite/0005_operating.sql in PostgreSQL's types.
ALTER TABLE accounts ADD COLUMN disabled boolean NOT NULL DEFAULT false;

ALTER TABLE audit_events ADD COLUMN email text;
UPDATE audit_events SET email = (SELECT email FROM accounts WHERE accounts.id = audit_events.account_id);

CREATE TABLE invites (
    hash       bytea  PRIMARY KEY,
    created_by bigint REFERENCES accounts (id) ON DELETE SET NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at    bigint
);
