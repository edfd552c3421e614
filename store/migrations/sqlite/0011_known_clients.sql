-- The networks an account logged in from (client: the server's keyed hash
-- of the client's address or IPv6 /64, never the address), each with its
-- last login. A known network keeps its own share of codes and code tries
-- past the account's limits over every client, so strangers elsewhere
-- cannot use those up and stop the owner's password reset. An account
-- keeps its newest few (store.MaxKnownClients), each for
-- store.KnownClientsKept after its last login.
CREATE TABLE known_clients (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client     TEXT    NOT NULL,
    seen_at    INTEGER NOT NULL,
    PRIMARY KEY (account_id, client)
) WITHOUT ROWID;
CREATE INDEX known_clients_seen_at ON known_clients (seen_at);
