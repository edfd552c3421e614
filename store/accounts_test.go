package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"

	"secutil/store"
	"secutil/store/internal/migrate"
)

// Each spelling of victim@example.com either finds the victim's account or
// is refused, the same on both backends; none can make a second account.
// On PostgreSQL the email column's ICU collation let the look-alikes with
// an invisible or a fullwidth character log in as the victim. The
// spellings are tried one after another on one database per backend: none
// may add an account, so each finds the database as the first did.
func TestLookAlikeEmailsNeverMakeASecondAccount(t *testing.T) {
	t.Parallel()
	spellings := []struct {
		name, email string
		isVictim    bool // else refused: no account, and none can be made
	}{
		{"the address", "victim@example.com", true},
		{"other case", "VICTIM@Example.COM", true},
		{"surrounding space", "  victim@example.com\n", true},
		{"soft hyphen", "vic\u00adtim@example.com", false},
		{"trailing zero-width space", "victim@example.com\u200b", false},
		{"zero-width joiner", "vic\u200dtim@example.com", false},
		{"byte order mark", "\ufeffvictim@example.com", false},
		{"variation selector", "victim@exa\ufe0fmple.com", false},
		{"fullwidth letter", "\uff56ictim@example.com", false},
		{"fullwidth address", "\uff56\uff49\uff43\uff54\uff49\uff4d\uff20\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff43\uff4f\uff4d", false},
		{"ligature", "victim@\ufb00example.com", false},
		{"Cyrillic letter", "vict\u0456m@example.com", false},
		{"NUL", "victim@example.com\x00", false},
	}
	eachBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		victim := mustAccount(t, s, "Victim@Example.com", "")
		for _, tc := range spellings {
			t.Run(tc.name, func(t *testing.T) {
				a, err := s.AccountByEmail(ctx, tc.email)
				switch {
				case tc.isVictim && (err != nil || a.ID != victim || a.Email != "Victim@Example.com"):
					t.Errorf("AccountByEmail(%q) = %+v, %v; want the victim's account, its email as typed", tc.email, a, err)
				case !tc.isVictim && !errors.Is(err, store.ErrNotFound):
					t.Errorf("AccountByEmail(%q) = %+v, %v; want ErrNotFound", tc.email, a, err)
				}
				_, err = s.CreateAccount(ctx, store.NewAccount{Email: tc.email, PasswordHash: "squatter"})
				switch {
				case tc.isVictim && !errors.Is(err, store.ErrEmailTaken):
					t.Errorf("CreateAccount(%q): %v, want ErrEmailTaken", tc.email, err)
				case !tc.isVictim && !errors.Is(err, store.ErrInvalidEmail):
					t.Errorf("CreateAccount(%q): %v, want ErrInvalidEmail", tc.email, err)
				}
			})
		}
		if n := countRows(t, db, "accounts"); n != 1 {
			t.Errorf("%d accounts after registering the spellings, want 1", n)
		}
	})
}

// A database written before accounts had email_key gets one for each
// account: the canonical form for an ASCII email, which then finds it
// whatever its case, and nothing for an email the policy now refuses, which
// no lookup matches any more.
func TestMigrationKeysExistingAccounts(t *testing.T) {
	t.Parallel()
	eachEmptyBackend(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		driver, apply := "sqlite", migrate.Apply
		if db.backend == store.Postgres {
			driver, apply = "pgx", migrate.ApplyPostgres
		}
		steps, err := migrate.FromFS(os.DirFS("migrations/"+db.backend), "*.sql")
		if err != nil {
			t.Fatal(err)
		}
		const before = 6 // the last schema without email_key
		raw, err := sql.Open(driver, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if err := apply(ctx, raw, steps[:before]); err != nil {
			t.Fatal(err)
		}
		for _, email := range []string{"Mixed.Case@Example.com", "jos\u00e9@example.com", "other@example.com"} {
			if _, err := raw.Exec(`INSERT INTO accounts (email, password_hash, created_at) VALUES ($1, 'x', 0)`, email); err != nil {
				t.Fatal(err)
			}
		}
		s := db.open(t)
		for email, want := range map[string]string{
			"mixed.case@example.com": "Mixed.Case@Example.com",
			"OTHER@example.com":      "other@example.com",
		} {
			if a, err := s.AccountByEmail(ctx, email); err != nil || a.Email != want {
				t.Errorf("AccountByEmail(%q) = %+v, %v; want %s", email, a, err, want)
			}
		}
		if _, err := s.AccountByEmail(ctx, "jos\u00e9@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the non-ASCII email: %v, want ErrNotFound", err)
		}
		if _, err := s.CreateAccount(ctx, store.NewAccount{Email: "MIXED.case@example.com", PasswordHash: "x"}); !errors.Is(err, store.ErrEmailTaken) {
			t.Errorf("registering an existing address in another case: %v, want ErrEmailTaken", err)
		}
		mustAccount(t, s, "new@example.com", "")
		if n := countRows(t, db, "accounts"); n != 4 {
			t.Errorf("%d accounts, want 4", n)
		}
	})
}
