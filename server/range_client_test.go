package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"secutil/server"
	"secutil/tools/breach"
)

// hibpClientDir holds a pinned install of hibp, the npm client for Have I
// Been Pwned, and check.mjs, which drives it.
const hibpClientDir = "testdata/hibpclient"

// TestRangeWithHIBPClient points a client written for Have I Been Pwned at
// secutil's range API through its baseUrl option alone: hibp hashes the
// password itself, sends mode=sha1 or mode=ntlm and Add-Padding as it does
// to api.pwnedpasswords.com, and parses the answer its own way. Like the
// generated clients' tests, it needs Node.js and runs only when
// SECUTIL_TEST_CLIENTS is set (two seconds of CPU, an offline `npm ci`
// and a Node process that `go test ./...` need not pay each time):
// .ci/run installs Node and the client, sets it and requires it to pass.
func TestRangeWithHIBPClient(t *testing.T) {
	t.Parallel()
	requireClientTools(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not installed", clientsGate)
	}
	modules := npmModules(t, hibpClientDir)
	clientDir := t.TempDir()
	copyFiles(t, hibpClientDir, clientDir, "check.mjs")
	if err := os.Symlink(modules, filepath.Join(clientDir, "node_modules")); err != nil {
		t.Fatal(err)
	}

	e := rangeEnv(t, server.RangePublic)
	srv := httptest.NewServer(e.h) // 127.0.0.1, a free port
	defer srv.Close()

	nprefix, nsuffix := hexOf(breach.KindNTLM, "letmein")
	type question struct {
		Password   *string `json:"password,omitempty"`
		Prefix     string  `json:"prefix,omitempty"`
		Mode       string  `json:"mode,omitempty"`
		AddPadding bool    `json:"addPadding"`
	}
	pw := func(s string) *string { return &s }
	questions := []question{
		{Password: pw("password")},
		{Password: pw("password"), AddPadding: true},
		{Password: pw("correct horse"), AddPadding: true},
		{Password: pw("a passphrase nobody has leaked yet")},
		{Prefix: nprefix, Mode: "ntlm", AddPadding: true},
		{Prefix: "5baa6"},
		{Prefix: "XYZ12"},
	}
	raw, _ := json.Marshal(questions)
	cmd := exec.Command(node, "check.mjs", string(raw))
	cmd.Dir = clientDir
	cmd.Env = append(os.Environ(), "BASE_URL="+srv.URL)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node check.mjs: %v\n%s", err, out)
	}
	var answers []struct {
		Count *int64           `json:"count"`
		Range map[string]int64 `json:"range"`
		Error string           `json:"error"`
	}
	if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(questions) {
		t.Fatalf("client printed %s: %v", out, err)
	}
	for i, want := range []int64{rangePasswords["password"], rangePasswords["password"], rangePasswords["correct horse"], 0} {
		if a := answers[i]; a.Count == nil || *a.Count != want {
			t.Fatalf("question %d (%+v): got %+v, want count %d", i, questions[i], a, want)
		}
	}
	ntlm := answers[4].Range
	if ntlm[nsuffix] != rangePasswords["letmein"] || len(ntlm) < 800 || len(ntlm) > 1000 {
		t.Fatalf("padded NTLM range: %d suffixes, %s=%d; want 800-1,000 and %d", len(ntlm), nsuffix, ntlm[nsuffix], rangePasswords["letmein"])
	}
	sha1Prefix, sha1Suffix := hexOf(breach.KindSHA1, "password")
	if sha1Prefix != "5BAA6" || answers[5].Range[sha1Suffix] != rangePasswords["password"] {
		t.Fatalf("range 5baa6: %v", answers[5])
	}
	if answers[6].Error == "" {
		t.Fatalf("a bad prefix gave the client no error: %+v", answers[6])
	}
}
