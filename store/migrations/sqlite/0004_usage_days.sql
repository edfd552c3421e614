-- Metered calls per account, key and UTC day ('2026-11-05'): the dashboard's
-- chart of calls per day and its calls per key. key_id 0 stands for calls
-- made with a dashboard session, and for those of keys since revoked. The
-- monthly count in usage stays the authority for caps.
CREATE TABLE usage_days (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    day        TEXT    NOT NULL,
    key_id     INTEGER NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (account_id, day, key_id)
) WITHOUT ROWID;
