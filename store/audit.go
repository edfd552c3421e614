package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Kinds of audit event.
const (
	AuditLoginOK       = "login_ok"
	AuditLoginFailed   = "login_failed"
	AuditKeyIssued     = "key_issued"
	AuditKeyRotated    = "key_rotated"
	AuditKeyRevoked    = "key_revoked"
	AuditPasswordReset = "password_reset"
	AuditPlanChanged   = "plan_changed"
	AuditRegistered    = "registered"
)

// AuditEvent is one security-relevant event. SealedIP is the client IP
// sealed with the server key: only an admin can open it.
type AuditEvent struct {
	ID        int64
	At        time.Time
	Kind      string
	AccountID int64
	// Email is the account's email at the time of the event. AddAudit
	// looks it up from AccountID when it is empty.
	Email    string
	SealedIP string
	Detail   string
}

// AddAudit records an event.
func (s *Store) AddAudit(ctx context.Context, e AuditEvent) error {
	if hasNUL(e.Kind, e.Email, e.SealedIP, e.Detail) {
		return wrap("add audit event", ErrInvalidText)
	}
	var account, email, sealed any
	if e.AccountID != 0 {
		account = e.AccountID
	}
	if e.Email != "" {
		email = e.Email
	}
	if e.SealedIP != "" {
		sealed = e.SealedIP
	}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO audit_events (at, kind, account_id, email, sealed_ip, detail)
		 VALUES ($1, $2, $3, coalesce($4, (SELECT email FROM accounts WHERE id = $3)), $5, $6)`,
		unix(s.now()), e.Kind, account, email, sealed, e.Detail)
	return wrap("add audit event", err)
}

// AuditEvents lists events newest first, at most limit from offset.
func (s *Store) AuditEvents(ctx context.Context, limit, offset int) ([]AuditEvent, error) {
	events, err := s.auditEvents(ctx, limit, offset)
	return events, wrap("audit events", err)
}

func (s *Store) auditEvents(ctx context.Context, limit, offset int) ([]AuditEvent, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, at, kind, coalesce(account_id, 0), coalesce(email, ''), coalesce(sealed_ip, ''), detail
		   FROM audit_events ORDER BY id DESC LIMIT $1 OFFSET $2`,
		limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEvent
	for rows.Next() {
		var e AuditEvent
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Kind, &e.AccountID, &e.Email, &e.SealedIP, &e.Detail); err != nil {
			return nil, err
		}
		e.At = time.Unix(at, 0).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// Setting returns the setting called name, nil when there is none.
func (s *Store) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.write.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return v, wrap("setting "+name, err)
}

// DeleteSetting removes the setting called name and leaves no copy of its
// value in the database files: SQLite's secure_delete overwrites the freed
// bytes, and a checkpoint moves the change into the main file and empties
// the write-ahead log, which held the old page. It is for secrets moving
// out of the database (the server key). On PostgreSQL the row is deleted;
// the old row version stays on disk until a vacuum reuses its space.
func (s *Store) DeleteSetting(ctx context.Context, name string) error {
	if s.backend == Postgres {
		_, err := s.write.ExecContext(ctx, `DELETE FROM settings WHERE name = $1`, name)
		return wrap("delete setting "+name, err)
	}
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return wrap("delete setting "+name, err)
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `PRAGMA secure_delete = ON`)
	if err == nil {
		_, err = conn.ExecContext(ctx, `DELETE FROM settings WHERE name = $1`, name)
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, `PRAGMA secure_delete = OFF`)
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	if err != nil {
		return wrap("delete setting "+name, err)
	}
	return nil
}
