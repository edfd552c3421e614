-- migrations/sqlite/0004_usage_days.sql in PostgreSQL's types.
CREATE TABLE usage_days (
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    day        text   NOT NULL,
    key_id     bigint NOT NULL,
    count      bigint NOT NULL,
    PRIMARY KEY (account_id, day, key_id)
);
