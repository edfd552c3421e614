package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"secutil/store"
)

// backup is `secutil backup DEST`: a consistent copy of an SQLite database,
// safe while serving; for PostgreSQL, the pg_dump command to run.
func (Program) backup(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	flags := newFlagSet("backup", stderr)
	db := flags.String("db", defaultDB, existingDBUsage)
	if err := parseFlags(flags, args, getenv); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return fmt.Errorf("%w: secutil backup [-db FILE] DEST", ErrUsage)
	}
	dest := flags.Arg(0)
	if store.IsPostgres(*db) {
		fmt.Fprintf(stdout, "A PostgreSQL database is backed up with pg_dump, which copies one consistent snapshot while the servers keep running:\n\n"+
			"  pg_dump --format=custom --file=%s '%s'\n\n"+
			"and restored into a new, empty database with pg_restore --dbname=URL %[1]s.\n", dest, store.Describe(*db))
		if strings.Contains(store.Describe(*db), ":xxxxx@") {
			fmt.Fprintln(stdout, "The password is hidden: give pg_dump the real one, or set it in PGPASSWORD or ~/.pgpass.")
		}
		return errors.New("no backup written: use pg_dump as shown")
	}
	if err := checkExisting(*db); err != nil {
		return err
	}
	if fi, err := os.Stat(dest); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s exists; refusing to overwrite it", dest)
	}
	if err := checkCreatable("the copy", dest, "secutil-backup.db"); err != nil {
		return err
	}
	// The copy holds the password and key hashes: it is made empty and
	// readable by its owner only before SQLite writes into it (VACUUM INTO
	// takes an empty file), so it is never readable by others, even while
	// being written.
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; refusing to overwrite it", dest)
	}
	if err != nil {
		return err
	}
	f.Close()
	st, err := store.Open(ctx, *db)
	if err == nil {
		err = st.Backup(ctx, dest)
		st.Close()
	}
	if err != nil {
		os.Remove(dest)
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s, readable by you only (it holds password and key hashes)\n", *db, dest)
	fmt.Fprintf(stdout, "The server key is not in the copy: keep it apart, with the same care. The IPs sealed in the audit log open only with it. %s\n", serverKeyWhere(*db, getenv))
	return nil
}

// serverKeyWhere says where the server key of the database db is: in
// SECUTIL_SERVER_KEY, or in the key file serve keeps beside the database.
func serverKeyWhere(db string, getenv func(string) string) string {
	if getenv("SECUTIL_SERVER_KEY") != "" {
		return "It is the value of SECUTIL_SERVER_KEY (serve's -server-key)."
	}
	file := serverKeyFile(db)
	if _, err := os.Stat(file); err == nil {
		return "It is in " + file + ", beside the database."
	}
	return "It is not in " + file + ", where serve keeps it beside the database, so it is the -server-key (or SECUTIL_SERVER_KEY) serve is given."
}
