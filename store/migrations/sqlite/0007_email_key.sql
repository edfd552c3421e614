-- Accounts are found by email_key, the canonical form of their email that
-- the server computes (tools/emailaddr: ASCII only, trimmed, lowercased),
-- so that SQLite and PostgreSQL match an address alike and a look-alike
-- spelling can never be a second account. It is unique; NULL for an email
-- the policy refuses, which no lookup matches.
--
-- For an existing account it is lower(email), which folds ASCII only:
-- emails were stored trimmed, so for every ASCII email that is the
-- canonical form. Two accounts cannot get the same one, since email is
-- unique without regard to ASCII case (COLLATE NOCASE). An email with any
-- other character (the policy now refuses them) gets NULL. email keeps its
-- own unique constraint, which now never refuses what email_key allows.
ALTER TABLE accounts ADD COLUMN email_key TEXT;
UPDATE accounts SET email_key = lower(email) WHERE email NOT GLOB '*[^ -~]*';
CREATE UNIQUE INDEX accounts_by_email_key ON accounts (email_key);
