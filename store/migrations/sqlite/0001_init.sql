-- Accounts, credentials and bookkeeping. Times are Unix seconds (UTC).
CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    email         TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT    NOT NULL,
    plan          TEXT    NOT NULL DEFAULT 'starter' CHECK (plan IN ('starter', 'pro', 'enterprise')),
    usage_cap     INTEGER CHECK (usage_cap IS NULL OR usage_cap > 0), -- enterprise cap set by an admin; NULL = none
    paid_until    INTEGER,
    verified      INTEGER NOT NULL DEFAULT 0,
    admin         INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL
);

-- API keys: only the SHA-256 of a key is stored; hint is "sk_AbCd…" for display.
CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    hash         BLOB    NOT NULL UNIQUE,
    hint         TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    UNIQUE (account_id, name)
);

-- Dashboard sessions: only the SHA-256 of the cookie value is stored.
CREATE TABLE sessions (
    hash       BLOB    PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_account ON sessions (account_id);

-- One live code per account and purpose ('register' or 'reset').
CREATE TABLE verification_codes (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose    TEXT    NOT NULL,
    code_hash  BLOB    NOT NULL,
    expires_at INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, purpose)
) WITHOUT ROWID;

-- Metered calls per account per UTC calendar month ('2026-11').
CREATE TABLE usage (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    period     TEXT    NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (account_id, period)
) WITHOUT ROWID;

CREATE TABLE suggestions (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
    email      TEXT,
    message    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);

-- Security events. The client IP is sealed with the server key, never plain.
CREATE TABLE audit_events (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    account_id INTEGER,
    sealed_ip  TEXT,
    detail     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_events_at ON audit_events (at);

-- Server-wide secrets and settings (e.g. the sealing key).
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
