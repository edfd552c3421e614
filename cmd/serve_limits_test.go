package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
	"secutil/tools/breach"
)

// TestServeLimitFlagsReachTheServer serves with -hash-lookup-batch and
// -audit-dump-size lowered through their environment variables and finds
// each limit where the API applies it: one hash more than the batch is a
// 400 naming the limit, one byte more than the dump size a 413.
func TestServeLimitFlagsReachTheServer(t *testing.T) {
	t.Parallel()
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "limits.db"))
	vars := env(map[string]string{
		"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": cmdtest.SharedHashDB(t),
		"SECUTIL_HASH_LOOKUP_BATCH": "3", "SECUTIL_AUDIT_DUMP_SIZE": "1KiB",
	})
	if err := run(context.Background(), []string{"secutil", "user", "add", "-email", "ann@example.com", "-password", "-", "-plan", "pro"},
		vars, strings.NewReader(cmdtest.Password+"\n"), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	base, _, _, stop := serveInProcess(t, vars)
	defer stop(t)
	status, m := cmdtest.PostJSON(t, base+"/api/get_api_key", "", map[string]string{"email": "ann@example.com", "password": cmdtest.Password})
	key, _ := m["api_key"].(string)
	if status != http.StatusOK || key == "" {
		t.Fatalf("get_api_key: %d %v", status, m)
	}

	hashes := func(n int) string {
		var list []string
		for i := range n {
			list = append(list, fmt.Sprintf("%x", breach.SHA1(fmt.Sprint("limit test ", i))))
		}
		return strings.Join(list, "\n")
	}
	for _, c := range []struct {
		path, key string
		n, want   int
	}{
		{"/api/v1/hash_lookup", key, 3, http.StatusOK},
		{"/api/v1/hash_lookup", key, 4, http.StatusBadRequest},
		{"/api/v1/hash_lookup_site", "", 4, http.StatusBadRequest},
	} {
		status, m := cmdtest.PostJSON(t, base+c.path, c.key, map[string]string{"hashes": hashes(c.n)})
		if status != c.want {
			t.Errorf("%s with %d hashes: %d %v, want %d", c.path, c.n, status, m, c.want)
		}
		if msg, _ := m["error"].(string); c.want == http.StatusBadRequest && !strings.Contains(msg, "at most 3 hashes") {
			t.Errorf("%s with %d hashes: %q, want it to name the limit of 3", c.path, c.n, msg)
		}
	}

	line := "CORP\\alice:1104:aad3b435b51404eeaad3b435b51404ee:8846f7eaee8fb117ad06bdd830b7586c:::\n"
	fits := strings.Repeat(line, 1024/len(line))
	fits += strings.Repeat("#", 1024-len(fits))
	for _, c := range []struct {
		dump string
		want int
	}{
		{fits, http.StatusOK},
		{fits + "#", http.StatusRequestEntityTooLarge},
	} {
		status, m := cmdtest.PostJSON(t, base+"/api/v1/password_audit", key, map[string]string{"dump": c.dump})
		if status != c.want {
			t.Errorf("a dump of %d bytes: %d %v, want %d", len(c.dump), status, m, c.want)
		}
		if msg, _ := m["error"].(string); c.want == http.StatusRequestEntityTooLarge && !strings.Contains(msg, "larger than 1024 bytes") {
			t.Errorf("a dump of %d bytes: %q, want it to name the limit of 1024 bytes", len(c.dump), msg)
		}
	}
}

// TestServeRefusesLimitsOutOfBounds: a limit flag out of its bounds, on
// the command line or from its variable, is a usage error naming the flag
// and the bound, before anything is created on disk.
func TestServeRefusesLimitsOutOfBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "never.db")
	for _, c := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"-hash-lookup-batch", "0"}, nil, "-hash-lookup-batch must be 1 to 10000 hashes, not 0"},
		{[]string{"-hash-lookup-batch", "-5"}, nil, "-hash-lookup-batch must be 1 to 10000 hashes, not -5"},
		{[]string{"-hash-lookup-batch", "10001"}, nil, "-hash-lookup-batch must be 1 to 10000 hashes, not 10001"},
		{nil, map[string]string{"SECUTIL_HASH_LOOKUP_BATCH": "20000"}, "-hash-lookup-batch must be 1 to 10000 hashes, not 20000"},
		{[]string{"-hash-lookup-batch", "many"}, nil, `invalid value "many" for flag -hash-lookup-batch`},
		{[]string{"-audit-dump-size", "0"}, nil, "-audit-dump-size must be 1 byte to 6MiB, not 0"},
		{[]string{"-audit-dump-size", "-1KiB"}, nil, "-audit-dump-size must be 1 byte to 6MiB, not -1KiB"},
		{[]string{"-audit-dump-size", "6291457"}, nil, "-audit-dump-size must be 1 byte to 6MiB, not 6291457B"},
		{nil, map[string]string{"SECUTIL_AUDIT_DUMP_SIZE": "7MiB"}, "-audit-dump-size must be 1 byte to 6MiB, not 7MiB"},
		{[]string{"-audit-dump-size", "2MB"}, nil, `"2MB" is not a size: give a whole number of bytes, or one of KiB, MiB or GiB`},
	} {
		vars := map[string]string{"SECUTIL_ADDR": "127.0.0.1:0"}
		for k, v := range c.vars {
			vars[k] = v
		}
		_, _, err := cli(t, db, "", vars, append([]string{"serve"}, c.args...)...)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %q with %v: %v, want a usage error saying %q", c.args, c.vars, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused serve left %v behind", entries)
	}
}

func TestByteSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
		text string // String of the value; "" when Set refuses in
	}{
		{"6MiB", 6 << 20, "6MiB"},
		{"512KiB", 512 << 10, "512KiB"},
		{"1536KiB", 1536 << 10, "1536KiB"},
		{"2048KiB", 2 << 20, "2MiB"},
		{"1GiB", 1 << 30, "1GiB"},
		{"1048576", 1 << 20, "1MiB"},
		{"1000", 1000, "1000B"},
		{"1000B", 1000, "1000B"},
		{"6 MiB", 6 << 20, "6MiB"},
		{"0", 0, "0"},
		{"-2KiB", -2 << 10, "-2KiB"},
		{"", 0, ""},
		{"MiB", 0, ""},
		{"1.5MiB", 0, ""},
		{"2MB", 0, ""},
		{"6mib", 0, ""},
		{"9999999999GiB", 0, ""},
	} {
		var s byteSize
		err := s.Set(c.in)
		switch {
		case c.text == "" && err == nil:
			t.Errorf("Set(%q) = %d, want an error", c.in, s)
		case c.text != "" && (err != nil || int64(s) != c.want || s.String() != c.text):
			t.Errorf("Set(%q): %d %q %v, want %d %q", c.in, s, s.String(), err, c.want, c.text)
		}
	}
}

// FuzzByteSize: Set never panics, and a size it takes reads back as
// itself through String.
func FuzzByteSize(f *testing.F) {
	for _, s := range []string{"6MiB", "512KiB", "1048576", "-1KiB", "9223372036854775807", "8589934592GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s byteSize
		if s.Set(in) != nil {
			return
		}
		var again byteSize
		if err := again.Set(s.String()); err != nil || again != s {
			t.Fatalf("Set(%q) = %d, whose String %q reads back as %d (%v)", in, s, s.String(), again, err)
		}
	})
}
