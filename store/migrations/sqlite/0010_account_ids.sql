-- Account ids are never handed out twice. Without AUTOINCREMENT, SQLite
-- gave a deleted newest account's id to the next account, which then
-- inherited what still named the old one: its kept usage (deleted_usage),
-- its audit events, its device cookies. SQLite adds AUTOINCREMENT only by
-- rebuilding the table; migrate.Apply runs the steps with foreign keys
-- off, so dropping the old table neither deletes nor orphans the rows
-- that refer to it, and they refer to the new one by its name. The
-- columns stay as they were, in their order.
CREATE TABLE accounts_new (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    email          TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    password_hash  TEXT    NOT NULL,
    plan           TEXT    NOT NULL DEFAULT 'starter' CHECK (plan IN ('starter', 'pro', 'enterprise')),
    usage_cap      INTEGER CHECK (usage_cap IS NULL OR usage_cap > 0),
    paid_until     INTEGER,
    verified       INTEGER NOT NULL DEFAULT 0,
    admin          INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    disabled       INTEGER NOT NULL DEFAULT 0,
    email_key      TEXT,
    plan_by_admin  INTEGER NOT NULL DEFAULT 0,
    plan_cancelled INTEGER NOT NULL DEFAULT 0,
    invite_hash    BLOB
);
INSERT INTO accounts_new (id, email, password_hash, plan, usage_cap, paid_until, verified, admin, created_at,
                          disabled, email_key, plan_by_admin, plan_cancelled, invite_hash)
SELECT id, email, password_hash, plan, usage_cap, paid_until, verified, admin, created_at,
       disabled, email_key, plan_by_admin, plan_cancelled, invite_hash FROM accounts;
DROP TABLE accounts;
ALTER TABLE accounts_new RENAME TO accounts;
CREATE UNIQUE INDEX accounts_by_email_key ON accounts (email_key);
CREATE TRIGGER accounts_changed AFTER UPDATE ON accounts
BEGIN UPDATE auth_generation SET n = n + 1; END;
CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
BEGIN UPDATE auth_generation SET n = n + 1; END;

-- The next id comes after every id the database still names, also those
-- of accounts deleted before this step: their kept usage and audit events
-- must not pass for a new account's.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'accounts', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'accounts');
UPDATE sqlite_sequence SET seq = max(seq,
    coalesce((SELECT max(account_id) FROM deleted_usage), 0),
    coalesce((SELECT max(account_id) FROM audit_events), 0))
 WHERE name = 'accounts';
