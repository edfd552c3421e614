-- migrations/sqlite/0011_known_clients.sql in PostgreSQL's types.
CREATE TABLE known_clients (
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client     text   NOT NULL,
    seen_at    bigint NOT NULL,
    PRIMARY KEY (account_id, client)
);
CREATE INDEX known_clients_seen_at ON known_clients (seen_at);
