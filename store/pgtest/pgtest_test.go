package pgtest

import (
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec" // pgtest.go has an exec of its own
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

// query runs a query that returns one integer, on a connection of its own
// to url.
func query(t *testing.T, url, sql string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// closer is a function as an io.Closer.
type closer func() error

func (c closer) Close() error { return c() }

// A schema given back is lent again as Open left it: its rows gone but
// those Open wrote, its sequences started over.
func TestPoolLendsEmptiedSchemas(t *testing.T) {
	if !Enabled() {
		t.Skip(EnvVar + " is not set: no PostgreSQL to test against")
	}
	migrations := 0
	pool := &Pool{Open: func(ctx context.Context, url string) (io.Closer, error) {
		migrations++
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return nil, err
		}
		_, err = conn.Exec(ctx, `CREATE TABLE version (n integer NOT NULL);
			INSERT INTO version VALUES (3);
			CREATE TABLE parents (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
			CREATE TABLE children (parent bigint NOT NULL REFERENCES parents)`)
		return closer(func() error { return conn.Close(ctx) }), err
	}}
	var first string
	for round := range 2 {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			url := pool.URL(t)
			if round == 0 {
				first = url
			} else if url != first {
				t.Errorf("lent %s, want %s again", url, first)
			}
			if n := query(t, url, "SELECT count(*) FROM children"); n != 0 {
				t.Errorf("%d rows left in children", n)
			}
			if n := query(t, url, "SELECT n FROM version"); n != 3 {
				t.Errorf("version %d, want the 3 Open wrote", n)
			}
			if id := query(t, url, "WITH p AS (INSERT INTO parents DEFAULT VALUES RETURNING id) INSERT INTO children SELECT id FROM p RETURNING parent"); id != 1 {
				t.Errorf("the first parent's id is %d, want 1", id)
			}
			query(t, url, "WITH v AS (UPDATE version SET n = 4 RETURNING n) SELECT n FROM v")
		})
	}
	if migrations != 1 {
		t.Errorf("migrated %d schemas, want 1", migrations)
	}
}

// The first connection drops the schemas of dead processes on this
// machine, and leaves those of live ones. Not parallel: the sweep it sets
// off counts this process's own schemas as a dead one's.
func TestDeadProcessesSchemasAreDropped(t *testing.T) {
	if !Enabled() {
		t.Skip(EnvVar + " is not set: no PostgreSQL to test against")
	}
	gone := osexec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("pgtest_%s_%d_dead", machine, gone.Process.Pid)
	live := fmt.Sprintf("pgtest_%s_%d_live", machine, os.Getppid())
	other := fmt.Sprintf("pgtest_%s_%d_elsewhere", "00000000", gone.Process.Pid)
	mustExec(t, fmt.Sprintf("CREATE SCHEMA %s; CREATE SCHEMA %s; CREATE SCHEMA %s", dead, live, other))
	t.Cleanup(func() { mustExec(t, fmt.Sprintf("DROP SCHEMA IF EXISTS %s, %s, %s", dead, live, other)) })
	admin.Lock()
	admin.swept = false // as at a new process's first connection
	admin.Unlock()
	mustExec(t, "SELECT")
	for name, want := range map[string]int{dead: 0, live: 1, other: 1} {
		if n := query(t, os.Getenv(EnvVar), fmt.Sprintf("SELECT count(*) FROM pg_namespace WHERE nspname = '%s'", name)); n != want {
			t.Errorf("%d schemas %s, want %d", n, name, want)
		}
	}
}
