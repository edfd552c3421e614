-- The life of an account run by one person for others.

-- plan_by_admin: an administrator set the plan (not starter), so only an
-- administrator changes it. Plans set before: a paid plan that never
-- expires, or one with a cap, was set by hand.
ALTER TABLE accounts ADD COLUMN plan_by_admin INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET plan_by_admin = 1 WHERE plan <> 'starter' AND (paid_until IS NULL OR usage_cap IS NOT NULL);
-- plan_cancelled: the user left the paid plan; it stays in force until
-- paid_until, then the account is on starter.
ALTER TABLE accounts ADD COLUMN plan_cancelled INTEGER NOT NULL DEFAULT 0;
-- invite_hash: the invite a pending account registered with. It is spent
-- when the account is verified, so registering again with it works until
-- then.
ALTER TABLE accounts ADD COLUMN invite_hash BLOB;

-- Codes sent and wrong tries in the hour from window_start, per account
-- and client (client '' is the account's total over every client), so a
-- stranger's tries use up the stranger's share, not the owner's. noticed:
-- the owner was told this client hit its limit in this window. The rows
-- live an hour at most, so the old table's are dropped.
DROP TABLE code_limits;
CREATE TABLE code_limits (
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client       TEXT    NOT NULL,
    window_start INTEGER NOT NULL,
    codes        INTEGER NOT NULL,
    failures     INTEGER NOT NULL,
    noticed      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, client)
) WITHOUT ROWID;

-- The monthly usage of deleted accounts, kept for the operator (the
-- privacy page: a count of calls per month); no email, no key.
CREATE TABLE deleted_usage (
    account_id INTEGER NOT NULL,
    period     TEXT    NOT NULL,
    count      INTEGER NOT NULL,
    deleted_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, period)
) WITHOUT ROWID;
