package walmode

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// inWALMode reads the mode from the header of SQLite's own files, and
// reports false for anything it cannot read as one.
func TestInWALModeReadsTheHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	database := func(name, mode string) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", path+"?_pragma=journal_mode("+mode+")")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("CREATE TABLE t (x)"); err != nil {
			t.Fatal(err)
		}
		return path
	}
	file := func(name string, content []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	walLike := make([]byte, 100)
	walLike[18], walLike[19] = 2, 2
	for _, c := range []struct {
		name, path string
		want       bool
	}{
		{"WAL database", database("wal.db", "WAL"), true},
		{"rollback-journal database", database("rollback.db", "DELETE"), false},
		{"no file", filepath.Join(dir, "missing.db"), false},
		{"empty file", file("empty.db", nil), false},
		{"short file", file("short.db", []byte(sqliteMagic)), false},
		{"not SQLite's, with 2 and 2 at 18 and 19", file("other.db", walLike), false},
		{"a directory", dir, false},
	} {
		if got := inWALMode(c.path); got != c.want {
			t.Errorf("%s: inWALMode = %v, want %v", c.name, got, c.want)
		}
	}
}
