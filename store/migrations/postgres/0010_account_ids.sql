-- Account ids are never handed out twice (migrations/sqlite/0010). The
-- identity's sequence never gives a number twice, but a database copied
-- from SQLite before this step had it set past the accounts it held, not
-- past deleted ones, whose ids its kept usage and audit events still
-- name: the next id comes after those too. A database that never had an
-- account starts at 1.
SELECT setval(pg_get_serial_sequence('accounts', 'id'), coalesce(highest, 1), highest IS NOT NULL)
  FROM (SELECT greatest(
            pg_sequence_last_value(pg_get_serial_sequence('accounts', 'id')::regclass),
            (SELECT max(id) FROM accounts),
            (SELECT max(account_id) FROM deleted_usage),
            (SELECT max(account_id) FROM audit_events)) AS highest) AS ids;
