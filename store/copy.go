package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// copiedTables are the tables Copy copies, each before the tables that
// refer to it, with their columns. auth_generation and schema_version are
// the destination's own.
var copiedTables = []struct{ name, columns string }{
	{"accounts", accountColumns + ", email_key, invite_hash"},
	{"api_keys", "id, account_id, name, hash, hint, created_at, last_used_at"},
	{"revoked_keys", "hash, revoked_at, reason"},
	{"sessions", "hash, account_id, created_at, expires_at"},
	{"verification_codes", "account_id, purpose, code_hash, expires_at, attempts"},
	{"code_limits", "account_id, client, window_start, codes, failures, noticed"},
	{"known_clients", "account_id, client, seen_at"},
	{"usage", "account_id, period, count, granted"},
	{"usage_days", "account_id, day, key_id, count"},
	{"deleted_usage", "account_id, period, count, deleted_at"},
	{"suggestions", "id, account_id, email, message, created_at"},
	{"audit_events", "id, at, kind, account_id, email, sealed_ip, detail"},
	{"invites", "hash, created_by, created_at, expires_at, used_at"},
	{"settings", "name, value"},
	{"products", "id, name, plan, price_cents, currency, interval, created_at"},
	{"webhook_events", "id, type, outcome, received_at"},
	{"throttle", "bucket, tokens, updated_ms, full_ms"},
}

// booleanColumns are stored as 0 and 1 by SQLite and as booleans by
// PostgreSQL.
var booleanColumns = map[string]bool{"accounts.verified": true, "accounts.admin": true, "accounts.disabled": true,
	"accounts.plan_by_admin": true, "accounts.plan_cancelled": true, "code_limits.noticed": true}

// TableCount is how many rows of a table Copy copied.
type TableCount struct {
	Table string
	Rows  int64
}

// Copy copies every row of src into dst, which must be empty, in one
// transaction on dst: a failure leaves dst as it was. It reads src in one
// snapshot, so src may keep serving meanwhile (its later changes are not
// copied). Before committing it counts each table's rows in dst and
// compares them with src's; it returns the counts.
func Copy(ctx context.Context, src, dst *Store) ([]TableCount, error) {
	counts, err := copyAll(ctx, src, dst)
	if err != nil {
		return nil, fmt.Errorf("store: copy: %w", err)
	}
	dst.auth.invalidate()
	return counts, nil
}

func copyAll(ctx context.Context, src, dst *Store) ([]TableCount, error) {
	var snapshot *sql.TxOptions // SQLite: a read transaction is one snapshot
	if src.backend == Postgres {
		snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	from, err := src.read.BeginTx(ctx, snapshot)
	if err != nil {
		return nil, err
	}
	defer from.Rollback()
	var counts []TableCount
	err = dst.inTx(ctx, func(to *sql.Tx) error {
		if dst.backend == Postgres {
			// Servers on dst wait until the copy is committed.
			names := make([]string, len(copiedTables))
			for i, t := range copiedTables {
				names[i] = t.name
			}
			if _, err := to.ExecContext(ctx, "LOCK TABLE "+strings.Join(names, ", ")+" IN SHARE ROW EXCLUSIVE MODE"); err != nil {
				return err
			}
		}
		for _, t := range copiedTables {
			if n, err := countRows(ctx, to, t.name); err != nil || n > 0 {
				if err == nil {
					err = fmt.Errorf("the destination is not empty: %s has %d rows; copy only into a new database", t.name, n)
				}
				return err
			}
		}
		for _, t := range copiedTables {
			copied, err := copyTable(ctx, from, to, t.name, t.columns)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			want, err := countRows(ctx, from, t.name)
			if err != nil {
				return err
			}
			got, err := countRows(ctx, to, t.name)
			if err != nil {
				return err
			}
			if copied != want || got != want {
				return fmt.Errorf("%s: the source has %d rows, %d were copied and the destination has %d", t.name, want, copied, got)
			}
			counts = append(counts, TableCount{Table: t.name, Rows: got})
		}
		lastID, err := lastAccountID(ctx, from, src.backend)
		if err != nil {
			return err
		}
		if dst.backend == Postgres {
			if err := restartIdentities(ctx, to); err != nil {
				return err
			}
		}
		return continueAccountIDs(ctx, to, dst.backend, lastID)
	})
	return counts, err
}

func countRows(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, table string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// copyTable inserts every row of table in from into to and returns how
// many it inserted.
func copyTable(ctx context.Context, from, to *sql.Tx, table, columns string) (int64, error) {
	names := strings.Split(columns, ", ")
	placeholders := make([]string, len(names))
	for i := range names {
		placeholders[i] = fmt.Sprintf("$%d", i+1)
	}
	insert, err := to.PrepareContext(ctx, "INSERT INTO "+table+" ("+columns+") VALUES ("+strings.Join(placeholders, ", ")+")")
	if err != nil {
		return 0, err
	}
	defer insert.Close()
	rows, err := from.QueryContext(ctx, "SELECT "+columns+" FROM "+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	values := make([]any, len(names))
	dest := make([]any, len(names))
	for i := range dest {
		dest[i] = &values[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		for i, name := range names {
			if v, ok := values[i].(int64); ok && booleanColumns[table+"."+name] {
				values[i] = v != 0
			}
		}
		if _, err := insert.ExecContext(ctx, values...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// restartIdentities moves each id sequence but the accounts' past the
// largest copied id, so that the next row inserted gets a new one.
func restartIdentities(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"api_keys", "suggestions", "audit_events", "products"} {
		_, err := tx.ExecContext(ctx, fmt.Sprintf(
			"SELECT setval(pg_get_serial_sequence('%[1]s', 'id'), coalesce(max(id), 0) + 1, false) FROM %[1]s", table))
		if err != nil {
			return err
		}
	}
	return nil
}

// lastAccountID is the largest account id the database has handed out:
// its sequence's, or one its rows still name (a deleted account's kept
// usage and audit events).
func lastAccountID(ctx context.Context, q querier, backend string) (int64, error) {
	sequence := `(SELECT seq FROM sqlite_sequence WHERE name = 'accounts')`
	if backend == Postgres {
		sequence = `pg_sequence_last_value(pg_get_serial_sequence('accounts', 'id')::regclass)`
	}
	var id int64
	err := q.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM (SELECT `+sequence+` AS id
		UNION ALL SELECT max(id) FROM accounts
		UNION ALL SELECT max(account_id) FROM deleted_usage
		UNION ALL SELECT max(account_id) FROM audit_events) AS ids`).Scan(&id)
	return id, err
}

// continueAccountIDs makes the next account id come after last, so that a
// copy never hands out an id its source did: a deleted account's id
// would pass the account's device cookies, kept usage and audit events on
// to a stranger.
func continueAccountIDs(ctx context.Context, tx *sql.Tx, backend string, last int64) error {
	if last == 0 {
		return nil
	}
	if backend == Postgres {
		_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('accounts', 'id'), $1)`, last)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq)
		SELECT 'accounts', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'accounts')`)
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE sqlite_sequence SET seq = max(seq, $1) WHERE name = 'accounts'`, last)
	}
	return err
}
