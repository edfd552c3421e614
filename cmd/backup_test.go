package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// backup does not copy a PostgreSQL database: it shows the pg_dump
// command, without the URL's password, and fails.
func TestBackupOfPostgresShowsPgDump(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(context.Background(), []string{"secutil", "backup", "-db", "postgres://ann:s3cret@db.example/secutil?sslmode=require", "nightly.dump"},
		env(nil), nil, &out, io.Discard)
	if err == nil {
		t.Fatal("backup of a PostgreSQL database succeeded")
	}
	want := "pg_dump --format=custom --file=nightly.dump 'postgres://ann:xxxxx@db.example/secutil?sslmode=require'"
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "s3cret") {
		t.Fatalf("backup printed:\n%s\nwant the command %s, without the password", out.String(), want)
	}
}
