package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// TestDeleteSettingLeavesNoCopy: the server key that earlier versions kept
// in the database must not survive its move out in the database files.
func TestDeleteSettingLeavesNoCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := mustOpenStore(t)
	secret := []byte("0123456789abcdef-not-a-real-key-0123456789")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`INSERT INTO settings (name, value) VALUES ('server_key', ?)`, secret)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Setting(ctx, "server_key"); err != nil || string(got) != string(secret) {
		t.Fatalf("Setting = %q, %v", got, err)
	}
	if err := s.DeleteSetting(ctx, "server_key"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Setting(ctx, "server_key"); err != nil || got != nil {
		t.Fatalf("after the delete: %q, %v", got, err)
	}
	for _, name := range []string{path, path + "-wal"} {
		content, err := os.ReadFile(name)
		if err == nil && bytes.Contains(content, secret) {
			t.Errorf("%s still holds the deleted value", filepath.Base(name))
		}
	}
}
