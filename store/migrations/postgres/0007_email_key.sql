-- migrations/sqlite/0007_email_key.sql in PostgreSQL's terms. email drops
-- the nondeterministic ICU collation, under which an address with an
-- invisible or a fullwidth character compared equal to the plain one (and
-- its uniqueness with it): accounts are found by email_key, the canonical
-- form the server computes, unique. lower() under the "C" collation folds
-- ASCII only, as SQLite's does; no two accounts get the same key, since the
-- unique constraint dropped here already made addresses that differ only
-- in case one.
ALTER TABLE accounts DROP CONSTRAINT accounts_email_key;
ALTER TABLE accounts ALTER COLUMN email TYPE text COLLATE "default";
DROP COLLATION case_insensitive;

ALTER TABLE accounts ADD COLUMN email_key text;
UPDATE accounts SET email_key = lower(email COLLATE "C") WHERE email COLLATE "C" ~ '^[ -~]*$';
CREATE UNIQUE INDEX accounts_by_email_key ON accounts (email_key);
