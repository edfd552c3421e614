package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"

	"secutil/store/internal/migrate"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestApplyRunsEachStepOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	steps := []string{
		"CREATE TABLE t(n INTEGER)",
		"INSERT INTO t VALUES (1)",
	}
	if err := migrate.Apply(ctx, db, steps[:1]); err != nil {
		t.Fatal(err)
	}
	if got := userVersion(t, db); got != 1 {
		t.Fatalf("user_version %d after one step, want 1", got)
	}
	for range 2 { // the second run finds nothing to do
		if err := migrate.Apply(ctx, db, steps); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || userVersion(t, db) != 2 {
		t.Fatalf("%d rows at version %d, want 1 row at version 2", rows, userVersion(t, db))
	}
}

func TestApplyRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	if _, err := db.Exec("CREATE TABLE future(x); PRAGMA user_version = 3"); err != nil {
		t.Fatal(err)
	}
	err := migrate.Apply(context.Background(), db, []string{"CREATE TABLE t(n)", "CREATE TABLE u(n)"})
	if !errors.Is(err, migrate.ErrSchemaTooNew) {
		t.Fatalf("got %v, want ErrSchemaTooNew", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "version 3") || !strings.Contains(msg, "up to 2") {
		t.Fatalf("error %q should name both versions", msg)
	}
	if got := userVersion(t, db); got != 3 {
		t.Fatalf("user_version changed to %d", got)
	}
}

func TestApplyFailedStepChangesNothing(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	err := migrate.Apply(context.Background(), db, []string{"CREATE TABLE t(n)", "NOT SQL"})
	if err == nil || !strings.Contains(err.Error(), "schema step 2") {
		t.Fatalf("got %v, want an error naming step 2", err)
	}
	var tables int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 't'").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 || userVersion(t, db) != 0 {
		t.Fatalf("step 1 kept (%d tables, version %d) although step 2 failed", tables, userVersion(t, db))
	}
}

// TestApplyRebuildsAReferencedTable: a step may rebuild a table that
// others refer to with ON DELETE CASCADE, SQLite's way to change a
// column, without losing the rows that refer to it; a step that leaves a
// row breaking a foreign key is refused, and the connection has its
// foreign keys on again.
func TestApplyRebuildsAReferencedTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "test.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	steps := []string{
		`CREATE TABLE parent (id INTEGER PRIMARY KEY);
		 CREATE TABLE child (parent_id INTEGER NOT NULL REFERENCES parent (id) ON DELETE CASCADE);
		 INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1)`,
		`CREATE TABLE parent_new (id INTEGER PRIMARY KEY AUTOINCREMENT);
		 INSERT INTO parent_new SELECT id FROM parent;
		 DROP TABLE parent;
		 ALTER TABLE parent_new RENAME TO parent`,
	}
	if err := migrate.Apply(ctx, db, steps); err != nil {
		t.Fatal(err)
	}
	var children int
	if err := db.QueryRow("SELECT count(*) FROM child").Scan(&children); err != nil || children != 1 {
		t.Fatalf("%d children after rebuilding their parents' table (%v), want 1", children, err)
	}
	err = migrate.Apply(ctx, db, append(steps, "INSERT INTO child VALUES (2)"))
	if err == nil || !strings.Contains(err.Error(), "foreign_key_check") || userVersion(t, db) != 2 {
		t.Fatalf("a step leaving an orphan: %v, version %d; want a refusal at version 2", err, userVersion(t, db))
	}
	if _, err := db.Exec("INSERT INTO child VALUES (3)"); err == nil {
		t.Fatal("foreign keys are off after the migration")
	}
}

func TestFromFS(t *testing.T) {
	t.Parallel()
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []string
		wantErr string
	}{
		{"in order", fstest.MapFS{"m/0002_b.sql": file("B"), "m/0001_a.sql": file("A")}, []string{"A", "B"}, ""},
		{"none", fstest.MapFS{}, []string{}, ""},
		{"gap", fstest.MapFS{"m/0001_a.sql": file("A"), "m/0003_c.sql": file("C")}, nil, "0002_"},
		{"repeat", fstest.MapFS{"m/0001_a.sql": file("A"), "m/0001_b.sql": file("B")}, nil, "0002_"},
		{"no number", fstest.MapFS{"m/init.sql": file("A")}, nil, "0001_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := migrate.FromFS(tt.files, "m/*.sql")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error naming %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") || len(got) != len(tt.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
