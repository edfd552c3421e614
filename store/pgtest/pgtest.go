// Package pgtest gives tests a PostgreSQL database of their own: a schema
// in the database that SECUTIL_TEST_POSTGRES names, which no other test
// uses while it runs. Without the variable the PostgreSQL tests skip; with
// it, a database that does not answer fails them (CI sets it, and must not
// pass by skipping).
//
// A new connection costs PostgreSQL far more than a statement (a process
// of its own; about 35 ms of CPU on a small virtual machine), and
// migrating a new schema more than emptying one. So a test process keeps
// one connection for creating, emptying and dropping schemas, and a Pool
// lends migrated schemas again once emptied. A package whose tests use
// pgtest runs them through Run (from TestMain), which drops the process's
// schemas at the end; the schemas of a process killed before that are
// dropped by the next test process that starts on the same machine.
package pgtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the database the tests may create schemas in, as a
// postgres:// URL.
const EnvVar = "SECUTIL_TEST_POSTGRES"

// Enabled reports whether EnvVar is set.
func Enabled() bool { return os.Getenv(EnvVar) != "" }

// URL returns a URL of the database EnvVar names whose search_path is a new,
// empty schema, dropped with everything in it when t ends. It skips t when
// EnvVar is not set. For a test that only needs a migrated database to
// hold its rows, Pool.URL is cheaper.
func URL(t testing.TB) string {
	t.Helper()
	base := baseURL(t)
	schema := newSchemaName()
	mustExec(t, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { mustExec(t, "DROP SCHEMA "+schema+" CASCADE") })
	return withSearchPath(base, schema)
}

// baseURL is EnvVar's URL; it skips t when EnvVar is not set.
func baseURL(t testing.TB) *url.URL {
	t.Helper()
	if !Enabled() {
		t.Skip(EnvVar + " is not set: no PostgreSQL to test against")
	}
	u, err := url.Parse(os.Getenv(EnvVar))
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	return u
}

// withSearchPath is base with schema as its search_path.
func withSearchPath(base *url.URL, schema string) string {
	u := *base
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Schema names carry the machine and the process that made them, so that
// a later process can tell the schemas of a dead one, and never drops
// those of a process still running (test binaries of several packages run
// at once): pgtest_<machine>_<pid>_<random>.
var (
	machine      = machineTag()
	schemaPrefix = fmt.Sprintf("pgtest_%s_%d_", machine, os.Getpid())
)

// machineTag is a short hash of the host name: pids are only comparable
// on one machine, and the database may serve several.
func machineTag() string {
	name, _ := os.Hostname()
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%08x", h.Sum32())
}

func newSchemaName() string { return schemaPrefix + strings.ToLower(rand.Text()[:12]) }

// admin is the process's one connection for creating, emptying and
// dropping schemas, opened on first use.
var admin struct {
	sync.Mutex
	conn  *pgx.Conn
	swept bool // the dead processes' schemas were dropped
}

// exec runs statements on the admin connection.
func exec(statements string, args ...any) error {
	return withAdmin(func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, statements, args...)
		return err
	})
}

func mustExec(t testing.TB, statements string) {
	t.Helper()
	if err := exec(statements); err != nil {
		t.Fatalf("%s: %v", statements, err)
	}
}

// withAdmin runs use with the admin connection, connecting first when
// there is none (or it broke), and dropping the schemas of dead processes
// when this process connects for the first time.
func withAdmin(use func(context.Context, *pgx.Conn) error) error {
	admin.Lock()
	defer admin.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if admin.conn == nil || admin.conn.IsClosed() {
		conn, err := pgx.Connect(ctx, os.Getenv(EnvVar))
		if err != nil {
			return fmt.Errorf("%s: %w", EnvVar, err)
		}
		admin.conn = conn
	}
	if !admin.swept {
		if err := dropSchemas(ctx, admin.conn, deadProcesses); err != nil {
			return err
		}
		admin.swept = true
	}
	return use(ctx, admin.conn)
}

// dropSchemas drops this machine's pgtest schemas whose process drop
// selects by its pid.
func dropSchemas(ctx context.Context, conn *pgx.Conn, drop func(pid int) bool) error {
	rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, "pgtest_"+machine+"_")
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	var doomed []string
	for _, name := range names {
		pid, err := strconv.Atoi(strings.Split(name, "_")[2])
		if err == nil && drop(pid) {
			doomed = append(doomed, name)
		}
	}
	// A few schemas a statement: each table, index and sequence dropped
	// holds a lock until the transaction ends, and the lock table is sized
	// by max_locks_per_transaction.
	for batch := range slices.Chunk(doomed, 10) {
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+strings.Join(batch, ", ")+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}

// deadProcesses selects the schemas of processes that are gone, and those
// with this process's pid: at the first connection it has made none yet,
// so they are a dead process's whose pid it was given again.
func deadProcesses(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return err != nil && !errors.Is(err, syscall.EPERM)
}

// Run runs the tests, then drops the schemas this process made and closes
// its connection: TestMain of a package whose tests use pgtest calls
// os.Exit(pgtest.Run(m)).
func Run(m *testing.M) int {
	code := m.Run()
	admin.Lock()
	defer admin.Unlock()
	if admin.conn == nil {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dropSchemas(ctx, admin.conn, func(pid int) bool { return pid == os.Getpid() }); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: this process's schemas are left for the next run to drop: %v\n", err)
	}
	admin.conn.Close(ctx)
	admin.conn = nil
	return code
}
