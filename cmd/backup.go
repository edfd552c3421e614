package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"secutil/store"
)

// backup is `secutil backup DEST`: a consistent copy of an SQLite database,
// safe while serving; for PostgreSQL, the pg_dump command to run.
func (Program) backup(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", stderr)
	db := fs.String("db", defaultDB, existingDBUsage)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: secutil backup [-db FILE] DEST", ErrUsage)
	}
	dest := fs.Arg(0)
	if store.IsPostgres(*db) {
		fmt.Fprintf(stdout, "A PostgreSQL database is backed up with pg_dump, which copies one consistent snapshot while the servers keep running:\n\n"+
			"  pg_dump --format=custom --file=%s '%s'\n\n"+
			"and restored into a new, empty database with pg_restore --dbname=URL %[1]s.\n", dest, store.Describe(*db))
		if strings.Contains(store.Describe(*db), ":xxxxx@") {
			fmt.Fprintln(stdout, "The password is hidden: give pg_dump the real one, or set it in PGPASSWORD or ~/.pgpass.")
		}
		return errors.New("no backup written: use pg_dump as shown")
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s exists; refusing to overwrite it", dest)
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(ctx, dest); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", *db, dest)
	return nil
}
