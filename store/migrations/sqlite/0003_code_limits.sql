-- Codes sent to an account, and wrong tries at them, in the hour from
-- window_start, across purposes and codes: sending a fresh code does not
-- give a guesser fresh tries.
CREATE TABLE code_limits (
    account_id   INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    window_start INTEGER NOT NULL,
    codes        INTEGER NOT NULL,
    failures     INTEGER NOT NULL
);
