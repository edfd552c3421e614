package cmd

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/store"
	"secutil/store/pgtest"
)

// TestMigrateStore copies an SQLite install with the command, into a new
// SQLite file and (with SECUTIL_TEST_POSTGRES) into PostgreSQL, where the
// account's password and key still work; a second run refuses the
// non-empty target.
func TestMigrateStore(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{store.SQLite, store.Postgres} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			from := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "secutil.db"))
			if err := run(ctx, []string{"secutil", "user", "add", "-db", from, "-email", "ann@example.com", "-password", "-", "-plan", "pro", "-admin"},
				env(nil), strings.NewReader(cmdtest.Password+"\n"), io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			src, err := store.Open(ctx, from)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := src.AccountByEmail(ctx, "ann@example.com")
			if err := src.IssueKey(ctx, a.ID, "default", bytes.Repeat([]byte{7}, 32), "sk_7…"); err != nil {
				t.Fatal(err)
			}
			if _, err := src.CommitUsage(ctx, store.Charge{AccountID: a.ID, Suggestion: &store.Suggestion{AccountID: a.ID, Message: "hi"}}); err != nil {
				t.Fatal(err)
			}
			src.Close()

			to := filepath.Join(t.TempDir(), "copy.db")
			if backend == store.Postgres {
				to = pgtest.URL(t)
			}
			var out bytes.Buffer
			if err := run(ctx, []string{"secutil", "migrate-store", "-from", from, "-to", to}, env(nil), nil, &out, io.Discard); err != nil {
				t.Fatalf("migrate-store: %v\n%s", err, out.String())
			}
			for _, line := range []string{"accounts                     1 row", "api_keys                     1 row", "suggestions                  1 row", "the row counts match"} {
				if !strings.Contains(out.String(), line) {
					t.Errorf("output lacks %q:\n%s", line, out.String())
				}
			}
			dst, err := store.Open(ctx, to)
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			k, acct, err := dst.KeyByHash(ctx, bytes.Repeat([]byte{7}, 32))
			if err != nil || k.Name != "default" || !acct.Admin || acct.Plan != store.PlanPro {
				t.Fatalf("the key after migrate-store: %+v %+v %v", k, acct, err)
			}
			if used, _ := dst.Usage(ctx, acct.ID); used != 1 {
				t.Fatalf("usage after migrate-store: %d, want 1", used)
			}

			err = run(ctx, []string{"secutil", "migrate-store", "-from", from, "-to", to}, env(nil), nil, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "not empty") {
				t.Fatalf("second migrate-store: got %v, want a refusal of the non-empty target", err)
			}
		})
	}
}

func TestMigrateStoreRefusesBadInvocations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-from", filepath.Join(dir, "a.db")},
		{"-to", filepath.Join(dir, "b.db")},
		{"-from", filepath.Join(dir, "a.db"), "-to", filepath.Join(dir, "a.db")},
		{"-from", filepath.Join(dir, "missing.db"), "-to", filepath.Join(dir, "b.db")},
	} {
		err := run(context.Background(), append([]string{"secutil", "migrate-store"}, args...), env(nil), nil, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("migrate-store %q succeeded", args)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*")); len(matches) > 0 {
		t.Fatalf("refused invocations left files behind: %v", matches)
	}
}
