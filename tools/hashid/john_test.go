package hashid

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	//lint:ignore SA1019 NTLM is MD4: the test computes hashes in its syntax
	"golang.org/x/crypto/md4"
	"golang.org/x/crypto/pbkdf2"
)

// johnPatterns are the written forms in John's syntax the table holds: the
// patterns of John-only rows, John forms attached to hashcat rows, and
// the dynamic formats, each with its John label.
func johnPatterns() []struct {
	f     *format
	p     *pattern
	label string
} {
	var out []struct {
		f     *format
		p     *pattern
		label string
	}
	johnOnly := map[string]bool{}
	for _, r := range johnRows() {
		johnOnly[r.name] = true
	}
	rows := table()
	for _, f := range formats {
		base := len(f.patterns)
		for _, r := range rows {
			if r.name == f.name {
				base = len(r.patterns)
			}
		}
		if johnOnly[f.name] || strings.HasPrefix(f.name, "dynamic_") {
			base = 0
		}
		for i := base; i < len(f.patterns); i++ {
			out = append(out, struct {
				f     *format
				p     *pattern
				label string
			}{f, f.patterns[i], f.forms[i].label})
		}
	}
	return out
}

// printable is every printable ASCII byte but the space.
const printable = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// drawPattern builds a random string p matches: each field gets a length in
// its range and printable characters of its class, never the byte of the
// literal that ends it, nor white space at either end.
func drawPattern(rng *rand.Rand, p *pattern) string {
	var b strings.Builder
	for i, t := range p.tokens {
		if t.f == nil {
			b.WriteString(t.lit)
			continue
		}
		pool := fieldBytes(p, i, printable)
		n := max(t.f.min, 1)
		if t.f.max < 0 {
			n += rng.IntN(24)
		} else if t.f.max > n {
			n += rng.IntN(min(t.f.max-n, 24) + 1)
		}
		for range n {
			b.WriteByte(pool[rng.IntN(len(pool))])
		}
	}
	return b.String()
}

// sharing counts the formats whose patterns include p: a string p reads
// is as much theirs, and prevalence orders them.
func sharing(p *pattern) int {
	n := 0
	for _, f := range formats {
		if slices.Contains(f.patterns, p) {
			n++
		}
	}
	return n
}

// TestJohnForms: for every written form in John's syntax the table holds,
// fresh strings of the form are identified with its John format, ranked
// at most behind the other formats the same pattern reads (a tagged form
// is first), with John's command line, and with the string hashcat reads
// where hashcat has the mode.
func TestJohnForms(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(28, 1))
	labels := map[string]bool{}
	for _, jp := range johnPatterns() {
		if jp.label == "" {
			t.Errorf("%s: pattern %q has no John format", jp.f.name, jp.p.src)
			continue
		}
		labels[jp.label] = true
		for range 3 {
			s := drawPattern(rng, jp.p)
			cs := Identify(s).Candidates
			rank := 0
			for i, c := range cs {
				if c.Name == jp.f.name {
					rank = i + 1
					break
				}
			}
			if rank == 0 {
				t.Errorf("%s (%s): %q not identified: %q", jp.f.name, jp.p.src, s, names(cs))
				continue
			}
			if limit := sharing(jp.p); rank > limit {
				t.Errorf("%s (%s): %q at rank %d, behind more than the %d formats of its pattern: %q", jp.f.name, jp.p.src, s, rank, limit, names(cs))
			}
			c := cs[rank-1]
			if c.JohnFormat != jp.label || c.John != "john --format="+jp.label+" --wordlist=wordlist.txt hash.txt" {
				t.Errorf("%q: john_format %q, john %q, want %s", s, c.JohnFormat, c.John, jp.label)
			}
			form := jp.f.forms[slices.Index(jp.f.patterns, jp.p)]
			if _, has := c.Params["hashcat_hash"]; has != (form.hashcat != nil && jp.f.mode != noMode) {
				t.Errorf("%s (%s): hashcat_hash %v in %v", jp.f.name, jp.p.src, has, c.Params)
			}
		}
	}
	t.Logf("%d John formats in John's syntax", len(labels))
}

func names(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func md4Hex(b []byte) string {
	h := md4.New()
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestJohnComputed: hashes computed here from a password, in John's
// syntax, name the algorithm with both tools' names and rewrite to a
// string hashcat's mode reads.
func TestJohnComputed(t *testing.T) {
	t.Parallel()
	const pass, salt = "hunter2", "NaCl"
	nt := md4Hex(utf16le(pass))
	dcc := md4Hex(append(must(hex.DecodeString(nt)), utf16le("alice")...))
	mac := hmac.New(md5.New, []byte(pass))
	mac.Write([]byte("the message"))
	hmacMD5 := hex.EncodeToString(mac.Sum(nil))
	mac = hmac.New(sha256.New, []byte(pass))
	mac.Write([]byte("a#b"))
	hmacSHA256 := hex.EncodeToString(mac.Sum(nil))
	dk := pbkdf2.Key([]byte(pass), []byte(salt), 1000, 32, sha256.New)
	sha := sha256.Sum256([]byte(pass))
	ipb := md5Hex(md5Hex(salt) + md5Hex(pass))
	inner := sha1.Sum([]byte(salt + "x"))
	wbb := sha1.Sum(inner[:])

	tests := []struct {
		hash, name string
		mode       int
		john       string
		params     map[string]any
	}{
		{"$NT$" + nt, "NTLM", 1000, "NT", map[string]any{"hashcat_hash": nt}},
		{"$dynamic_33$" + nt, "NTLM", 1000, "dynamic_33",
			map[string]any{"dynamic": int64(33), "expression": "md4(utf16($p))", "hashcat_hash": nt}},
		{"$dynamic_1$" + md5Hex(pass+salt) + "$" + salt, "md5($pass.$salt)", 10, "dynamic_1",
			map[string]any{"dynamic": int64(1), "expression": "md5($p.$s)", "salt": salt, "hashcat_hash": md5Hex(pass+salt) + ":" + salt}},
		{"$dynamic_4$" + md5Hex(salt+pass) + "$HEX$" + hex.EncodeToString([]byte(salt)), "md5($salt.$pass)", 20, "dynamic_4",
			map[string]any{"dynamic": int64(4), "expression": "md5($s.$p)", "salt": "HEX$4e61436c", "hashcat_hash": md5Hex(salt+pass) + ":" + salt}},
		{"M$alice#" + dcc, "Domain Cached Credentials (DCC), MS Cache", 1100, "mscash",
			map[string]any{"user": "alice", "hashcat_hash": dcc + ":alice"}},
		{"the message#" + hmacMD5, "HMAC-MD5 (key = $pass)", 50, "HMAC-MD5",
			map[string]any{"message": "the message", "hashcat_hash": hmacMD5 + ":the message"}},
		{"a#b#" + hmacSHA256, "HMAC-SHA256 (key = $pass)", 1450, "HMAC-SHA256",
			map[string]any{"message": "a", "hashcat_hash": hmacSHA256 + ":a#b"}},
		{"$pbkdf2-hmac-sha256$1000$" + hex.EncodeToString([]byte(salt)) + "$" + hex.EncodeToString(dk), "PBKDF2-HMAC-SHA256", 10900, "PBKDF2-HMAC-SHA256",
			map[string]any{"iterations": int64(1000), "salt": "4e61436c",
				"hashcat_hash": "sha256:1000:" + base64.StdEncoding.EncodeToString([]byte(salt)) + ":" + base64.StdEncoding.EncodeToString(dk)}},
		{"$SHA256$" + hex.EncodeToString(sha[:]), "SHA-256", 1400, "Raw-SHA256", map[string]any{"hashcat_hash": hex.EncodeToString(sha[:])}},
		{"$IPB2$" + hex.EncodeToString([]byte(salt)) + "$" + ipb, "MyBB 1.2+, IPB2+ (Invision Power Board)", 2811, "ipb2",
			map[string]any{"salt": "4e61436c", "hashcat_hash": ipb + ":" + salt}},
		{"$OSC$" + salt + "$" + md5Hex(salt+pass), "md5($salt.$pass)", 20, "osc",
			map[string]any{"salt": salt, "hashcat_hash": md5Hex(salt+pass) + ":" + salt}},
		{"$wbb3$*1*" + hex.EncodeToString(inner[:]) + "*" + hex.EncodeToString(wbb[:]), "WBB3 (Woltlab Burning Board)", 8400, "wbb3",
			map[string]any{"salt": hex.EncodeToString(inner[:]), "hashcat_hash": hex.EncodeToString(wbb[:]) + ":" + hex.EncodeToString(inner[:])}},
		{"O$SYSTEM#9EEDFA0AD26C6D52", "Oracle H: Type (Oracle 7+)", 3100, "oracle", map[string]any{"user": "SYSTEM", "hashcat_hash": "9EEDFA0AD26C6D52:SYSTEM"}},
		{"$chap$2*" + strings.Repeat("ab", 16) + "*" + strings.Repeat("cd", 16), "iSCSI CHAP authentication, MD5(CHAP)", 4800, "chap",
			map[string]any{"id": int64(2), "challenge": strings.Repeat("ab", 16), "hashcat_hash": strings.Repeat("cd", 16) + ":" + strings.Repeat("ab", 16) + ":02"}},
		{"$NSEC3$10$abcd$" + strings.Repeat("00", 20) + "$example.com.", "DNSSEC (NSEC3)", 8300, "nsec3",
			map[string]any{"iterations": int64(10), "salt": "abcd", "domain": "example.com.", "hashcat_hash": strings.Repeat("0", 32) + ":.example.com:abcd:10"}},
		{"$ecryptfs$0$" + strings.Repeat("1f", 8), "eCryptfs", 12200, "eCryptfs",
			map[string]any{"hashcat_hash": "$ecryptfs$0$1$0011223344556677$" + strings.Repeat("1f", 8)}},
	}
	for _, tt := range tests {
		cs := Identify(tt.hash).Candidates
		if len(cs) == 0 {
			t.Errorf("%.40q: no candidates", tt.hash)
			continue
		}
		c := cs[0]
		if c.Name != tt.name || c.HashcatMode == nil || *c.HashcatMode != tt.mode || c.JohnFormat != tt.john {
			t.Errorf("%.40q: first %s (mode %v, john %q), want %s (%d, %s)", tt.hash, c.Name, c.HashcatMode, c.JohnFormat, tt.name, tt.mode, tt.john)
			continue
		}
		if !mapsEqual(c.Params, tt.params) {
			t.Errorf("%.40q: params %v, want %v", tt.hash, c.Params, tt.params)
		}
		if !strings.HasPrefix(c.Hashcat, "hashcat -m ") || !strings.HasPrefix(c.John, "john --format="+tt.john+" ") {
			t.Errorf("%.40q: lines %q, %q", tt.hash, c.Hashcat, c.John)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestJohnOnly: formats only John reads name no hashcat mode, and a
// string in the syntax of both tools carries both names.
func TestJohnOnly(t *testing.T) {
	t.Parallel()
	for hash, john := range map[string]string{
		"$dynamic_8$" + md5Hex("x") + "$salt":                                "dynamic_8",
		"$K4$0123456789abcdef,EXAMPLE.COM":                                   "AFS",
		"$vdi$aes-xts256$sha256$2000$2000$64$32$" + strings.Repeat("ab", 32): "vdi",
		"$mdc2$" + md5Hex("y"):                                               "mdc2",
		"$sl3$123456789012345$" + strings.Repeat("ab", 20):                   "SL3",
	} {
		c := Identify(hash).Candidates[0]
		if c.JohnFormat != john || c.HashcatMode != nil || c.Hashcat != "" || c.John == "" {
			t.Errorf("%.40q: %+v, want John's %s only", hash, c, john)
		}
	}
	c := Identify("$dynamic_8$" + md5Hex("x") + "$salt").Candidates[0]
	if c.Name != "dynamic_8: md5(md5($s).$p)" || c.Params["expression"] != "md5(md5($s).$p)" {
		t.Errorf("dynamic_8: %+v", c)
	}
	// Both tools read a bcrypt hash as it is: one candidate, both names.
	c = Identify("$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a").Candidates[0]
	if c.JohnFormat != "bcrypt" || *c.HashcatMode != 3200 || c.Params["hashcat_hash"] != nil || !slices.Contains(c.JohnAlso, "crypt") {
		t.Errorf("bcrypt: %+v", c)
	}
}

// TestDynamicTable: every dynamic_N is a distinct number with an
// expression, and its row, when it names one, exists.
func TestDynamicTable(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for _, d := range dynamicFormats() {
		if seen[d.n] || d.expr == "" {
			t.Errorf("dynamic_%d: duplicate or no expression", d.n)
		}
		seen[d.n] = true
		if d.row != "" && byName[d.row] == nil {
			t.Errorf("dynamic_%d: no row %q", d.n, d.row)
		}
	}
	if len(seen) < 390 {
		t.Errorf("%d dynamic formats, want John's preloaded ones (over 390)", len(seen))
	}
}

// FuzzJohn: no input panics the rewrites to hashcat's syntax, and every
// candidate that names a John format carries its command line.
func FuzzJohn(f *testing.F) {
	rng := rand.New(rand.NewPCG(28, 2))
	for _, jp := range johnPatterns() {
		f.Add(drawPattern(rng, jp.p))
	}
	f.Add("$dynamic_1$$")
	f.Add("$0$") // John's plaintext of nothing: no hashcat line
	f.Add("$NSEC3$1$$" + strings.Repeat("0", 40) + "$.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range Identify(s).Candidates {
			if (c.JohnFormat == "") != (c.John == "") {
				t.Fatalf("%q: %+v", s, c)
			}
			if h, ok := c.Params["hashcat_hash"]; ok && (c.HashcatMode == nil || h.(string) == "") {
				t.Fatalf("%q: hashcat_hash %q for %+v", s, h, c)
			}
		}
	})
}
