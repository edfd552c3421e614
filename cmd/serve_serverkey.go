package cmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"secutil/store"
	"secutil/tools/seal"
)

// parseServerKey decodes -server-key; nil when none was given.
func parseServerKey(given string) ([]byte, error) {
	if given == "" {
		return nil, nil
	}
	key, err := decodeServerKey(given)
	if err != nil {
		return nil, fmt.Errorf("%w: -server-key %v", ErrUsage, err)
	}
	return key, nil
}

func decodeServerKey(text string) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(text))
	if err != nil || len(key) != seal.KeySize {
		return nil, fmt.Errorf("must be %d bytes as %d hex characters", seal.KeySize, 2*seal.KeySize)
	}
	return key, nil
}

// serverKeyFile is where the generated server key lives: beside the
// database (secutil.db → secutil-server.key), never in it, so a copy of
// the database does not open the IPs sealed in its audit log.
func serverKeyFile(db string) string { return besideDB(db, "-server.key") }

// settings is where earlier versions kept the server key (*store.Store).
type settings interface {
	Setting(ctx context.Context, name string) ([]byte, error)
	DeleteSetting(ctx context.Context, name string) error
}

// moveServerKeyOut moves a server key that earlier versions kept in the
// database into the key file. The file is written before the database's
// copy is deleted, so an interruption loses nothing.
func moveServerKeyOut(ctx context.Context, st settings, path string) error {
	inDB, err := st.Setting(ctx, "server_key")
	if err != nil || inDB == nil {
		return err
	}
	inFile, err := readKeyFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := writeKeyFile(path, inDB); err != nil {
			return err
		}
	case err != nil:
		return err
	case !bytes.Equal(inFile, inDB):
		return fmt.Errorf("the database holds a server key that differs from the one in %s: sealed audit IPs open only with the key that sealed them, so secutil will not pick one; move %s aside to keep the database's", path, path)
	}
	return st.DeleteSetting(ctx, "server_key")
}

// fileServerKey reads the key file, creating it with a new random key on
// first start.
func fileServerKey(path string) ([]byte, error) {
	key, err := readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key = make([]byte, seal.KeySize)
	rand.Read(key)
	err = writeKeyFile(path, key)
	if errors.Is(err, fs.ErrExist) {
		return readKeyFile(path) // another secutil on this database made it first
	}
	return key, err
}

// readKeyFile reads a key file, refusing one that others may read.
func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("server key file %s is open to other users (mode %v): chmod 600 it", path, info.Mode().Perm())
	}
	text, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return nil, err
	}
	key, err := decodeServerKey(string(text))
	if err != nil {
		return nil, fmt.Errorf("server key file %s: %v", path, err)
	}
	return key, nil
}

// writeKeyFile creates a key file readable by its owner only; it fails with
// fs.ErrExist when there is one.
func writeKeyFile(path string, key []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, hex.EncodeToString(key))
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(path) // a partial key file would stop the next start
	}
	return err
}

// loadServerKey is the server key: given is -server-key's, nil when none
// was given; then the key file's beside db, made on first start. A key an
// earlier version kept in the database moves to the file first.
func loadServerKey(ctx context.Context, st *store.Store, db string, given []byte) ([]byte, error) {
	keyFile := serverKeyFile(db)
	if err := moveServerKeyOut(ctx, st, keyFile); err != nil {
		return nil, err
	}
	if given != nil {
		return given, nil
	}
	return fileServerKey(keyFile)
}
