package hashindex_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"secutil/store/hashindex"
	"secutil/store/internal/migrate"
)

func TestOpenRefusesANewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hashes.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("PRAGMA user_version = 1000"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if ix, err := hashindex.Open(path); !errors.Is(err, migrate.ErrSchemaTooNew) {
		if err == nil {
			ix.Close()
		}
		t.Fatalf("got %v, want ErrSchemaTooNew", err)
	}
}
