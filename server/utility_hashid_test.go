package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"secutil/store"
)

// identifyOne is the single-hash answer of /hash_identifier.
type identifyOne struct {
	Estimate   string      `json:"estimate"`
	Note       string      `json:"note"`
	Candidates []candidate `json:"candidates"`
}

type candidate struct {
	Name        string         `json:"name"`
	HashcatMode *int           `json:"hashcat_mode"`
	JohnFormat  string         `json:"john_format"`
	Category    string         `json:"category"`
	Confidence  float64        `json:"confidence"`
	Params      map[string]any `json:"params"`
	Hashcat     string         `json:"hashcat"`
	John        string         `json:"john"`
	JohnAlso    []string       `json:"john_also"`
}

type identifyBatch struct {
	Count  int `json:"count"`
	Groups []struct {
		Estimate   string      `json:"estimate"`
		Note       string      `json:"note"`
		Count      int         `json:"count"`
		Hashes     []string    `json:"hashes"`
		Candidates []candidate `json:"candidates"`
	} `json:"groups"`
}

func decodeAs[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	return v
}

const (
	bcryptCost10  = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"
	bcryptCost10b = "$2b$10$abcdefghijklmnopqrstuuDvg4Z9Nq1aJVWHkBWNbZpOvHlEwB5Ey"
	argon2idHash  = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG"
)

// TestHashIdentifierJohnSyntax: a hash in John the Ripper's syntax names
// both tools' formats, John's command line and the string hashcat reads.
func TestHashIdentifierJohnSyntax(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	got := decodeAs[identifyOne](t, e.post("/api/v1/hash_identifier", map[string]string{"hash": "$NT$8846f7eaee8fb117ad06bdd830b7586c"}, "X-API-Key", key).want(200))
	if len(got.Candidates) == 0 {
		t.Fatalf("%+v", got)
	}
	c := got.Candidates[0]
	if c.Name != "NTLM" || c.HashcatMode == nil || *c.HashcatMode != 1000 || c.JohnFormat != "NT" ||
		c.John != "john --format=NT --wordlist=wordlist.txt hash.txt" || c.Params["hashcat_hash"] != "8846f7eaee8fb117ad06bdd830b7586c" ||
		len(c.JohnAlso) == 0 {
		t.Errorf("$NT$: %+v", c)
	}
	got = decodeAs[identifyOne](t, e.post("/api/v1/hash_identifier", map[string]string{"hash": "$dynamic_8$8743b52063cd84097a65d1633f5c74f5$salt"}, "X-API-Key", key).want(200))
	if c := got.Candidates[0]; c.JohnFormat != "dynamic_8" || c.HashcatMode != nil || c.Params["expression"] != "md5(md5($s).$p)" || c.Params["dynamic"] != 8.0 {
		t.Errorf("dynamic_8: %+v", c)
	}
}

func TestHashIdentifierRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)

	got := decodeAs[identifyOne](t, e.post("/api/v1/hash_identifier", map[string]string{"hash": md5Password}, "X-API-Key", key).want(200))
	if got.Estimate != "MD5" || got.Note != "" || len(got.Candidates) < 4 {
		t.Fatalf("32 hex: %+v", got)
	}
	for i, want := range []string{"MD5", "NTLM", "MD4", "LM"} {
		if got.Candidates[i].Name != want {
			t.Errorf("32 hex: candidate %d is %q, want %q", i, got.Candidates[i].Name, want)
		}
	}
	if c := got.Candidates[0]; *c.HashcatMode != 0 || c.JohnFormat != "raw-md5" || c.Hashcat != "hashcat -m 0 hash.txt wordlist.txt" || c.Params != nil {
		t.Errorf("MD5 candidate %+v", c)
	}

	got = decodeAs[identifyOne](t, e.post("/api/hash_identifier", map[string]string{"hash": bcryptCost10}, "X-API-Key", key).want(200))
	c := got.Candidates[0]
	if *c.HashcatMode != 3200 || c.Hashcat != "hashcat -m 3200 hash.txt wordlist.txt" || c.Params["cost"] != float64(10) ||
		c.Params["version"] != "b" || c.Params["salt"] != "N9qo8uLOickgx2ZMRZoMye" || c.Confidence < 0.9 {
		t.Fatalf("bcrypt: %+v", c)
	}

	got = decodeAs[identifyOne](t, e.post("/api/hash_identifier", map[string]string{"hash": "{CRYPT}" + bcryptCost10}, "X-API-Key", key).want(200))
	if c := got.Candidates[0]; c.Name != "bcrypt" || c.Params["wrapper"] != "{CRYPT}" {
		t.Fatalf("{CRYPT} wrapper: %+v", got)
	}

	for in, note := range map[string]string{"ann@example.com": "an email address", "password": "a plain word",
		"123e4567-e89b-12d3-a456-426614174000": "a UUID", "aGVsbG8gd29ybGQ=": "base64 of text"} {
		got = decodeAs[identifyOne](t, e.post("/api/hash_identifier", map[string]string{"hash": in}, "X-API-Key", key).want(200))
		if got.Estimate != "not a hash" || got.Note != note {
			t.Errorf("%q: %+v, want note %q", in, got, note)
		}
	}
	if got := decodeAs[identifyOne](t, e.post("/api/hash_identifier", map[string]string{"hash": "#!%&"}, "X-API-Key", key).want(200)); got.Estimate != "unknown" || len(got.Candidates) != 0 {
		t.Fatalf("no match: %+v", got)
	}
	e.post("/api/hash_identifier", map[string]string{}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/hash_identifier", map[string]string{"hash": md5Password}).wantError(401, "unauthorized")
}

func TestHashIdentifierBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)

	body := map[string]any{"hashes": []string{md5Password, bcryptCost10, "hello", bcryptCost10b, sha1Password + ", " + md5Password + "\n" + argon2idHash}}
	got := decodeAs[identifyBatch](t, e.post("/api/v1/hash_identifier", body, "X-API-Key", key).want(200))
	if got.Count != 6 || len(got.Groups) != 5 {
		t.Fatalf("a repeated hash counts once, argon2's commas do not split it: %+v", got)
	}
	bc := got.Groups[0]
	if bc.Estimate != "bcrypt" || bc.Count != 2 || len(bc.Hashes) != 2 || bc.Hashes[1] != bcryptCost10b {
		t.Fatalf("largest group first: %+v", got.Groups)
	}
	if p := bc.Candidates[0].Params; p["cost"] != float64(10) || p["salt"] != nil {
		t.Errorf("a group keeps the parameters its members share, not their salts: %v", p)
	}
	var names []string
	for _, g := range got.Groups[1:] {
		names = append(names, g.Estimate+"/"+g.Note)
	}
	if strings.Join(names, ",") != "MD5/,not a hash/a plain word,SHA-1/,Argon2/" {
		t.Errorf("groups of one in input order: %v", names)
	}

	got = decodeAs[identifyBatch](t, e.post("/api/hash_identifier", map[string]string{"hashes": md5Password + ";" + sha1Password + " " + argon2idHash}, "X-API-Key", key).want(200))
	if got.Count != 3 {
		t.Fatalf("a string of hashes splits on /hash_lookup's separators: %+v", got)
	}

	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprintf("%032x", i+1)
	}
	e.post("/api/hash_identifier", map[string]any{"hashes": many}, "X-API-Key", key).wantError(400, "invalid_hash_input")
	e.post("/api/hash_identifier", map[string]any{"hashes": []string{" ", ""}}, "X-API-Key", key).wantError(400, "invalid_hash_input")
	e.post("/api/hash_identifier", map[string]any{"hashes": 7}, "X-API-Key", key).wantError(400, "invalid_field")
	e.post("/api/hash_identifier", map[string]any{"hash": md5Password, "hashes": []string{md5Password}}, "X-API-Key", key).wantError(400, "invalid_request")
}

// TestHashIdentifierTools: the tools page calls the root-level route with
// the session cookie.
func TestHashIdentifierTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.key("ann@example.com", store.PlanPro)
	got := decodeAs[identifyOne](t, e.post("/hash_identifier", map[string]string{"hash": md5Password}, "Cookie", e.login("ann@example.com")).want(200))
	if got.Estimate != "MD5" {
		t.Fatalf("%+v", got)
	}
	e.post("/hash_identifier", map[string]string{"hash": md5Password}).wantError(401, "unauthorized")
}
