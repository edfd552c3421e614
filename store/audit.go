package store

import (
	"context"
	"time"
)

// Kinds of audit event of a user's own account.
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

// Kinds of audit event of the first start and of account administration.
const (
	AuditSetupCompleted  = "setup_completed"
	AuditAccountVerified = "account_verified"
	AuditAdminGranted    = "admin_granted"
	AuditAdminRevoked    = "admin_revoked"
	AuditAccountDisabled = "account_disabled"
	AuditAccountEnabled  = "account_enabled"
	AuditAccountDeleted  = "account_deleted"
	AuditUsageReset      = "usage_reset"
	AuditInviteCreated   = "invite_created"
	AuditPasswordSet     = "password_set" // by an operator, with secutil user passwd
)

// Kinds of audit event of what an administrator manages on the admin
// page besides accounts: products and invites.
const (
	AuditProductCreated = "product_created"
	AuditProductChanged = "product_changed"
	AuditProductDeleted = "product_deleted"
	AuditInviteRevoked  = "invite_revoked"
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
