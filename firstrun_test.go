package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"secutil/store/hashindex"
	"secutil/tools/strength"
	"strings"
	"sync"
	"testing"
)

var setupLine = regexp.MustCompile(`(https?://\S+/setup\?token=\S+)`)

// sharedIndexDir holds the reverse-lookup index that serveDB's servers
// share, seeded once from the embedded list (seconds, far more under
// -race) by the first test that asks for it; the servers find it seeded.
// TestMain removes it.
var (
	sharedIndexDir  string
	sharedIndexOnce sync.Once
	sharedIndexErr  error
)

func sharedHashDB(t *testing.T) string {
	t.Helper()
	sharedIndexOnce.Do(func() {
		if sharedIndexDir, sharedIndexErr = os.MkdirTemp("", "secutil-hashes-"); sharedIndexErr != nil {
			return
		}
		var ix *hashindex.Index
		if ix, sharedIndexErr = openHashIndex(context.Background(), filepath.Join(sharedIndexDir, "hashes.db"), "", strength.CommonPasswords()); sharedIndexErr == nil {
			sharedIndexErr = ix.Close()
		}
	})
	if sharedIndexErr != nil {
		t.Fatal(sharedIndexErr)
	}
	return filepath.Join(sharedIndexDir, "hashes.db")
}

// serveDB serves db in-process with the index of sharedHashDB and the
// other settings in vars, until the test ends; it returns the server's
// URL and what it writes to standard output and error.
func serveDB(t *testing.T, db string, vars map[string]string) (string, *syncBuffer, *syncBuffer) {
	t.Helper()
	all := map[string]string{"SECUTIL_DB": db, "SECUTIL_ADDR": "127.0.0.1:0", "SECUTIL_HASH_DB": sharedHashDB(t)}
	for k, v := range vars {
		all[k] = v
	}
	base, stdout, stderr, stop := serveInProcess(t, env(all))
	t.Cleanup(func() { stop(t) })
	return base, stdout, stderr
}

func TestFirstStartPrintsTheSetupLink(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "first.db")
	base, stdout, stderr := serveDB(t, db, nil)
	out := stdout.String()
	for _, want := range []string{
		"Registration: open.",
		"Mail: none (no -smtp-url). Verification and password-reset codes are written to this server's log",
		"This server has no administrator yet.",
		base + "/setup?token=",
		"secutil user add -db " + db + " -email you@example.com -admin",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("start message lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out+stderr.String(), "listening"); n != 1 {
		t.Errorf("the start message appears %d times on standard output and the log:\n%s\n%s", n, out, stderr)
	}
	setupURL := setupLine.FindString(out)

	t.Run("a wrong token gets a page, not JSON", func(t *testing.T) {
		res, err := http.Get(base + "/setup?token=wrong")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(body), "setup link is not valid") {
			t.Fatalf("%d %s\n%s", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	})

	t.Run("the link creates the first admin, once", func(t *testing.T) {
		token := setupURL[strings.Index(setupURL, "token=")+len("token="):]
		body := map[string]string{"token": token, "email": "boss@example.com", "password": e2ePassword}
		if status, m := postJSON(t, base+"/setup", "", body); status != 200 || m["status"] != "admin_created" {
			t.Fatalf("setup: %d %v", status, m)
		}
		body["email"] = "other@example.com"
		if status, m := postJSON(t, base+"/setup", "", body); status != http.StatusGone || m["code"] != "setup_done" {
			t.Fatalf("setup again: %d %v", status, m)
		}
		a := mustStoredAccount(t, db, "boss@example.com")
		if !a.Admin || !a.Verified || a.Plan != "pro" {
			t.Fatalf("first admin %+v", a)
		}
	})
}

func TestStartWithAnAdminPrintsNoSetupLink(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "admin.db")
	mustCLI(t, db, "", "user", "add", "-email", "boss@example.com", "-password", e2ePassword, "-admin")
	_, stdout, _ := serveDB(t, db, map[string]string{"SECUTIL_REGISTRATION": "invite", "SECUTIL_SMTP_URL": "smtp://mail.example:587?from=secutil@example.com"})
	out := stdout.String()
	if strings.Contains(out, "/setup") || strings.Contains(out, "no administrator") || strings.Contains(out, "Mail: none") {
		t.Errorf("start message of a server with an admin and mail:\n%s", out)
	}
	if !strings.Contains(out, "Registration: by invite.") {
		t.Errorf("SECUTIL_REGISTRATION=invite not in the start message:\n%s", out)
	}
}

func TestRegistrationDefaultsByAddress(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "open", "localhost:8080": "open", "[::1]:8080": "open",
		":8080": "closed", "0.0.0.0:8080": "closed", "192.0.2.7:8080": "closed", "[::]:8080": "closed",
	} {
		if got := defaultRegistration(addr); got != want {
			t.Errorf("defaultRegistration(%q) = %q, want %q", addr, got, want)
		}
	}
	// The setup link of a server on every address still opens on this machine.
	for addr, want := range map[string]string{"0.0.0.0:8080": "127.0.0.1:8080", "[::]:8080": "127.0.0.1:8080", "192.0.2.7:8080": "192.0.2.7:8080"} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := browsableAddr(tcp); got != want {
			t.Errorf("browsableAddr(%s) = %s, want %s", addr, got, want)
		}
	}
}
