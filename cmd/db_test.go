package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
)

func TestHashDBPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ given, db, want string }{
		{"", "secutil.db", "secutil-hashes.db"},
		{"", "/var/lib/secutil/main.sqlite", "/var/lib/secutil/main-hashes.db"},
		{"", "file:data/x.db", "data/x-hashes.db"},
		{"", "postgres://u@h/db", "secutil-hashes.db"},
		{"/srv/h.db", "postgres://u@h/db", "/srv/h.db"},
	} {
		if got := hashDBPath(tt.given, tt.db); got != tt.want {
			t.Errorf("hashDBPath(%q, %q) = %q, want %q", tt.given, tt.db, got, tt.want)
		}
	}
}

// Only serve creates a database: every other command given a -db that
// does not exist (a mistyped one, typically) refuses with a sentence
// naming the path, and leaves nothing behind, no database and no index
// beside it. A -db naming a folder is refused in the same words.
func TestOnlyServeCreatesADatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "mistyped.db")
	for _, command := range []func(db string) []string{
		func(db string) []string {
			return []string{"user", "add", "-db", db, "ann@example.com", "-password", cmdtest.Password}
		},
		func(db string) []string { return []string{"user", "list", "-db", db} },
		func(db string) []string { return []string{"user", "set", "-db", db, "ann@example.com", "-plan", "pro"} },
		func(db string) []string { return []string{"user", "passwd", "-db", db, "ann@example.com"} },
		func(db string) []string { return []string{"user", "delete", "-db", db, "-yes", "ann@example.com"} },
		func(db string) []string { return []string{"backup", "-db", db, filepath.Join(dir, "copy.db")} },
		func(db string) []string { return []string{"import-wordlist", "-db", db, wordlistPath} },
		func(db string) []string {
			return []string{"migrate-store", "-from", db, "-to", filepath.Join(dir, "to.db")}
		},
	} {
		args := command(missing)
		_, _, err := cli(t, "", cmdtest.Password+"\n", nil, args...)
		if err == nil || !strings.Contains(err.Error(), "no database at "+missing+": ") {
			t.Errorf("secutil %s: %v, want a refusal naming %s", strings.Join(args, " "), err, missing)
		}
		args = command(dir)
		_, _, err = cli(t, "", cmdtest.Password+"\n", nil, args...)
		if err == nil || !strings.Contains(err.Error(), "the database "+dir+" is a folder") {
			t.Errorf("secutil %s: %v, want a refusal naming the folder", strings.Join(args, " "), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused commands left %v behind", entries)
	}
}

func TestCheckCreatable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "new.db"), ""},
		{file, ""}, // exists: whether to overwrite is the caller's
		{dir, "the copy " + dir + " is a folder: give the path of a file, such as " + filepath.Join(dir, "example.db")},
		{filepath.Join(dir, "no", "new.db"), "the copy " + filepath.Join(dir, "no", "new.db") + " cannot be created: there is no folder " + filepath.Join(dir, "no")},
		{filepath.Join(file, "new.db"), "there is no folder " + file},
	} {
		err := checkCreatable("the copy", c.path, "example.db")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkCreatable(%s) = %v, want %q", c.path, err, c.want)
		}
	}
}
