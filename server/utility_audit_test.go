package server_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/tools/breach"
)

// indexOnlyPassword is in the test's reverse index and not in the embedded
// common-password list.
const indexOnlyPassword = "Winter2026!corp"

func ntHex(password string) string { return hex.EncodeToString(breach.NTLM(password)) }

// auditAccounts is how many accounts auditDump holds: the items an audit
// of it counts.
const auditAccounts = 7

// auditDump has one account for each finding of the audit, plus a line no
// format fits.
func auditDump() string {
	const emptyLM, realLM = "aad3b435b51404eeaad3b435b51404ee", "e52cac67419a9a224a3b108f3fa6cb6d"
	return strings.Join([]string{
		`CORP\alice:1104:` + realLM + `:` + ntHex("password") + `::: (status=Enabled)`,
		`CORP\bob:1105:` + emptyLM + `:` + ntHex("password") + `:::`,
		`CORP\Guest:501:` + emptyLM + `:` + ntHex("") + `:::`,
		`CORP\carol:1106:` + emptyLM + `:` + ntHex("carol") + `:::`,
		`CORP\WS01$:1107:` + emptyLM + `:` + ntHex("ws01") + `:::`,
		`dave:` + ntHex(indexOnlyPassword),
		`this line is no dump line`,
		`root:$1$saltsalt$qjXMvbEw8oaL.CzflDugX/:19000:0:99999:7:::`,
	}, "\n")
}

// auditEnv is a server with an NTLM breach file that holds "password" and
// a reverse index that holds indexOnlyPassword.
func auditEnv(t *testing.T, tweak ...func(*server.Deps)) *env {
	t.Helper()
	dir := t.TempDir()
	lines := []string{strings.ToUpper(ntHex("password")) + ":7000000", "00000000000000000000000000000001:3"}
	slices.Sort(lines)
	ntlmFile := filepath.Join(dir, "pwned-ntlm.txt")
	if err := os.WriteFile(ntlmFile, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	nf, err := breach.OpenFile(ntlmFile, breach.KindNTLM)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nf.Close() })
	ix, err := hashindex.Open(filepath.Join(dir, "hashes.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Import(context.Background(), strings.NewReader(indexOnlyPassword+"\n"), []string{"ntlm"}, nil); err != nil {
		t.Fatal(err)
	}
	return newEnv(t, append([]func(*server.Deps){func(d *server.Deps) {
		d.BreachNTLM, d.Hashes = breach.NewFileSource(nf), ix
	}}, tweak...)...)
}

type auditAnswer struct {
	Accounts []map[string]any `json:"accounts"`
	Summary  map[string]any   `json:"summary"`
	Refused  []map[string]any `json:"refused"`
}

// TestPasswordAudit: the audit of a dump whose findings are known answers
// each of them on its account, with the summary, no-store, and no
// password unless asked.
func TestPasswordAudit(t *testing.T) {
	t.Parallel()
	e := auditEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	res := e.post("/api/v1/password_audit", map[string]any{"dump": auditDump()}, "X-API-Key", key)
	if res.status != 200 {
		t.Fatalf("%d %s\n%s", res.status, res.body, e.logs.String())
	}
	if cc := res.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	var got auditAnswer
	if err := json.Unmarshal(res.body, &got); err != nil {
		t.Fatalf("%v: %s", err, res.body)
	}
	if bytes.Contains(res.body, []byte(indexOnlyPassword)) || bytes.Contains(res.body, []byte(`"plaintext"`)) {
		t.Errorf("a password is in the answer without show_plaintext: %s", res.body)
	}
	type finding struct {
		account, field string
		want           any
	}
	byName := map[string]map[string]any{}
	for _, a := range got.Accounts {
		byName[a["account"].(string)] = a
	}
	for _, f := range []finding{
		{`CORP\alice`, "lm_present", true},
		{`CORP\alice`, "breached", float64(7000000)},
		{`CORP\alice`, "found_in", "common"},
		{`CORP\alice`, "shared_with", float64(1)},
		{`CORP\alice`, "status", "Enabled"},
		{`CORP\bob`, "shared_with", float64(1)},
		{`CORP\bob`, "lm_present", false},
		{`CORP\Guest`, "empty_password", true},
		{`CORP\carol`, "same_as_username", true},
		{`CORP\carol`, "breached", float64(0)},
		{`CORP\WS01$`, "default_computer_password", true},
		{"dave", "found_in", "index"},
		{"dave", "format", "user:hash"},
		{"root", "weak_scheme", "md5crypt"},
		{"root", "breached", nil},
	} {
		a, ok := byName[f.account]
		if !ok {
			t.Fatalf("no account %s in %s", f.account, res.body)
		}
		if a[f.field] != f.want {
			t.Errorf("%s: %s = %v, want %v", f.account, f.field, a[f.field], f.want)
		}
	}
	if len(got.Accounts) != 7 || got.Summary["accounts"] != float64(7) || got.Summary["refused_lines"] != float64(1) ||
		got.Summary["breached"] != float64(2) || got.Summary["shared_groups"] != float64(1) {
		t.Errorf("summary %v of %d accounts", got.Summary, len(got.Accounts))
	}
	if len(got.Refused) != 1 || got.Refused[0]["line"] != float64(7) {
		t.Errorf("refused %v, want line 7", got.Refused)
	}
	if strings.Contains(e.logs.String(), ntHex("password")) || strings.Contains(e.logs.String(), "CORP") {
		t.Errorf("the dump reached the log:\n%s", e.logs.String())
	}

	// show_plaintext asks for the passwords found.
	shown := e.post("/api/password_audit", map[string]any{"dump": auditDump(), "show_plaintext": true}, "X-API-Key", key).want(200)
	if !bytes.Contains(shown.body, []byte(`"plaintext":"`+indexOnlyPassword+`"`)) {
		t.Errorf("show_plaintext: %s", shown.body)
	}
	e.post("/api/v1/password_audit", map[string]any{"dump": auditDump()}).wantError(401, "unauthorized")
	e.post("/api/v1/password_audit", map[string]any{}, "X-API-Key", key).wantError(400, "missing_field")
}

// TestPasswordAuditDumpLimit: the dump limit is the server's setting, above
// the 1 MiB of other bodies, and a dump past it is a 413 that costs nothing.
func TestPasswordAuditDumpLimit(t *testing.T) {
	t.Parallel()
	e := auditEnv(t, func(d *server.Deps) { d.AuditDumpBytes = 2 << 20 })
	key := e.key("ann@example.com", store.PlanPro)
	// Long user names make 1.5 MiB of a dump out of a few thousand
	// accounts: its size is what the limit is about.
	line := strings.Repeat("u", 1000) + ":" + ntHex("password") + "\n"
	big := strings.Repeat(line, (3<<19)/len(line)) // 1.5 MiB: over the 1 MiB of other routes
	res := e.post("/api/v1/password_audit", map[string]any{"dump": big}, "X-API-Key", key).want(200)
	var got auditAnswer
	if err := json.Unmarshal(res.body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary["accounts"] != float64(len(big)/len(line)) {
		t.Errorf("accounts %v, want %d", got.Summary["accounts"], len(big)/len(line))
	}
	e.post("/api/v1/password_audit", map[string]any{"dump": big + big}, "X-API-Key", key).wantError(http.StatusRequestEntityTooLarge, "request_too_large")
	if _, err := server.New(server.Deps{Assets: os.DirFS(".."), AuditDumpBytes: server.MaxAuditDumpBytes + 1}); err == nil || !strings.Contains(err.Error(), "audit dump limit") {
		t.Errorf("a limit past MaxAuditDumpBytes: %v", err)
	}
}

// TestPasswordAuditPanel: the utilities page audits a dump posted by its
// form, without JavaScript, and shows the summary and the findings.
func TestPasswordAuditPanel(t *testing.T) {
	t.Parallel()
	e := auditEnv(t)
	e.account("ann@example.com", store.PlanPro)
	res := e.form("/password_audit", url.Values{"dump": {auditDump()}}, e.login("ann@example.com")).want(200)
	panel := panelOf(t, res.body, "tool-audit")
	for _, want := range []string{`id="audit-summary"`, `CORP\alice`, "LM hash. breached 7", "found (common)", "same as user name", "default computer password", "weak scheme md5crypt"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the panel lacks %q:\n%s", want, panel)
		}
	}
	if strings.Contains(panel, indexOnlyPassword) {
		t.Errorf("the panel shows a password without show_plaintext")
	}
}
