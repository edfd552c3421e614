package cmd

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
)

// TestRunRejectsBadInvocations: every mistake in the invocation is a usage
// error (exit status 2, see main), refused before the database is created;
// a flag naming a file that cannot be used is an ordinary error (status 1).
func TestRunRejectsBadInvocations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() }) // after the parallel subtests
	for _, tt := range []struct {
		name      string
		args      []string
		env       map[string]string
		wantUsage bool
	}{
		{"unknown command", []string{"frobnicate"}, nil, true},
		{"misspelt command", []string{"sevre"}, nil, true},
		{"user without a command", []string{"user"}, nil, true},
		{"unknown user command", []string{"user", "lst"}, nil, true},
		{"user add without email", []string{"user", "add", "-password", cmdtest.Password}, nil, true},
		{"user add with an invalid email", []string{"user", "add", "-email", "Ann <ann@example.com>", "-password", cmdtest.Password}, nil, true},
		{"user add with unknown plan", []string{"user", "add", "-email", "ann@example.com", "-password", cmdtest.Password, "-plan", "gold"}, nil, true},
		{"user add with unknown flag", []string{"user", "add", "-mail", "ann@example.com"}, nil, true},
		{"user add with an argument", []string{"user", "add", "-email", "ann@example.com", "extra"}, nil, true},
		{"user list with an argument", []string{"user", "list", "extra"}, nil, true},
		{"user set without email", []string{"user", "set", "-plan", "pro"}, nil, true},
		{"user set with two emails", []string{"user", "set", "a@example.com", "-plan", "pro", "b@example.com"}, nil, true},
		{"user set with nothing to change", []string{"user", "set", "ann@example.com"}, nil, true},
		{"user set with unknown plan", []string{"user", "set", "ann@example.com", "-plan", "gold"}, nil, true},
		{"user set unverifying", []string{"user", "set", "ann@example.com", "-verified=false"}, nil, true},
		{"user passwd with an invalid email", []string{"user", "passwd", "not-an-email"}, nil, true},
		{"user delete without email", []string{"user", "delete", "-yes"}, nil, true},
		{"backup without destination", []string{"backup"}, nil, true},
		{"backup with two destinations", []string{"backup", "a.db", "b.db"}, nil, true},
		{"import-wordlist without file", []string{"import-wordlist"}, nil, true},
		{"import-wordlist with unknown algorithm", []string{"import-wordlist", "-algorithms", "crc99", wordlistPath}, nil, true},
		{"serve with unknown log format", []string{"serve", "-log-format", "xml"}, nil, true},
		{"serve with unknown log format in env", []string{"serve"}, map[string]string{"SECUTIL_LOG_FORMAT": "xml"}, true},
		{"serve with unknown access-log setting", []string{"serve", "-access-log", "errors"}, nil, true},
		{"serve with unknown access-log setting in env", []string{"serve"}, map[string]string{"SECUTIL_ACCESS_LOG": "quiet"}, true},
		{"serve with a negative drain", []string{"serve", "-drain", "-1s"}, nil, true},
		{"serve with a drain that is no duration", []string{"serve"}, map[string]string{"SECUTIL_DRAIN": "5"}, true},
		{"serve with unknown flag", []string{"serve", "-no-such-flag"}, nil, true},
		{"default command with unknown flag", []string{"-no-such-flag"}, nil, true},
		{"short admin token", []string{"serve", "-admin-token", "short"}, nil, true},
		{"short billing secret", []string{"serve", "-billing-secret", "short"}, nil, true},
		{"checkout URL not http", []string{"serve", "-checkout-url", "ftp://pay.example/{product_id}"}, nil, true},
		{"server key too short", []string{"serve", "-server-key", "abcd"}, nil, true},
		{"profiler on every interface", []string{"serve", "-pprof-addr", "0.0.0.0:6060"}, nil, true},
		{"profiler without a host", []string{"serve", "-pprof-addr", ":6060"}, nil, true},
		{"profiler on another machine", []string{"serve", "-pprof-addr", "10.0.0.5:6060"}, nil, true},
		{"hash upstream not a URL", []string{"serve", "-hash-upstream", "not a url"}, nil, true},
		{"trusted proxy not an address", []string{"serve", "-trusted-proxies", "10.0.0.0/8,proxy.example"}, nil, true},
		{"smtp URL not smtp", []string{"serve", "-smtp-url", "http://mail.example"}, nil, true},
		{"TLS certificate without key", []string{"serve", "-tls-cert", "cert.pem"}, nil, true},
		{"address without a port", []string{"serve", "-addr", "127.0.0.1"}, nil, true},
		{"unknown registration policy", []string{"serve", "-registration", "sometimes"}, nil, true},
		{"unknown registration policy in env", []string{"serve"}, map[string]string{"SECUTIL_REGISTRATION": "sometimes"}, true},
		{"busy port", []string{"serve", "-addr", busy.Addr().String()}, nil, false},
		{"missing TLS certificate", []string{"serve", "-tls-cert", "/no/such/cert.pem", "-tls-key", "/no/such/key.pem"}, nil, false},
		{"user add with a common password", []string{"user", "add", "-email", "a@b.c", "-password", "password"}, nil, false},
		{"backup onto an existing file", []string{"backup", existing}, nil, false},
		{"backup of a missing database", []string{"backup", filepath.Join(dir, "copy.db")}, nil, false},
		{"user add on a missing database", []string{"user", "add", "-email", "ann@example.com"}, nil, false},
		{"import-wordlist beside a missing database", []string{"import-wordlist", wordlistPath}, nil, false},
		{"user list of a missing database", []string{"user", "list"}, nil, false},
		{"user set on a missing database", []string{"user", "set", "ann@example.com", "-plan", "pro"}, nil, false},
		{"user passwd on a missing database", []string{"user", "passwd", "ann@example.com"}, nil, false},
		{"user delete on a missing database", []string{"user", "delete", "-yes", "ann@example.com"}, nil, false},
		{"import-wordlist of a missing file", []string{"import-wordlist", "/no/such/words.txt"}, nil, false},
		{"missing GeoIP database", []string{"serve", "-geoip-city", "/no/such/file.mmdb"}, nil, false},
		{"missing breach file", []string{"serve", "-breach-file", "/no/such/pwned.txt"}, nil, false},
		{"breach file of the wrong format", []string{"serve", "-breach-file", wordlistPath}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "never.db")
			vars := map[string]string{"SECUTIL_DB": db}
			for k, v := range tt.env {
				vars[k] = v
			}
			args := append([]string{"secutil"}, tt.args...)
			err := run(context.Background(), args, env(vars), strings.NewReader(""), io.Discard, io.Discard)
			if err == nil {
				t.Fatalf("run(%q) succeeded", args)
			}
			if got := errors.Is(err, ErrUsage); got != tt.wantUsage {
				t.Errorf("run(%q) = %v; errors.Is(err, ErrUsage) = %v, want %v", args, err, got, tt.wantUsage)
			}
			if _, statErr := os.Stat(db); statErr == nil {
				t.Errorf("run(%q) created the database before refusing", args)
			}
		})
	}
}
