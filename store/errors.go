package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// outcomes are the sentinel errors a caller acts on. Their text is written
// for the user and shown as it is, so wrap passes them unchanged; errors.Is
// finds them either way.
var outcomes = []error{ErrNotFound, ErrEmailTaken, ErrTooManyKeys, ErrCodeInvalid, ErrTooManyCodes, ErrQuotaExceeded,
	ErrLastAdmin, ErrSetupToken, ErrSetupDone, ErrInviteInvalid, ErrInvalidText, ErrUnverified}

// ErrInvalidText is returned for text to store that holds the NUL
// character: PostgreSQL's text cannot hold it, and SQLite refuses it too, so
// that both backends answer a request alike.
var ErrInvalidText = errors.New("text must not contain the NUL character (U+0000)")

// hasNUL reports whether any of texts holds the NUL character.
func hasNUL(texts ...string) bool {
	for _, t := range texts {
		if strings.IndexByte(t, 0) >= 0 {
			return true
		}
	}
	return false
}

// wrap names the store operation that failed, so that a logged error says
// where it came from: "store: issue key: database is locked". An error of
// an unreachable database also wraps ErrUnavailable.
func wrap(op string, err error) error {
	if err == nil || slices.Contains(outcomes, err) {
		return err
	}
	if unreachable(err) {
		return fmt.Errorf("store: %s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// constraint is a kind of constraint violation as each backend reports it:
// SQLite's extended result code and PostgreSQL's SQLSTATE.
type constraint struct {
	sqlite   int
	postgres string
}

var (
	uniqueViolation     = constraint{sqlite3.SQLITE_CONSTRAINT_UNIQUE, "23505"}
	foreignKeyViolation = constraint{sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY, "23503"}
)

// violates reports whether err is a violation of the kind c.
func violates(err error, c constraint) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == c.sqlite
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == c.postgres
}

// accountMissing turns a foreign-key violation on an account reference into
// ErrNotFound: the account the row points at does not exist.
func accountMissing(err error) error {
	if violates(err, foreignKeyViolation) {
		return ErrNotFound
	}
	return err
}
