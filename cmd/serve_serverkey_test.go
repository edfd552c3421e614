package cmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/tools/seal"
)

// serveOnce starts the server on db (with the shared hash index, which
// plays no part), waits until it listens, and stops it.
func serveOnce(t *testing.T, db string, vars map[string]string) error {
	t.Helper()
	all := map[string]string{"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t)}
	for k, v := range vars {
		all[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout := &cmdtest.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"secutil"}, env(all), nil, stdout, io.Discard) }()
	deadline := time.After(20 * time.Second)
	for !cmdtest.ListenLine.MatchString(stdout.String()) {
		select {
		case err := <-done:
			return err
		case <-deadline:
			t.Fatal("the server did not start")
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	return <-done
}

// oldSettings is a database of an earlier version, which kept the server
// key among its settings. (The store's own test checks that deleting it
// leaves no copy in the database files.)
type oldSettings struct {
	values    map[string][]byte
	deleteErr error
}

func (o *oldSettings) Setting(_ context.Context, name string) ([]byte, error) {
	return o.values[name], nil
}

func (o *oldSettings) DeleteSetting(_ context.Context, name string) error {
	if o.deleteErr != nil {
		return o.deleteErr
	}
	delete(o.values, name)
	return nil
}

// TestServerKeyMovesOutOfTheDatabase: the key that seals client IPs used
// to sit in the same database, so a copy of the file opened every sealed
// IP. At start it moves to a file beside the database (mode 0600).
func TestServerKeyMovesOutOfTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old := make([]byte, seal.KeySize)
	rand.Read(old)
	dir := t.TempDir()

	t.Run("an interrupted move keeps the key", func(t *testing.T) {
		path := filepath.Join(dir, "interrupted-server.key")
		db := &oldSettings{values: map[string][]byte{"server_key": old}, deleteErr: errors.New("disk gone")}
		if err := moveServerKeyOut(ctx, db, path); err == nil {
			t.Fatal("no error")
		}
		checkKeyFile(t, path, old)
		if db.values["server_key"] == nil {
			t.Fatal("the database's copy went before the file was safe")
		}
		db.deleteErr = nil // the next start completes the move
		if err := moveServerKeyOut(ctx, db, path); err != nil || db.values["server_key"] != nil {
			t.Fatalf("second start: %v, %x left", err, db.values["server_key"])
		}
		checkKeyFile(t, path, old)
	})
	t.Run("moved, then used from the file", func(t *testing.T) {
		path := filepath.Join(dir, "moved-server.key")
		db := &oldSettings{values: map[string][]byte{"server_key": old}}
		if err := moveServerKeyOut(ctx, db, path); err != nil {
			t.Fatal(err)
		}
		if db.values["server_key"] != nil {
			t.Fatal("the key is still in the database")
		}
		checkKeyFile(t, path, old)
		if key, err := fileServerKey(path); err != nil || !bytes.Equal(key, old) {
			t.Fatalf("the server would use %x, %v", key, err)
		}
	})
	t.Run("a key in the database that differs from the file is not picked silently", func(t *testing.T) {
		path := filepath.Join(dir, "moved-server.key")
		db := &oldSettings{values: map[string][]byte{"server_key": bytes.Repeat([]byte{1}, seal.KeySize)}}
		if err := moveServerKeyOut(ctx, db, path); err == nil || !strings.Contains(err.Error(), "differs") {
			t.Fatalf("got %v", err)
		}
		if db.values["server_key"] == nil {
			t.Fatal("a key was deleted unresolved")
		}
	})
}

// TestServerKeyFile: on the real binary's start, the key is generated into
// a file beside the database, kept private, and reused.
func TestServerKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	keyFile := filepath.Join(dir, "new-server.key")
	var first []byte
	t.Run("a fresh install generates one", func(t *testing.T) {
		if err := serveOnce(t, db, nil); err != nil {
			t.Fatal(err)
		}
		first = checkKeyFile(t, keyFile, nil)
	})
	t.Run("the next start reuses it", func(t *testing.T) {
		if err := serveOnce(t, db, nil); err != nil {
			t.Fatal(err)
		}
		checkKeyFile(t, keyFile, first)
	})
	t.Run("a key file others can read is refused", func(t *testing.T) {
		os.Chmod(keyFile, 0o644)
		defer os.Chmod(keyFile, 0o600)
		if err := serveOnce(t, db, nil); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("with -server-key no file is made", func(t *testing.T) {
		other := filepath.Join(dir, "given.db")
		if err := serveOnce(t, other, map[string]string{"SECUTIL_SERVER_KEY": strings.Repeat("ab", seal.KeySize)}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "given-server.key")); !os.IsNotExist(err) {
			t.Fatalf("a key file was made beside a server given its key: %v", err)
		}
	})
}

// checkKeyFile checks the key file's mode, and its key when want is not
// nil; it returns the key.
func checkKeyFile(t *testing.T, path string, want []byte) []byte {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no key file beside the database: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", info.Mode().Perm())
	}
	content, _ := os.ReadFile(path)
	key, err := hex.DecodeString(strings.TrimSpace(string(content)))
	if err != nil || len(key) != seal.KeySize || (want != nil && !bytes.Equal(key, want)) {
		t.Fatalf("key file holds %q", content)
	}
	return key
}
