package server_test

import (
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// TestHashVerifyRoute: a password and a hash give whether they match and
// the scheme, in each family of schemes; a mismatch is a 200 that counts;
// a string in no scheme is a 400 that names the schemes that can be
// verified; one past the bounds is refused before any work.
func TestHashVerifyRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	for _, tc := range []struct {
		password, hash, scheme, format string
	}{
		{"U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "bcrypt", "modular crypt"},
		{"password", "$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E", "argon2i", "PHC"},
		{"pleaseletmein", "$7$06..../....SodiumChloride$ENlyo6fGw4PCcDBOFepfSZjFUnVatHzCcW55.ZGz3B0", "scrypt", "libsodium"},
		{"correct horse", "pbkdf2_sha256$10000$seasalt2024$JyylfoeAORrhXrkf3ZuzBdlinHj63IwJnjv8oPnLIKo=", "pbkdf2_sha256", "Django"},
		{"Hello world!", "$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1", "md5_crypt", "modular crypt"},
		{"Hello world!", "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5", "sha256_crypt", "modular crypt"},
		{"Hello world!", "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1", "sha512_crypt", "modular crypt"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256", "hex"},
	} {
		m := e.post("/api/v1/hash_verify", map[string]string{"password": tc.password, "hash": tc.hash}, "X-API-Key", key).want(200).json()
		if m["match"] != true || m["scheme"] != tc.scheme || m["format"] != tc.format {
			t.Errorf("%s: %v, want a %s (%s) match", tc.hash, m, tc.scheme, tc.format)
		}
		m = e.post("/api/hash_verify", map[string]string{"password": tc.password + "x", "hash": tc.hash}, "X-API-Key", key).want(200).json()
		if m["match"] != false || m["scheme"] != tc.scheme {
			t.Errorf("%s with a wrong password: %v", tc.hash, m)
		}
	}

	// 32 hex digits are MD5, NTLM or MD4: each is tried, the one that
	// matched is named, and all are listed.
	m := e.post("/api/v1/hash_verify", map[string]string{"password": "password", "hash": "8846f7eaee8fb117ad06bdd830b7586c"}, "X-API-Key", key).want(200).json()
	candidates, _ := m["candidates"].([]any)
	if m["match"] != true || m["scheme"] != "ntlm" || !slices.Contains(candidates, any("md5")) || !slices.Contains(candidates, any("ntlm")) {
		t.Errorf("NTLM digest: %v", m)
	}

	// A hash the tool cannot verify names those it can.
	before := e.usage(a.ID)
	msg := e.post("/api/v1/hash_verify", map[string]string{"password": "x", "hash": "not a hash at all"}, "X-API-Key", key).wantError(400, "unsupported_hash")["error"].(string)
	for _, scheme := range []string{"bcrypt", "argon2id", "scrypt", "PBKDF2", "md5-crypt", "sha512-crypt", "NTLM"} {
		if !strings.Contains(msg, scheme) {
			t.Errorf("the refusal %q does not name %s", msg, scheme)
		}
	}
	// Costs past hash_generator's bounds are refused before any work: a
	// bcrypt cost of 31 would take days.
	e.post("/api/v1/hash_verify", map[string]string{"password": "x", "hash": "$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/v1/hash_verify", map[string]string{"password": "x", "hash": "$argon2id$v=19$m=4194304,t=2,p=1$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo/8GaUw434IimaPqxwCo"}, "X-API-Key", key).wantError(400, "invalid_input")
	e.post("/api/v1/hash_verify", map[string]string{"password": "x", "hash": " "}, "X-API-Key", key).wantError(400, "missing_field")
	e.post("/api/v1/hash_verify", map[string]string{"hash": "900150983cd24fb0d6963f7d28e17f72"}, "X-API-Key", key).wantError(400, "missing_field")
	if after := e.usage(a.ID); after != before {
		t.Errorf("refused verifications counted: usage %d → %d", before, after)
	}
	e.post("/api/v1/hash_verify", map[string]string{"password": "x", "hash": "900150983cd24fb0d6963f7d28e17f72"}).wantError(401, "unauthorized")
}

// TestHashVerifyRoundTrip: what /hash_generator makes at the costs asked
// for, /hash_verify verifies.
func TestHashVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	for _, req := range []map[string]any{
		{"algorithm": "bcrypt", "plaintext": "hunter2", "cost": 5},
		{"algorithm": "argon2id", "plaintext": "hunter2", "memory": 1024, "time": 1, "parallelism": 2},
		{"algorithm": "scrypt", "plaintext": "hunter2", "n": 1024, "r": 4, "p": 2},
		{"algorithm": "sha512", "plaintext": "hunter2"},
	} {
		hash := e.post("/api/v1/hash_generator", req, "X-API-Key", key).want(200).json()["hash"].(string)
		m := e.post("/api/v1/hash_verify", map[string]string{"password": "hunter2", "hash": hash}, "X-API-Key", key).want(200).json()
		if m["match"] != true {
			t.Errorf("%v made %s, which does not verify: %v", req, hash, m)
		}
	}
}

// TestNewUtilitiesAreDeclared: hash_verify, jwt_verify and
// generate_password are utilities, each in its panel.
func TestNewUtilitiesAreDeclared(t *testing.T) {
	t.Parallel()
	panels := server.UtilityPanels()
	for path, panel := range map[string]string{"/hash_verify": "hashverify", "/jwt_verify": "jwtverify", "/generate_password": "passgen"} {
		if panels[path] != panel {
			t.Errorf("%s is in panel %q, want %q", path, panels[path], panel)
		}
	}
}
