package pgtest

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Pool lends tests schemas that Open has brought up to date and that
// hold nothing but what it left in them. A test gives its schema back
// when it ends; the schema is then emptied (a DELETE of every table, its
// sequences started over, then the rows its opening wrote are put back)
// and lent again, which costs a fraction of creating and migrating a new
// one. A test that changes the
// schema itself (a migration test, one that sets the schema version) takes
// a new one from URL instead. Run drops a pool's schemas at the end of the
// process.
type Pool struct {
	// Open opens the new, empty schema at url as the tests will, which
	// brings it up to date (a store migrates its database when it opens
	// it); the pool closes what it returns.
	Open func(ctx context.Context, url string) (io.Closer, error)

	mu   sync.Mutex
	free []string // emptied schemas, ready to lend
	// What emptying a schema takes, learnt from the first one migrated:
	// its tables, and the schema that keeps a copy of the tables Open
	// wrote rows in (a table's one row of settings, say).
	tables, seeded []string
	seed           string
	sequences      []sequence
	// superuser: the admin connection may turn foreign keys and triggers
	// off (session_replication_role), which emptying with DELETE needs.
	superuser bool
}

// sequence is one of a migrated schema's sequences, and where it starts.
type sequence struct {
	name  string
	start int64
}

// URL returns a URL of the database EnvVar names whose search_path is a
// migrated schema that no other test uses until t ends. It skips t when
// EnvVar is not set. What t opens on the URL must be closed by then, as
// by a t.Cleanup registered after the call.
func (p *Pool) URL(t testing.TB) string {
	t.Helper()
	base := baseURL(t)
	schema, err := p.take(base)
	if err != nil {
		t.Fatalf("a migrated schema: %v", err)
	}
	t.Cleanup(func() {
		// A failed test's schema is not lent again: whatever failed it
		// might have left more than rows behind.
		if t.Failed() {
			mustExec(t, "DROP SCHEMA "+schema+" CASCADE")
			return
		}
		mustExec(t, p.emptying(schema))
		p.mu.Lock()
		p.free = append(p.free, schema)
		p.mu.Unlock()
	})
	return withSearchPath(base, schema)
}

// take returns a free schema, or a new one brought up to date.
func (p *Pool) take(base *url.URL) (string, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		schema := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return schema, nil
	}
	p.mu.Unlock()
	schema := newSchemaName()
	if err := exec("CREATE SCHEMA " + schema); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opened, err := p.Open(ctx, withSearchPath(base, schema))
	if err != nil {
		return "", err
	}
	if err := opened.Close(); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tables == nil {
		if err := p.learn(schema); err != nil {
			return "", err
		}
	}
	return schema, nil
}

// learn lists the tables of the schema Open just brought up to date,
// and copies those it wrote rows in to a schema of their own.
func (p *Pool) learn(migrated string) error {
	seed := newSchemaName()
	return withAdmin(func(ctx context.Context, conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, migrated)
		if err != nil {
			return err
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(tables) == 0 {
			return fmt.Errorf("migrating schema %s made no table", migrated)
		}
		var superuser bool
		if err := conn.QueryRow(ctx, `SELECT current_setting('is_superuser') = 'on'`).Scan(&superuser); err != nil {
			return err
		}
		rows, err = conn.Query(ctx, `SELECT sequencename, start_value FROM pg_sequences WHERE schemaname = $1 ORDER BY sequencename`, migrated)
		if err != nil {
			return err
		}
		sequences, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sequence, error) {
			var s sequence
			return s, row.Scan(&s.name, &s.start)
		})
		if err != nil {
			return err
		}
		var seeded []string
		copies := "CREATE SCHEMA " + seed
		for _, table := range tables {
			from := pgx.Identifier{migrated, table}.Sanitize()
			var written bool
			if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM "+from+")").Scan(&written); err != nil {
				return err
			}
			if written {
				seeded = append(seeded, table)
				copies += fmt.Sprintf("; CREATE TABLE %s AS TABLE %s", pgx.Identifier{seed, table}.Sanitize(), from)
			}
		}
		if _, err := conn.Exec(ctx, copies); err != nil {
			return err
		}
		p.tables, p.seeded, p.seed, p.sequences, p.superuser = tables, seeded, seed, sequences, superuser
		return nil
	})
}

// emptying is the statements that bring schema back to how Open left
// it: every table emptied, its sequences set back to their start, then the
// rows Open wrote, from their copy. A superuser's admin connection empties
// with DELETE, foreign keys and triggers off meanwhile
// (session_replication_role = replica), so the order of the tables does
// not matter and no trigger notifies anyone; any other role, with one
// TRUNCATE ... CASCADE. DELETE is the cheaper: a TRUNCATE gives every table
// and index a new file, and creating files by the thousand was most of
// what emptying cost (ext4 searches for a free inode).
func (p *Pool) emptying(schema string) string {
	var statements []string
	if p.superuser {
		statements = append(statements, "SET session_replication_role = replica")
		for _, table := range p.tables {
			statements = append(statements, "DELETE FROM "+pgx.Identifier{schema, table}.Sanitize())
		}
		statements = append(statements, "SET session_replication_role = origin")
		for _, seq := range p.sequences {
			statements = append(statements, fmt.Sprintf("SELECT setval('%s', %d, false)", pgx.Identifier{schema, seq.name}.Sanitize(), seq.start))
		}
	} else {
		var all []string
		for _, table := range p.tables {
			all = append(all, pgx.Identifier{schema, table}.Sanitize())
		}
		statements = append(statements, "TRUNCATE "+strings.Join(all, ", ")+" RESTART IDENTITY CASCADE")
	}
	for _, table := range p.seeded {
		statements = append(statements, fmt.Sprintf("INSERT INTO %s OVERRIDING SYSTEM VALUE SELECT * FROM %s",
			pgx.Identifier{schema, table}.Sanitize(), pgx.Identifier{p.seed, table}.Sanitize()))
	}
	return strings.Join(statements, "; ")
}
