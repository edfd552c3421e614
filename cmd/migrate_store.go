package cmd

import (
	"context"
	"fmt"
	"io"

	"secutil/store"
	"secutil/tools/plural"
)

// migrateStore copies an install into a new, empty database, typically
// from SQLite to PostgreSQL when a second server is added.
func (Program) migrateStore(ctx context.Context, args []string, getenv func(string) string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate-store", stderr)
	from := fs.String("from", "", "the database to copy: an SQLite file, or a postgres:// URL")
	to := fs.String("to", "", "the new, empty database to copy into: a postgres:// URL, or an SQLite file")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	switch {
	case *from == "" || *to == "" || fs.NArg() > 0:
		return fmt.Errorf("%w: secutil migrate-store -from secutil.db -to postgres://user@host/db", ErrUsage)
	case *from == *to:
		return fmt.Errorf("%w: -from and -to are the same database", ErrUsage)
	}
	if err := checkDatabaseCreatable(*to); err != nil {
		return err
	}
	src, err := openExisting(ctx, *from) // rather than copy a new, empty file
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := store.Open(ctx, *to)
	if err != nil {
		return err
	}
	defer dst.Close()
	counts, err := store.Copy(ctx, src, dst)
	if err != nil {
		return err
	}
	var total int64
	for _, c := range counts {
		fmt.Fprintf(stdout, "%-20s %13s\n", c.Table, plural.Count(c.Rows, "row", "rows"))
		total += c.Rows
	}
	fmt.Fprintf(stdout, "copied %s from %s to %s; the row counts match\n", plural.Count(total, "row", "rows"), store.Describe(*from), store.Describe(*to))
	return nil
}
