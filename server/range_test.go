package server_test

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
	"secutil/tools/breach"
	"secutil/tools/breach/breachtest"
)

// Passwords the range tests look up, with the counts their files give them.
var rangePasswords = map[string]int64{"password": 10437277, "letmein": 1234, "correct horse": 7}

// pwnedFile writes a sorted Pwned Passwords file of the kind holding the
// range passwords and 3,000 generated hashes, and opens it.
func pwnedFile(t testing.TB, kind breach.Kind) *breach.File {
	t.Helper()
	corpus := breachtest.Corpus{Kind: kind, Lines: 3000}
	var lines []string
	for i := range corpus.Lines {
		lines = append(lines, fmt.Sprintf("%X:%d", corpus.Digest(i), corpus.Count(i)))
	}
	for pw, n := range rangePasswords {
		lines = append(lines, fmt.Sprintf("%X:%d", digestOf(kind, pw), n))
	}
	slices.Sort(lines)
	path := filepath.Join(t.TempDir(), "pwned-"+kind.String()+".txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\r\n")+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := breach.OpenFile(path, kind)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func digestOf(kind breach.Kind, password string) []byte {
	if kind == breach.KindNTLM {
		return breach.NTLM(password)
	}
	return breach.SHA1(password)
}

// hexOf is the upper-case hex of the password's digest, split at the prefix.
func hexOf(kind breach.Kind, password string) (prefix, suffix string) {
	h := strings.ToUpper(hex.EncodeToString(digestOf(kind, password)))
	return h[:breach.PrefixLen], h[breach.PrefixLen:]
}

// rangeEnv serves both files with the given access.
func rangeEnv(t testing.TB, access server.RangeAccess, tweak ...func(*server.Deps)) *env {
	t.Helper()
	sha1, ntlm := pwnedFile(t, breach.KindSHA1), pwnedFile(t, breach.KindNTLM)
	return newEnv(t, append([]func(*server.Deps){func(d *server.Deps) {
		d.Range = server.RangeAPI{SHA1: sha1, NTLM: ntlm, Access: access}
	}}, tweak...)...)
}

// wantRange is the answer the range API must give: every line of the file
// with the prefix, as SUFFIX:COUNT joined by CRLF.
func wantRange(t testing.TB, f *breach.File, prefix string) string {
	t.Helper()
	entries, err := f.Range(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		lines = append(lines, e.Suffix+":"+strconv.FormatInt(e.Count, 10))
	}
	return strings.Join(lines, "\r\n")
}

func TestRangeAnswersAsPwnedPasswords(t *testing.T) {
	t.Parallel()
	sha1, ntlm := pwnedFile(t, breach.KindSHA1), pwnedFile(t, breach.KindNTLM)
	e := newEnv(t, func(d *server.Deps) {
		d.Range = server.RangeAPI{SHA1: sha1, NTLM: ntlm, Access: server.RangePublic}
	})
	prefix, suffix := hexOf(breach.KindSHA1, "password")
	res := e.request("GET", "/range/"+prefix, nil).want(200)
	if got, want := string(res.body), wantRange(t, sha1, prefix); got != want {
		t.Fatalf("body %q, want %q", got, want)
	}
	if !strings.Contains(string(res.body), suffix+":10437277") {
		t.Fatalf("answer lacks %s:10437277: %q", suffix, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "text/plain" {
		t.Fatalf("Content-Type %q, want text/plain", ct)
	}
	if cc := res.header.Get("Cache-Control"); cc != "public, max-age=86400" {
		t.Fatalf("Cache-Control %q", cc)
	}
	etag := res.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, "-"+prefix+`"`) {
		t.Fatalf("ETag %q, want a strong tag naming the prefix", etag)
	}
	if lm, err := http.ParseTime(res.header.Get("Last-Modified")); err != nil || !lm.Equal(sha1.ModTime().Truncate(time.Second)) {
		t.Fatalf("Last-Modified %q, want the file's %v", res.header.Get("Last-Modified"), sha1.ModTime())
	}
	if res.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatal("a public range answer lacks Access-Control-Allow-Origin: *")
	}

	// The prefix is case-insensitive; the answer is the same resource.
	lower := e.request("GET", "/range/"+strings.ToLower(prefix), nil).want(200)
	if string(lower.body) != string(res.body) || lower.header.Get("ETag") != etag {
		t.Fatal("a lower-case prefix got another answer")
	}
	// A client holding the answer revalidates it for free.
	e.request("GET", "/range/"+prefix, nil, "If-None-Match", etag).want(http.StatusNotModified)

	// mode=sha1 (as the hibp npm client sends) is the default; mode=ntlm
	// answers from the NTLM file, with 27-digit suffixes.
	if got := e.request("GET", "/range/"+prefix+"?mode=sha1", nil).want(200); string(got.body) != string(res.body) {
		t.Fatal("mode=sha1 differs from the default")
	}
	nprefix, nsuffix := hexOf(breach.KindNTLM, "password")
	nres := e.request("GET", "/range/"+nprefix+"?mode=ntlm", nil).want(200)
	if got, want := string(nres.body), wantRange(t, ntlm, nprefix); got != want || !strings.Contains(got, nsuffix+":10437277") {
		t.Fatalf("NTLM body %q, want %q with %s", got, want, nsuffix)
	}
	if nres.header.Get("ETag") == e.request("GET", "/range/"+nprefix, nil).header.Get("ETag") {
		t.Fatal("the SHA-1 and NTLM answers for one prefix share an ETag")
	}
	for _, line := range strings.Split(string(nres.body), "\r\n") {
		if s, _, _ := strings.Cut(line, ":"); len(s) != 27 {
			t.Fatalf("NTLM line %q: want a 27-digit suffix", line)
		}
	}
}

func TestRangeRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := rangeEnv(t, server.RangePublic)
	for _, path := range []string{"/range/5BAA", "/range/5BAA61", "/range/5BAAG", "/range/5BA%20A", "/range/%E2%82%AC5BAA", "/range/-5BAA"} {
		e.request("GET", path, nil).wantError(400, "invalid_prefix")
	}
	for _, mode := range []string{"md5", "NTLMv2", "sha256"} {
		e.request("GET", "/range/5BAA6?mode="+mode, nil).wantError(400, "invalid_mode")
	}
	e.request("POST", "/range/5BAA6", "").wantError(405, "method_not_allowed")
}

func TestRangePadding(t *testing.T) {
	t.Parallel()
	sha1 := pwnedFile(t, breach.KindSHA1)
	e := newEnv(t, func(d *server.Deps) { d.Range = server.RangeAPI{SHA1: sha1, Access: server.RangePublic} })
	prefix, suffix := hexOf(breach.KindSHA1, "password")
	plain := e.request("GET", "/range/"+prefix, nil).want(200)
	sizes := map[int]bool{}
	for range 10 {
		res := e.request("GET", "/range/"+prefix, nil, "Add-Padding", "true").want(200)
		lines := strings.Split(string(res.body), "\r\n")
		sizes[len(lines)] = true
		if len(lines) < 800 || len(lines) > 1000 {
			t.Fatalf("a padded answer has %d lines, want 800 to 1,000", len(lines))
		}
		if !slices.IsSorted(lines) || !slices.Contains(lines, suffix+":10437277") {
			t.Fatal("a padded answer is unsorted or lost the real line")
		}
		var real []string
		for _, l := range lines {
			if !strings.HasSuffix(l, ":0") {
				real = append(real, l)
			}
		}
		if strings.Join(real, "\r\n") != string(plain.body) {
			t.Fatal("padding changed the real lines")
		}
		if etag := res.header.Get("ETag"); !strings.HasPrefix(etag, `W/"`) || etag == "W/"+plain.header.Get("ETag") {
			t.Fatalf("padded ETag %q: want a weak tag of its own", etag)
		}
		if res.header.Get("Vary") != "Add-Padding" {
			t.Fatalf("Vary %q, want Add-Padding", res.header.Get("Vary"))
		}
	}
	if len(sizes) < 2 {
		t.Fatalf("ten padded answers all had %v lines: the size must vary", sizes)
	}
}

func TestRangeWithoutAFileNamesTheFlag(t *testing.T) {
	t.Parallel()
	sha1 := pwnedFile(t, breach.KindSHA1)
	none := newEnv(t, func(d *server.Deps) { d.Range = server.RangeAPI{Access: server.RangePublic} })
	if m := none.request("GET", "/range/5BAA6", nil).wantError(503, "range_not_configured"); !strings.Contains(m["error"].(string), "-breach-file") {
		t.Fatalf("error %q does not name -breach-file", m["error"])
	}
	onlySHA1 := newEnv(t, func(d *server.Deps) { d.Range = server.RangeAPI{SHA1: sha1, Access: server.RangePublic} })
	if m := onlySHA1.request("GET", "/range/5BAA6?mode=ntlm", nil).wantError(503, "range_not_configured"); !strings.Contains(m["error"].(string), "-breach-file-ntlm") {
		t.Fatalf("error %q does not name -breach-file-ntlm", m["error"])
	}
}

// TestRangeKeyAccess: by default a range call needs a secutil key in
// X-API-Key or hibp-api-key; it is not metered, but rate limited per key.
func TestRangeKeyAccess(t *testing.T) {
	t.Parallel()
	e := rangeEnv(t, server.RangeKey, func(d *server.Deps) {
		limits := server.DefaultLimits
		limits.Range = server.Rate{Burst: 3, Per: time.Hour}
		d.Limits = &limits
	})
	key := e.key("ann@example.com", store.PlanStarter)
	other := e.key("bob@example.com", store.PlanStarter)
	e.request("GET", "/range/5BAA6", nil).wantError(401, "unauthorized")
	e.request("GET", "/range/5BAA6", nil, "X-API-Key", "sk_not_a_real_key").wantError(401, "unauthorized")
	res := e.request("GET", "/range/5BAA6", nil, "X-API-Key", key).want(200)
	if cc := res.header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Fatalf("Cache-Control %q: an answer behind a key must not sit in shared caches", cc)
	}
	if res.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("a keyed range answer allows cross-origin reads")
	}
	e.request("GET", "/range/5BAA6", nil, "hibp-api-key", key).want(200)
	e.request("GET", "/range/5baa6", nil, "X-API-Key", key).want(200)
	limited := e.request("GET", "/range/5BAA6", nil, "X-API-Key", key)
	if limited.wantError(429, "rate_limited"); limited.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	e.request("GET", "/range/5BAA6", nil, "hibp-api-key", other).want(200)
	ann, err := e.store.AccountByEmail(t.Context(), "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if n := e.usage(ann.ID); n != 0 {
		t.Fatalf("range calls were metered: usage %d", n)
	}
}

func TestRangePublicIsLimitedPerIP(t *testing.T) {
	t.Parallel()
	e := rangeEnv(t, server.RangePublic, func(d *server.Deps) {
		limits := server.DefaultLimits
		limits.Range = server.Rate{Burst: 2, Per: time.Hour}
		d.Limits = &limits
	})
	e.request("GET", "/range/5BAA6", nil).want(200)
	e.request("GET", "/range/5BAA6", nil).want(200)
	e.request("GET", "/range/5BAA6", nil).wantError(429, "rate_limited")
}

// TestRangeOff: 503, not 404, which clients written for Have I Been Pwned
// (gopass's) read as "not breached", passing every password.
func TestRangeOff(t *testing.T) {
	t.Parallel()
	e := rangeEnv(t, server.RangeOff)
	res := e.request("GET", "/range/5BAA6", nil)
	if m := res.wantError(503, "range_api_off"); !strings.Contains(m["error"].(string), "-range-api") {
		t.Fatalf("error %q does not name -range-api", m["error"])
	}
	if res.header.Get("Retry-After") != "" {
		t.Fatal("Retry-After on a range API its operator turned off")
	}
}

func TestRangePreflight(t *testing.T) {
	t.Parallel()
	public := rangeEnv(t, server.RangePublic)
	res := public.request("OPTIONS", "/range/5BAA6", nil, "Origin", "https://app.example", "Access-Control-Request-Headers", "add-padding").want(204)
	if res.header.Get("Access-Control-Allow-Headers") != "Add-Padding" || res.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight headers %v", res.header)
	}
	rangeEnv(t, server.RangeKey).request("OPTIONS", "/range/5BAA6", nil).wantError(403, "range_not_public")
}

func TestParseRangeAccess(t *testing.T) {
	t.Parallel()
	for _, a := range []server.RangeAccess{server.RangeKey, server.RangePublic, server.RangeOff} {
		if got, err := server.ParseRangeAccess(a.String()); err != nil || got != a {
			t.Fatalf("%v: got %v, %v", a, got, err)
		}
	}
	if _, err := server.ParseRangeAccess("open"); err == nil {
		t.Fatal("open was accepted")
	}
}

// manyRanges is a Range header listing n one-byte ranges, as an attacker
// sends to make a multipart answer far larger than the request.
func manyRanges(n int) string {
	var b strings.Builder
	b.WriteString("bytes=0-0")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ",%d-%d", i, i)
	}
	return b.String()
}

// TestRangeHeaderServesOneRange: the range API and the static files serve
// one byte range with 206, and the whole answer with 200 for a Range that
// lists several (15,000 one-byte ranges made 2 MB of multipart), or one
// outside the answer.
func TestRangeHeaderServesOneRange(t *testing.T) {
	t.Parallel()
	e := rangeEnv(t, server.RangePublic)
	prefix, _ := hexOf(breach.KindSHA1, "password")
	attack := manyRanges(15000)

	whole := e.request("GET", "/static/openapi.json", nil).want(200)
	if len(whole.body) < 15000 {
		t.Fatalf("openapi.json is %d bytes: too short for 15,000 one-byte ranges to overlap it", len(whole.body))
	}
	for _, header := range []string{attack, "bytes=0-0,2-2", "bytes=0-9, 20-29", "bytes=999999999-", "bytes=-0", "bytes=9-0"} {
		res := e.request("GET", "/static/openapi.json", nil, "Range", header).want(200)
		if !slices.Equal(res.body, whole.body) || res.header.Get("Content-Range") != "" {
			t.Fatalf("Range %.40q: %d bytes (Content-Range %q), want the whole %d", header, len(res.body), res.header.Get("Content-Range"), len(whole.body))
		}
	}
	one := e.request("GET", "/static/openapi.json", nil, "Range", "bytes=10-19").want(http.StatusPartialContent)
	if want := fmt.Sprintf("bytes 10-19/%d", len(whole.body)); !slices.Equal(one.body, whole.body[10:20]) || one.header.Get("Content-Range") != want {
		t.Fatalf("bytes=10-19: %q with Content-Range %q, want %q with %q", one.body, one.header.Get("Content-Range"), whole.body[10:20], want)
	}
	// If-Range: a range of the version the client holds, else the whole.
	etag := whole.header.Get("ETag")
	e.request("GET", "/static/openapi.json", nil, "Range", "bytes=10-19", "If-Range", etag).want(http.StatusPartialContent)
	if res := e.request("GET", "/static/openapi.json", nil, "Range", "bytes=10-19", "If-Range", `"stale"`).want(200); len(res.body) != len(whole.body) {
		t.Fatalf("a stale If-Range got %d bytes, want the whole %d", len(res.body), len(whole.body))
	}
	e.request("GET", "/static/openapi.json", nil, "Range", attack, "If-None-Match", etag).want(http.StatusNotModified)

	// A padded range answer is 800 to 1,000 lines, some 32 KB: every one of
	// the 15,000 ranges overlaps it.
	res := e.request("GET", "/range/"+prefix, nil, "Add-Padding", "true", "Range", attack).want(200)
	if lines := strings.Count(string(res.body), "\r\n") + 1; lines < 800 || lines > 1000 || len(res.body) < 15000 || len(res.body) > 1000*45 {
		t.Fatalf("padded answer to 15,000 ranges: %d bytes in %d lines, want one answer of 800 to 1,000 lines", len(res.body), lines)
	}
	if ct := res.header.Get("Content-Type"); ct != "text/plain" {
		t.Fatalf("Content-Type %q, want text/plain", ct)
	}
	plain := e.request("GET", "/range/"+prefix, nil).want(200)
	part := e.request("GET", "/range/"+prefix, nil, "Range", "bytes=0-34").want(http.StatusPartialContent)
	if !slices.Equal(part.body, plain.body[:35]) {
		t.Fatalf("bytes=0-34 of the range answer: %q, want %q", part.body, plain.body[:35])
	}
}
