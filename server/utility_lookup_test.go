package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"secutil/server"
	"secutil/store"
)

// Known digests of "password": RFC 1321-style MD5, SHA-1, and NTLM (MD4 of
// UTF-16LE), as published in countless cracking references.
const (
	md5Password  = "5f4dcc3b5aa765d61d8327deb882cf99"
	sha1Password = "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"
	ntlmPassword = "8846f7eaee8fb117ad06bdd830b7586c"
	md5Unknown   = "00000000000000000000000000000000"
)

type lookupOut struct {
	Warning string
	Results []struct {
		Hash      string
		Plaintext *string
		Type      *string
		Found     bool
	}
	Summary struct {
		TotalSearched int     `json:"total_searched"`
		TotalFound    int     `json:"total_found"`
		SuccessRate   float64 `json:"success_rate"`
	}
}

func decodeLookup(t *testing.T, r response) lookupOut {
	t.Helper()
	var out lookupOut
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHashLookup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	body := map[string]string{"hashes": md5Password + ",\n" + strings.ToUpper(sha1Password) + "; " + ntlmPassword + " " + md5Unknown + "\n" + md5Password}
	out := decodeLookup(t, e.post("/api/v1/hash_lookup", body, "X-API-Key", key).want(200))
	if len(out.Results) != 4 {
		t.Fatalf("results %+v (a repeated hash is looked up once)", out.Results)
	}
	for i, wantType := range []string{"md5", "sha1", "ntlm"} {
		r := out.Results[i]
		if !r.Found || *r.Plaintext != "password" || *r.Type != wantType {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if r := out.Results[3]; r.Found || r.Plaintext != nil || r.Type != nil || r.Hash != md5Unknown {
		t.Errorf("miss: %+v", r)
	}
	if s := out.Summary; s.TotalSearched != 4 || s.TotalFound != 3 || s.SuccessRate != 75 {
		t.Errorf("summary %+v", s)
	}
	res := e.post("/api/hash_lookup", map[string]string{"hashes": "nothex"}, "X-API-Key", key)
	if msg := res.wantError(400, "invalid_hash_input")["error"].(string); !strings.Contains(msg, `"nothex"`) {
		t.Fatalf("error %q does not name the token", msg)
	}
	e.post("/api/hash_lookup", map[string]string{"hashes": " ,; "}, "X-API-Key", key).wantError(400, "invalid_hash_input")
	e.post("/api/hash_lookup", map[string]string{"hashes": strings.Repeat("a", 33)}, "X-API-Key", key).wantError(400, "invalid_hash_input")
	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprintf("%032x", i+1)
	}
	e.post("/api/hash_lookup", map[string]string{"hashes": strings.Join(many, "\n")}, "X-API-Key", key).wantError(400, "invalid_hash_input")
	e.post("/api/hash_lookup", map[string]string{"hashes": md5Password}).wantError(401, "unauthorized")
}

func TestHashLookupSiteIsPublicAndThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		limits := server.DefaultLimits
		limits.PublicHash = server.Rate{Burst: 2, Per: 3600e9}
		d.Limits = &limits
	})
	first := e.post("/api/hash_lookup_site", map[string]string{"hashes": md5Password}).want(200)
	if out := decodeLookup(t, first); !out.Results[0].Found {
		t.Fatalf("%+v", out)
	}
	// Each answer says what is left of the client's bucket (2 an hour: a
	// token every 30 minutes).
	for name, want := range map[string]string{"RateLimit-Limit": "2", "RateLimit-Remaining": "1", "RateLimit-Reset": "1800"} {
		if got := first.header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	second := e.post("/api/v1/hash_lookup_site", map[string]string{"hashes": "zz"})
	second.wantError(400, "invalid_hash_input")
	if got := second.header.Get("RateLimit-Remaining"); got != "0" {
		t.Errorf("RateLimit-Remaining after two = %q", got)
	}
	res := e.post("/api/hash_lookup_site", map[string]string{"hashes": md5Password})
	res.wantError(429, "rate_limited")
	if res.header.Get("Retry-After") == "" || res.header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("refused: Retry-After %q, RateLimit-Remaining %q", res.header.Get("Retry-After"), res.header.Get("RateLimit-Remaining"))
	}
	// Its own words: what the limit is, and the way around it.
	if msg := string(res.body); !strings.Contains(msg, "the public hash lookup allows 2 lookups an hour from one address") || !strings.Contains(msg, "/api/v1/hash_lookup") {
		t.Fatalf("429 says %s", msg)
	}
}

func TestHashLookupUpstream(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"results":[{"hash":"` + md5Unknown + `","plaintext":"zeros","type":"md5","found":true}],"summary":{}}`))
	}))
	defer upstream.Close()

	e := newEnv(t, func(d *server.Deps) { d.HashUpstream = &server.Upstream{BaseURL: upstream.URL} })
	key := e.key("ann@example.com", store.PlanPro)
	out := decodeLookup(t, e.post("/api/hash_lookup", map[string]string{"hashes": md5Password + " " + md5Unknown}, "X-API-Key", key).want(200))
	if !out.Results[1].Found || *out.Results[1].Plaintext != "zeros" || out.Summary.TotalFound != 2 {
		t.Fatalf("%+v", out)
	}

	// Local hits need no upstream, and get no warning.
	if out := decodeLookup(t, e.post("/api/hash_lookup", map[string]string{"hashes": md5Password}, "X-API-Key", key).want(200)); out.Warning != "" {
		t.Fatalf("warning %q without a miss", out.Warning)
	}
}

// TestHashLookupUpstreamFailureDegrades: 62 anonymous lookups used to make
// every local miss answer 502 for all users once the upstream rate limited
// this server. A failing upstream now leaves the local answer standing
// with a warning, and after three failures in a row it is not asked at all
// for a while.
func TestHashLookupUpstreamFailureDegrades(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fail  http.HandlerFunc
		calls int32 // calls the upstream gets for 10 lookups
	}{
		{"server error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) }, 3},
		{"rate limited", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "60")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				tc.fail(w, r)
			}))
			defer upstream.Close()
			e := newEnv(t, func(d *server.Deps) { d.HashUpstream = &server.Upstream{BaseURL: upstream.URL} })
			key := e.key("ann@example.com", store.PlanPro)
			a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
			for i := range 10 {
				path, headers := "/api/hash_lookup", []string{"X-API-Key", key}
				if i%2 == 1 {
					path, headers = "/api/hash_lookup_site", []string{"RemoteAddr", fmt.Sprintf("198.51.100.%d:1", i)}
				}
				out := decodeLookup(t, e.post(path, map[string]string{"hashes": md5Password + " " + md5Unknown}, headers...).want(200))
				if !out.Results[0].Found || out.Results[1].Found || out.Summary.TotalFound != 1 || !strings.Contains(out.Warning, "unavailable") {
					t.Fatalf("lookup %d: %+v", i, out)
				}
			}
			if got := e.usage(a.ID); got != 10 {
				t.Fatalf("usage %d after 5 answered lookups of 2 hashes", got)
			}
			if got := calls.Load(); got != tc.calls {
				t.Fatalf("the upstream was asked %d times, want %d (the breaker opens)", got, tc.calls)
			}
		})
	}
}

// TestHashLookupSiteLimitComesBeforeTheUpstream: a client over its public
// limit makes the upstream do nothing.
func TestHashLookupSiteLimitComesBeforeTheUpstream(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Write([]byte(`{"results":[],"summary":{}}`))
	}))
	defer upstream.Close()
	e := newEnv(t, func(d *server.Deps) {
		d.HashUpstream = &server.Upstream{BaseURL: upstream.URL}
		limits := server.DefaultLimits
		limits.PublicHash = server.Rate{Burst: 2, Per: 3600e9}
		d.Limits = &limits
	})
	for range 5 {
		e.post("/api/hash_lookup_site", map[string]string{"hashes": md5Unknown})
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("the upstream was asked %d times for 2 allowed lookups", got)
	}
}

// TestHashLookupTakesAnArray: "hashes" may be an array of strings, as for
// /hash_identifier, with the same answer as the one-string form; another
// type is a 400 that names the field.
func TestHashLookupTakesAnArray(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("arr@example.com", store.PlanPro)
	a, b := strings.Repeat("ab", 16), strings.Repeat("cd", 16)
	asArray := e.post("/api/v1/hash_lookup", map[string]any{"hashes": []string{a, b}}, "X-API-Key", key).want(http.StatusOK)
	asString := e.post("/api/v1/hash_lookup", map[string]any{"hashes": a + "\n" + b}, "X-API-Key", key).want(http.StatusOK)
	if !bytes.Equal(asArray.body, asString.body) {
		t.Errorf("array %s, string %s", asArray.body, asString.body)
	}
	msg := e.post("/api/v1/hash_lookup", map[string]any{"hashes": 5}, "X-API-Key", key).wantError(http.StatusBadRequest, "invalid_field")["error"].(string)
	if !strings.Contains(msg, `"hashes"`) {
		t.Errorf("%q does not name the field", msg)
	}
	e.post("/api/v1/hash_lookup", map[string]any{}, "X-API-Key", key).wantError(http.StatusBadRequest, "missing_field")
}

// TestHashLookupSkipsWhatItCannotRead: a batch is looked up whole but for
// the tokens that hold no hash, each listed with its reason; user:hash and
// pwdump lines are looked up by their hash; the batch limit is a setting.
func TestHashLookupSkipsWhatItCannotRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) { d.HashLookupBatch = 3 })
	key := e.key("ann@example.com", store.PlanPro)
	body := strings.Join([]string{
		md5Password + ",nothex abc",
		"alice:" + ntlmPassword,
		`CORP\bob:1105:aad3b435b51404eeaad3b435b51404ee:` + ntlmPassword + `::: (status=Enabled)`,
		"root:$1$saltsalt$qjXMvbEw8oaL.CzflDugX/:19000:0:99999:7:::",
		sha1Password,
	}, "\n")
	m := e.post("/api/v1/hash_lookup", map[string]string{"hashes": body}, "X-API-Key", key).want(200).json()
	results := m["results"].([]any)
	if len(results) != 3 { // md5, the NT hash (once: a repeat), sha1
		t.Fatalf("%v", m)
	}
	for i, want := range []string{md5Password, ntlmPassword, sha1Password} {
		if r := results[i].(map[string]any); r["hash"] != want || r["found"] != true {
			t.Errorf("result %d: %v, want %s found", i, r, want)
		}
	}
	skipped := m["skipped"].([]any)
	wantSkipped := []string{"nothex", "abc", "root:$1$"}
	if len(skipped) != len(wantSkipped) {
		t.Fatalf("skipped %v", skipped)
	}
	for i, want := range wantSkipped {
		s := skipped[i].(map[string]any)
		if !strings.HasPrefix(s["token"].(string), want) || s["reason"] == "" {
			t.Errorf("skipped %d: %v, want %s with a reason", i, s, want)
		}
	}
	e.post("/api/v1/hash_lookup", map[string]string{"hashes": body + "\n" + sha256Of("x")}, "X-API-Key", key).wantError(400, "invalid_hash_input")
}

func sha256Of(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
