package server_test

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
	"secutil/tools/breach"
)

func TestDataBreach(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	check := func(body map[string]string, breached bool) {
		t.Helper()
		m := e.post("/api/v1/data_breach", body, "X-API-Key", key).want(200).json()
		if m["breached"] != breached || m["source"] != "test list" {
			t.Fatalf("%v → %v", body, m)
		}
	}
	check(map[string]string{"password": "password"}, true)
	check(map[string]string{"password": "an unlisted passphrase of mine"}, false)
	check(map[string]string{"sha1": strings.ToUpper(sha1Password)}, true)

	m := e.post("/api/data_breach", map[string]string{"prefix": "5baa6"}, "X-API-Key", key).want(200).json()
	suffixes := m["suffixes"].([]any)
	if len(suffixes) != 1 || suffixes[0].(map[string]any)["suffix"] != "1E4C9B93F3F0682250B6CF8331B7EE68FD8" {
		t.Fatalf("range: %v", m)
	}
	for _, bad := range []map[string]string{
		{}, {"password": "a", "sha1": sha1Password}, {"sha1": "abc"}, {"prefix": "5BAA"}, {"prefix": "zzzzz"},
		{"password": strings.Repeat("x", 2000)},
	} {
		// The message is the tool's own sentence, without a package prefix.
		if msg := e.post("/api/data_breach", bad, "X-API-Key", key).wantError(400, "invalid_request")["error"].(string); strings.HasPrefix(msg, "breach:") {
			t.Errorf("%v: message %q names the package", bad, msg)
		}
	}
	e.post("/api/data_breach", map[string]string{"ntlm": ntlmPassword}, "X-API-Key", key).wantError(400, "ntlm_not_configured")
	e.post("/api/data_breach", map[string]string{"password": "password"}).wantError(401, "unauthorized")
	// The root-level web variant takes the session.
	e.post("/data_breach", map[string]string{"password": "password"}, "Cookie", e.login("ann@example.com")).want(200)
}

func TestDataBreachFromPwnedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sha1File := filepath.Join(dir, "pwned-sha1.txt")
	ntlmFile := filepath.Join(dir, "pwned-ntlm.txt")
	os.WriteFile(sha1File, []byte("0000000000000000000000000000000000000001:5\r\n"+strings.ToUpper(sha1Password)+":9545824\r\nFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:1\r\n"), 0o600)
	os.WriteFile(ntlmFile, []byte("00000000000000000000000000000001:3\n"+strings.ToUpper(ntlmPassword)+":7000000\n"), 0o600)
	sf, err := breach.OpenFile(sha1File, breach.KindSHA1)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	nf, err := breach.OpenFile(ntlmFile, breach.KindNTLM)
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	e := newEnv(t, func(d *server.Deps) {
		d.Breach, d.BreachNTLM = breach.NewFileSource(sf), breach.NewFileSource(nf)
	})
	key := e.key("ann@example.com", store.PlanPro)
	if m := e.post("/api/data_breach", map[string]string{"password": "password"}, "X-API-Key", key).want(200).json(); m["count"] != float64(9545824) {
		t.Fatalf("%v", m)
	}
	if m := e.post("/api/data_breach", map[string]string{"ntlm": ntlmPassword}, "X-API-Key", key).want(200).json(); m["count"] != float64(7000000) {
		t.Fatalf("%v", m)
	}
	if m := e.post("/api/data_breach", map[string]string{"prefix": "00000"}, "X-API-Key", key).want(200).json(); len(m["suffixes"].([]any)) != 1 {
		t.Fatalf("%v", m)
	}
}

// TestBreachOnTheCommonListSaysSo: a password found in the embedded list,
// which has no counts, keeps "count": 0 and says "in the common list"
// rather than leaving 0 to read as "seen 0 times".
func TestBreachOnTheCommonListSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("br@example.com", store.PlanPro)
	found := e.post("/api/v1/data_breach", map[string]string{"password": "letmein"}, "X-API-Key", key).want(http.StatusOK).json()
	if found["breached"] != true || found["count"] != float64(0) || !strings.Contains(found["message"].(string), "in the common list") {
		t.Errorf("listed: %v", found)
	}
	missed := e.post("/api/v1/data_breach", map[string]string{"password": "a long passphrase nobody has used"}, "X-API-Key", key).want(http.StatusOK).json()
	if missed["breached"] != false || !strings.HasPrefix(missed["message"].(string), "not found in") {
		t.Errorf("not listed: %v", missed)
	}
	page := string(e.browse("GET", "/docs/operating", nil).want(http.StatusOK).body)
	if !strings.Contains(page, `id="breach-data"`) {
		t.Error("/docs/operating has no breach-data section for the breach panel to link to")
	}
}

// TestBreachRefusalsNameTheHash: a malformed hash is refused as "The
// SHA-1 hash ...", not "Sha1 must be exactly 40 hex digits" (a field name
// capitalised as a sentence), on the page and in the API.
func TestBreachRefusalsNameTheHash(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) { d.BreachNTLM = breach.NewListSource("test list", seedWords, breach.KindNTLM) })
	key := e.key("ann@example.com", store.PlanPro)
	session := e.sessionCookie("ann@example.com")
	for kind, want := range map[string]string{
		"sha1":   "The SHA-1 hash (sha1) must be exactly 40 hex digits.",
		"ntlm":   "The NTLM hash (ntlm) must be exactly 32 hex digits.",
		"prefix": "The range prefix (prefix) must be exactly 5 hex digits of a SHA-1 hash.",
	} {
		panel := html.UnescapeString(panelOf(t, e.browse("POST", "/data_breach", url.Values{"kind": {kind}, "query": {"abc"}}, session).want(400).body, "tool-breach"))
		if !strings.Contains(panel, `<p class="alert error" role="alert">`+want+`</p>`) {
			t.Errorf("%s: the panel says\n%s", kind, panel)
		}
		msg := e.post("/api/v1/data_breach", map[string]string{kind: "abc"}, "X-API-Key", key).wantError(400, "invalid_request")["error"].(string)
		if msg+"." != strings.ToLower(want[:1])+want[1:] {
			t.Errorf("%s: the API says %q", kind, msg)
		}
	}
}

// TestDataBreachBatch: arrays of sha1 or ntlm hashes are answered hash by
// hash in the order sent, from one pass over the breach data; a string is
// still the single answer.
func TestDataBreachBatch(t *testing.T) {
	t.Parallel()
	e := auditEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	unknown := strings.Repeat("ab", 16)
	m := e.post("/api/v1/data_breach", map[string]any{"ntlm": []string{unknown, " " + strings.ToUpper(ntlmPassword), "00000000000000000000000000000001"}}, "X-API-Key", key).want(200).json()
	results, _ := m["results"].([]any)
	want := []struct {
		hash     string
		breached bool
		count    float64
	}{{unknown, false, 0}, {strings.ToUpper(ntlmPassword), true, 7000000}, {"00000000000000000000000000000001", true, 3}}
	if len(results) != len(want) {
		t.Fatalf("%v", m)
	}
	for i, w := range want {
		r := results[i].(map[string]any)
		if r["hash"] != w.hash || r["breached"] != w.breached || r["count"] != w.count {
			t.Errorf("result %d: %v, want %+v", i, r, w)
		}
	}
	// A one-element array is a batch; SHA-1 from the server's source.
	m = e.post("/api/v1/data_breach", map[string]any{"sha1": []string{sha1Password}}, "X-API-Key", key).want(200).json()
	if r := m["results"].([]any)[0].(map[string]any); r["breached"] != true || m["source"] != "test list" {
		t.Errorf("sha1 batch: %v", m)
	}
	// A string is the single answer, as before.
	if m := e.post("/api/v1/data_breach", map[string]any{"ntlm": ntlmPassword}, "X-API-Key", key).want(200).json(); m["count"] != float64(7000000) || m["message"] == nil {
		t.Errorf("single ntlm: %v", m)
	}
	for _, bad := range []map[string]any{
		{"ntlm": []string{}},
		{"ntlm": []string{ntlmPassword, "nothex"}},
		{"ntlm": []string{ntlmPassword}, "password": "x"},
		{"ntlm": []string{ntlmPassword}, "sha1": []string{sha1Password}},
		{"sha1": make([]string, 1001)},
	} {
		e.post("/api/v1/data_breach", bad, "X-API-Key", key).wantError(400, "invalid_request")
	}
	e.post("/api/v1/data_breach", map[string]any{"ntlm": []int{1}}, "X-API-Key", key).wantError(400, "invalid_field")
	plain := newEnv(t)
	plain.post("/api/v1/data_breach", map[string]any{"ntlm": []string{ntlmPassword}}, "X-API-Key", plain.key("ann@example.com", store.PlanPro)).wantError(400, "ntlm_not_configured")
}
