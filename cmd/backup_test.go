package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/store"
)

// backup does not copy a PostgreSQL database: it shows the pg_dump
// command, without the URL's password, and fails.
func TestBackupOfPostgresShowsPgDump(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(context.Background(), []string{"secutil", "backup", "-db", "postgres://ann:s3cret@db.example/secutil?sslmode=require", "nightly.dump"},
		env(nil), nil, &out, io.Discard)
	if err == nil {
		t.Fatal("backup of a PostgreSQL database succeeded")
	}
	want := "pg_dump --format=custom --file=nightly.dump 'postgres://ann:xxxxx@db.example/secutil?sslmode=require'"
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "s3cret") {
		t.Fatalf("backup printed:\n%s\nwant the command %s, without the password", out.String(), want)
	}
}

// A backup holds the password and key hashes: it is readable by its
// owner only (0600), whatever the umask gives new files, and the command
// says that the server key is not in it and where it is.
func TestBackupIsOwnerOnlyAndPointsToTheServerKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "main.db")
	serveDB(t, db, nil) // the first start writes the key file beside the database
	dest := filepath.Join(dir, "copy.db")
	out, _, err := cli(t, db, "", nil, "backup", dest)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dest)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the backup's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	for _, want := range []string{"readable by you only", "The server key is not in the copy", "It is in " + filepath.Join(dir, "main-server.key") + ", beside the database."} {
		if !strings.Contains(out, want) {
			t.Errorf("backup says:\n%s\nwant %q", out, want)
		}
	}
	out, _, err = cli(t, db, "", map[string]string{"SECUTIL_SERVER_KEY": strings.Repeat("ab", 32)}, "backup", filepath.Join(dir, "copy2.db"))
	if err != nil || !strings.Contains(out, "It is the value of SECUTIL_SERVER_KEY") {
		t.Fatalf("backup with SECUTIL_SERVER_KEY set: %v\n%s", err, out)
	}
	st, err := store.Open(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A copy into a folder, or into a folder that does not exist, is refused
// in a sentence naming the path, not SQLite's error, and leaves nothing.
func TestBackupRefusesFoldersClearly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := cmdtest.NewDatabase(t, filepath.Join(dir, "main.db"))
	backups := filepath.Join(dir, "backups")
	if err := os.Mkdir(backups, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dest, want string }{
		{backups, "the copy " + backups + " is a folder: give the path of a file, such as " + filepath.Join(backups, "secutil-backup.db")},
		{filepath.Join(dir, "nightly", "copy.db"), "the copy " + filepath.Join(dir, "nightly", "copy.db") + " cannot be created: there is no folder " + filepath.Join(dir, "nightly")},
		{db, db + " exists; refusing to overwrite it"},
	} {
		_, _, err := cli(t, db, "", nil, "backup", c.dest)
		if err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("backup %s: %v, want %q", c.dest, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(backups); len(entries) != 0 {
		t.Errorf("a refused backup wrote %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "nightly")); err == nil {
		t.Error("backup made a folder")
	}
}
