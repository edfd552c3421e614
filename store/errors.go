package store

import (
	"errors"
	"fmt"
	"slices"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// outcomes are the sentinel errors a caller acts on. Their text is written
// for the user and shown as it is, so wrap passes them unchanged; errors.Is
// finds them either way.
var outcomes = []error{ErrNotFound, ErrEmailTaken, ErrTooManyKeys, ErrCodeInvalid, ErrTooManyCodes, ErrQuotaExceeded,
	ErrLastAdmin, ErrSetupToken, ErrSetupDone, ErrInviteInvalid}

// wrap names the store operation that failed, so that a logged error says
// where it came from: "store: issue key: database is locked".
func wrap(op string, err error) error {
	if err == nil || slices.Contains(outcomes, err) {
		return err
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// violates reports whether err is SQLite's constraint violation with the
// given extended result code, e.g. sqlite3.SQLITE_CONSTRAINT_UNIQUE.
func violates(err error, code int) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == code
}

// accountMissing turns a foreign-key violation on an account reference into
// ErrNotFound: the account the row points at does not exist.
func accountMissing(err error) error {
	if violates(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY) {
		return ErrNotFound
	}
	return err
}
