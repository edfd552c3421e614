-- migrations/sqlite/0008_account_life.sql in PostgreSQL's types.
ALTER TABLE accounts ADD COLUMN plan_by_admin boolean NOT NULL DEFAULT false;
UPDATE accounts SET plan_by_admin = true WHERE plan <> 'starter' AND (paid_until IS NULL OR usage_cap IS NOT NULL);
ALTER TABLE accounts ADD COLUMN plan_cancelled boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN invite_hash bytea;

DROP TABLE code_limits;
CREATE TABLE code_limits (
    account_id   bigint  NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client       text    NOT NULL,
    window_start bigint  NOT NULL,
    codes        bigint  NOT NULL,
    failures     bigint  NOT NULL,
    noticed      boolean NOT NULL DEFAULT false,
    PRIMARY KEY (account_id, client)
);

CREATE TABLE deleted_usage (
    account_id bigint NOT NULL,
    period     text   NOT NULL,
    count      bigint NOT NULL,
    deleted_at bigint NOT NULL,
    PRIMARY KEY (account_id, period)
);
