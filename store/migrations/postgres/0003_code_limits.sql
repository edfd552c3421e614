-- migrations/sqlite/0003_code_limits.sql in PostgreSQL's types.
CREATE TABLE code_limits (
    account_id   bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    window_start bigint NOT NULL,
    codes        bigint NOT NULL,
    failures     bigint NOT NULL
);
