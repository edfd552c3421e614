-- Operating the server: disabled accounts, emails in the audit log, invites.

-- A disabled account keeps its data, but its keys and sessions stop working
-- until an administrator enables it again.
ALTER TABLE accounts ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;

-- The account's email when the event happened, so the audit log names
-- accounts by email, also after one is deleted.
ALTER TABLE audit_events ADD COLUMN email TEXT;
UPDATE audit_events SET email = (SELECT email FROM accounts WHERE accounts.id = audit_events.account_id);

-- One-time registration invites: only the SHA-256 of the token is stored.
CREATE TABLE invites (
    hash       BLOB    PRIMARY KEY,
    created_by INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
) WITHOUT ROWID;
