-- The auth cache's generation. A server keeps recent key lookups in memory;
-- every change that could make one wrong (a key replaced, rotated or
-- deleted, any change to an account) bumps this number by trigger, whoever
-- makes it: this server, another process such as the command line, an
-- operator with sqlite3. Servers read it twice a second and drop their
-- cache when it moved.
CREATE TABLE auth_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO auth_generation (id, n) VALUES (1, 0);
CREATE TRIGGER api_keys_changed AFTER UPDATE OF account_id, name, hash ON api_keys
BEGIN UPDATE auth_generation SET n = n + 1; END;
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
BEGIN UPDATE auth_generation SET n = n + 1; END;
CREATE TRIGGER accounts_changed AFTER UPDATE ON accounts
BEGIN UPDATE auth_generation SET n = n + 1; END;
CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
BEGIN UPDATE auth_generation SET n = n + 1; END;

-- Brute-force token buckets that every server on this database draws from.
-- A row whose bucket is full again (full_ms has passed) holds nothing a
-- fresh bucket would not, and is deleted.
CREATE TABLE throttle (
    bucket     TEXT    PRIMARY KEY, -- hex SHA-256 of the bucket's name
    tokens     REAL    NOT NULL,
    updated_ms INTEGER NOT NULL, -- Unix milliseconds of the last take
    full_ms    INTEGER NOT NULL  -- Unix milliseconds when the bucket is full again
) WITHOUT ROWID;
CREATE INDEX throttle_full ON throttle (full_ms);

-- How many calls the last update of a usage row added: the meter's
-- conditional update returns it beside the new count, which tells the
-- count before the update (see grantSQL in meter.go).
ALTER TABLE usage ADD COLUMN granted INTEGER NOT NULL DEFAULT 0;
