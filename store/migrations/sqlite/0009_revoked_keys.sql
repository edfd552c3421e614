-- The API keys that stopped working: the hash api_keys kept (never the
-- key), when and why (store.Revoked* reasons: revoked, rotated, replaced,
-- password_set, account_deleted), so that a request with one is told the
-- key was revoked rather than that it was never made here. Every change
-- that deletes or replaces a key records it in the same transaction. Rows
-- older than 90 days are swept (store.RevokedKeysKept); such a key then
-- reads as unknown.
CREATE TABLE revoked_keys (
    hash       BLOB    NOT NULL PRIMARY KEY,
    revoked_at INTEGER NOT NULL,
    reason     TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX revoked_keys_revoked_at ON revoked_keys (revoked_at);
