package cmd

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/cmd/cmdtest"
)

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
	setupURL := cmdtest.SetupLine.FindString(out)

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
		body := map[string]string{"token": token, "email": "boss@example.com", "password": cmdtest.Password}
		if status, m := cmdtest.PostJSON(t, base+"/setup", "", body); status != 200 || m["status"] != "admin_created" {
			t.Fatalf("setup: %d %v", status, m)
		}
		body["email"] = "other@example.com"
		if status, m := cmdtest.PostJSON(t, base+"/setup", "", body); status != http.StatusGone || m["code"] != "setup_done" {
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
	db := cmdtest.NewDatabase(t, filepath.Join(t.TempDir(), "admin.db"))
	mustCLI(t, db, "", "user", "add", "-email", "boss@example.com", "-password", cmdtest.Password, "-admin")
	_, stdout, _ := serveDB(t, db, map[string]string{"SECUTIL_REGISTRATION": "invite", "SECUTIL_SMTP_URL": "smtp://mail.example:587?from=secutil@example.com"})
	out := stdout.String()
	if strings.Contains(out, "/setup") || strings.Contains(out, "no administrator") || strings.Contains(out, "Mail: none") {
		t.Errorf("start message of a server with an admin and mail:\n%s", out)
	}
	if !strings.Contains(out, "Registration: by invite.") {
		t.Errorf("SECUTIL_REGISTRATION=invite not in the start message:\n%s", out)
	}
}

func TestCommandName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args0, exe, want string }{
		{"/tmp/go-build123/b001/exe/secutil", "/tmp/go-build123/b001/exe/secutil", "go run ."},
		{"./secutil", "/home/op/secutil/secutil", "./secutil"},
		{"secutil", "/usr/local/bin/secutil", "secutil"},
		{"/opt/my dir/secutil", "/opt/my dir/secutil", "'/opt/my dir/secutil'"},
		{"/tmp/go-build9/b001/secutil.test", "/tmp/go-build9/b001/secutil.test", "secutil"},
	} {
		if got := commandName(tc.args0, tc.exe); got != tc.want {
			t.Errorf("commandName(%q, %q) = %q, want %q", tc.args0, tc.exe, got, tc.want)
		}
	}
}

// An instance on PostgreSQL keeps its reverse-lookup index in its working
// directory unless -hash-db says where: its start message says which
// file, as a full path, since several processes may start from one
// directory. Beside an SQLite database the index goes without saying.
func TestStartMessageNamesTheIndexOnPostgres(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		config serveConfig
		want   string
	}{
		{serveConfig{db: "postgres://secutil@db.internal/secutil", registration: "closed"}, "Hash index: " + filepath.Join(wd, "secutil-hashes.db") + ", this instance's own"},
		{serveConfig{db: "postgres://secutil@db.internal/secutil", hashDB: "/srv/secutil/hashes.db", registration: "closed"}, "Hash index: /srv/secutil/hashes.db, this instance's own"},
		{serveConfig{db: "secutil.db", registration: "closed"}, ""},
	} {
		var out strings.Builder
		writeStartMessage(&out, c.config, "v1", "http://127.0.0.1:8080", "")
		if c.want == "" && strings.Contains(out.String(), "Hash index") || !strings.Contains(out.String(), c.want) {
			t.Errorf("-db %s -hash-db %q: start message\n%s\nwant %q", c.config.db, c.config.hashDB, out.String(), c.want)
		}
	}
}
