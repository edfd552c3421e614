package hashid_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"secutil/tools/hashid"
)

func names(cs []hashid.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// TestRanking: for a shape several formats share, the prevalence table
// decides, and a format that parses every field of the string ranks above
// one that only fits its length.
func TestRanking(t *testing.T) {
	tests := []struct {
		hash  string
		names []string // expected leading names, in order
	}{
		{"8743b52063cd84097a65d1633f5c74f5", []string{"MD5", "NTLM", "MD4", "LM", "md5(md5($pass))"}},
		{"b89eaac7e61417341b710b727768294d0e6a277b", []string{"SHA-1", "MySQL4.1/MySQL5", "RIPEMD-160"}},
		{strings.Repeat("ab", 32), []string{"SHA-256", "SHA3-256", "Keccak-256"}},
		{strings.Repeat("ab", 48), []string{"SHA-384", "SHA3-384"}},
		{strings.Repeat("ab", 64), []string{"SHA-512", "SHA3-512", "Whirlpool"}},
		{"7196759210defdc0", []string{"MySQL323", "LM"}},
		{"c762de4a", []string{"CRC32", "CRC32C"}},
		{"*FCF7C1B8749CF99D88E5F34271D636178FB5D130", []string{"MySQL4.1/MySQL5"}},
		// hash:salt: the generic salted forms first...
		{"3d83c8e717ff0e7ecfe187f088d69954:k3yZ1x", []string{"md5($pass.$salt)", "md5($salt.$pass)"}},
		// ...unless the salt has the length one application uses.
		{"e983672a03adcc9767b24584338eb378:0a", []string{"osCommerce, xt:Commerce", "SolarWinds Serv-U", "md5($pass.$salt)"}},
		{"28f9975808ae2bdc5847b1cda26033ea:3#8", []string{"vBulletin < v3.8.5"}},
		{"b78f863f2c67410c41e617f724e22f34:z9x8Yq7W6v5U4t3S2r1Q0pOnMlKjIhGg", []string{"Joomla < 2.5.18"}},
		// A 32-digit hex salt is an AES plaintext block before a Joomla salt.
		{"e7a32f3210455cc044f26117c4612aab:86046627772965328523223752173724", []string{"AES-128-ECB NOKDF (PT = $salt, key = $pass)"}},
		{"c18e826af2a78c7b9b7261452613233417e65817:28246535720688452723483475753333", []string{"Redmine"}},
		{"$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a", []string{"bcrypt", "bcrypt(md5($pass)) / bcryptmd5"}},
		// A checksum that verifies makes a Bitcoin address exact.
		{"1Jv6EonXm9x4Dw4QjEPAhGfmzFxTL7b3Zj", []string{"Bitcoin WIF private key (P2PKH), compressed"}},
		// Upper-case 160 hex digits are Oracle's, lower-case Samsung's.
		{strings.Repeat("8F75FBD166AFDB6D", 10), []string{"Oracle T: Type (Oracle 12+)"}},
		{strings.Repeat("8f75fbd166afdb6d", 10), []string{"Android FDE (Samsung DEK)"}},
		// The file records of a PKZIP hash tell its variant.
		{"$pkzip2$1*1*2*0*1d1*1c5*eda7a8de*0*28*0*1d1*eda7*5096*1dea673da43d9fc7*$/pkzip2$", []string{"PKZIP (Uncompressed)"}},
		{"$luks$1$sha256$serpent$xts-plain64$512$92561$" + strings.Repeat("03", 32) + "$" + strings.Repeat("0c", 64) + "$" + strings.Repeat("aa", 32),
			[]string{"LUKS v1 SHA-256 + Serpent"}},
	}
	for _, tt := range tests {
		got := names(hashid.Identify(tt.hash).Candidates)
		if len(got) < len(tt.names) || !reflect.DeepEqual(got[:len(tt.names)], tt.names) {
			t.Errorf("%.40s: candidates %q, want them to start %q", tt.hash, got, tt.names)
		}
	}
}

// TestParams: what each string says about itself.
func TestParams(t *testing.T) {
	tests := []struct {
		hash   string
		name   string
		params map[string]any
	}{
		{"$2y$12$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a", "bcrypt", map[string]any{"cost": int64(12), "version": "y", "salt": ".vGA1O9wmRjrwAVXD98HNO"}},
		{"$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/", "sha512crypt",
			map[string]any{"rounds": int64(5000), "salt": "52450745"}},
		{"$5$rounds=80000$GX7BopJZJxPc/KEK$le16UF8I2Anb.rOrn22AUPWvzUETDGefUmAV8AZkGcD", "sha256crypt",
			map[string]any{"rounds": int64(80000), "salt": "GX7BopJZJxPc/KEK"}},
		{"$argon2id$v=19$m=65536,t=3,p=1$FBMjI4RJBhIykCgol1KEJA$2ky5GAdhT1kH4kIgPN/oERE3Taiy43vNN70a3HpiKQU", "Argon2",
			map[string]any{"variant": "id", "version": int64(19), "memory": int64(65536), "iterations": int64(3), "parallelism": int64(1), "salt": "FBMjI4RJBhIykCgol1KEJA"}},
		{"SCRYPT:16384:8:1:OTEyNzU0ODg=:Cc8SPjRH1hFQhuIPCdF51uNGtJ2aOY/isuoMlMUsJ8c=", "scrypt",
			map[string]any{"cost": int64(16384), "block_size": int64(8), "parallelism": int64(1), "salt": "OTEyNzU0ODg="}},
		{"pbkdf2_sha256$260000$H0dPx8NeajVu$GiC4k5kqbbR9qWBlsRgDywNqC2vd9kqfk7zdorEnNas=", "Django (PBKDF2-SHA256)",
			map[string]any{"iterations": int64(260000), "salt": "H0dPx8NeajVu"}},
		{"$P$984478476IagS59wHZvyQMArzfx58u.", "phpass", map[string]any{"cost": int64(11), "salt": "84478476"}},
		{"$DCC2$10240#tom#e4e938d12fe5974dc42a90120bd9c90f", "Domain Cached Credentials 2 (DCC2), MS Cache 2",
			map[string]any{"iterations": int64(10240), "user": "tom"}},
		{"admin::N46iSNekpT:08ca45b7d7ea58ee:88dcbe4446168966a153a0064958dac6:5c7830315c78303100000000000b45c6", "NetNTLMv2",
			map[string]any{"user": "admin", "domain": "N46iSNekpT", "challenge": "08ca45b7d7ea58ee"}},
		{"$krb5pa$18$hashcat$HASHCATDOMAIN.COM$96c289009b05181bfd32062962740b1b1ce5f74eb12e0266cde74e81094661addab08c0c1a178882c91a0ed89ae4e0e68d2820b9cce69770",
			"Kerberos 5, etype 18, Pre-Auth", map[string]any{"user": "hashcat", "realm": "HASHCATDOMAIN.COM"}},
		{"a6343a68d964ca596d9752250d54bb8a:postgres", "PostgreSQL", map[string]any{"user": "postgres"}},
		{"8743b52063cd84097a65d1633f5c74f5", "MD5", nil},
	}
	for _, tt := range tests {
		var found *hashid.Candidate
		cs := hashid.Identify(tt.hash).Candidates
		for i := range cs {
			if cs[i].Name == tt.name {
				found = &cs[i]
			}
		}
		if found == nil {
			t.Errorf("%.30s: %q not among %q", tt.hash, tt.name, names(cs))
			continue
		}
		if !reflect.DeepEqual(found.Params, tt.params) {
			t.Errorf("%.30s: %s params %v, want %v", tt.hash, tt.name, found.Params, tt.params)
		}
	}
}

func TestHashcatLine(t *testing.T) {
	c := hashid.Identify("$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/").Candidates[0]
	if c.Hashcat != "hashcat -m 1800 hash.txt wordlist.txt" {
		t.Errorf("sha512crypt: %q", c.Hashcat)
	}
	c = hashid.Identify("$y$j9T$F5Jx5fExrKuJdljLu0pzG0$S3jTm96aeH/fcT56A7Qpa2QwBXj1zhwvAmVhEJzvv8B").Candidates[0]
	if c.Name != "yescrypt" || c.HashcatMode != nil || c.Hashcat != "" || c.JohnFormat != "crypt" {
		t.Errorf("a format hashcat lacks has no mode and no line: %+v", c)
	}
	c = hashid.Identify("alice:$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.").Candidates[0]
	if c.Hashcat != "hashcat -m 1600 --username hash.txt wordlist.txt" {
		t.Errorf("a user:hash line: %q", c.Hashcat)
	}
}

// TestNotHash: strings that are something else say what they are, unless a
// format parses them.
func TestNotHash(t *testing.T) {
	tests := map[string]string{
		"ann@example.com":                      "an email address",
		"https://example.com/a?b=c":            "a URL",
		"123e4567-e89b-12d3-a456-426614174000": "a UUID",
		"192.168.1.10":                         "an IP address",
		"2001:db8::1":                          "an IP address",
		"password":                             "a plain word",
		"Summer2024!":                          "a plain word",
		"correct horse battery staple":         "text with spaces",
		"aGVsbG8gd29ybGQsIGhvdyBhcmUgeW91Pw==": "base64 of text",
		"1234567":                              "a number",
	}
	for in, want := range tests {
		res := hashid.Identify(in)
		if res.Estimate != hashid.NotHash || res.Note != want {
			t.Errorf("%q: estimate %q note %q, want %q", in, res.Estimate, res.Note, want)
		}
	}
	// A word is what hashcat's plaintext modes take.
	if got := names(hashid.Identify("hashcat").Candidates); !reflect.DeepEqual(got, []string{"Plaintext", "STDOUT"}) {
		t.Errorf("a word: %q", got)
	}
	// Hashes that look like something else stay hashes.
	for _, in := range []string{"8743b52063cd84097a65d1633f5c74f5", "c762de4a", "eyJhbGciOiJIUzI1NiJ9.eyIzNDM2MzQyMCI6NTc2ODc1NDd9.f1nXZ3V_Hrr6ee-AFCTLaHRnrkiKmio2t3JqwL32guY",
		"82dbb8ccc9c7ead8c38a92a6b5740f94:500:pmix@trash-mail.com", "{x-issha, 1024}BnjXMqcNTwa3BzdnUOf1iAu6dw02NzU4MzE2MTA="} {
		if res := hashid.Identify(in); res.Note != "" || len(res.Candidates) == 0 {
			t.Errorf("%q: %+v", in, res)
		}
	}
	for _, in := range []string{"", "   ", "#!%&", strings.Repeat("a", hashid.MaxInputBytes+1)} {
		res := hashid.Identify(in)
		if res.Estimate != hashid.Unknown || res.Candidates == nil || len(res.Candidates) != 0 {
			t.Errorf("%.20q: %+v, want unknown with no candidates", in, res)
		}
	}
}

// TestWrappers: a hash inside an LDAP or Dovecot scheme is identified
// through it, and a scheme that names its algorithm decides.
func TestWrappers(t *testing.T) {
	const crypt = "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/"
	tests := []struct{ hash, first, wrapper string }{
		{"{CRYPT}" + crypt, "sha512crypt", "{CRYPT}"},
		{"{crypt}" + crypt, "sha512crypt", "{crypt}"},
		{"{SHA512-CRYPT}" + crypt, "sha512crypt", "{SHA512-CRYPT}"},
		{"{BLF-CRYPT}$2y$05$eWCE2hu6.z..dOad.EScGOXYWQFKhmFeyRszESXVlUYqkNYu2wrde", "bcrypt", "{BLF-CRYPT}"},
		{"{NTLM}8846f7eaee8fb117ad06bdd830b7586c", "NTLM", "{NTLM}"},
		{"{PLAIN-MD5}5f4dcc3b5aa765d61d8327deb882cf99", "MD5", "{PLAIN-MD5}"},
		{"{SHA256.HEX}5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8", "SHA-256", "{SHA256.HEX}"},
	}
	for _, tt := range tests {
		cs := hashid.Identify(tt.hash).Candidates
		if len(cs) == 0 || cs[0].Name != tt.first || cs[0].Params["wrapper"] != tt.wrapper {
			t.Errorf("%.30s: first %+v, want %s in %s", tt.hash, cs, tt.first, tt.wrapper)
		}
	}
	// {SSHA} is a scheme of its own, not a wrapper.
	if c := hashid.Identify("{SSHA}AZKja92fbuuB9SpRlHqaoXxbTc43Mzc2MDM1Ng==").Candidates[0]; c.Params["wrapper"] != nil || *c.HashcatMode != 111 {
		t.Errorf("{SSHA}: %+v", c)
	}
}

// TestUserField: a "user:hash" or /etc/shadow line is read by its hash
// field, a little less surely than the bare hash.
func TestUserField(t *testing.T) {
	const sha512crypt = "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/"
	for line, field := range map[string]string{
		"root:" + sha512crypt + ":19000:0:99999:7:::": sha512crypt,
		"alice:" + sha512crypt:                        sha512crypt,
		"bob:8743b52063cd84097a65d1633f5c74f5":        "8743b52063cd84097a65d1633f5c74f5",
	} {
		got, bare := hashid.Identify(line).Candidates, hashid.Identify(field).Candidates
		if len(got) == 0 || got[0].Name != bare[0].Name {
			t.Fatalf("%.30q: %q, want %s first", line, names(got), bare[0].Name)
		}
		if got[0].Confidence >= bare[0].Confidence {
			t.Errorf("%.30q: confidence %v, want below the bare hash's %v", line, got[0].Confidence, bare[0].Confidence)
		}
	}
}

// checkInvariants: confidences in [0,1] with two decimals, best first,
// names set.
func checkInvariants(t *testing.T, in string) {
	t.Helper()
	res := hashid.Identify(in)
	if res.Candidates == nil || res.Estimate == "" {
		t.Fatalf("%q: %+v", in, res)
	}
	for i, c := range res.Candidates {
		if c.Confidence < 0 || c.Confidence > 1 || math.Abs(math.Round(c.Confidence*100)-c.Confidence*100) > 1e-9 {
			t.Fatalf("%q: confidence %v", in, c.Confidence)
		}
		if i > 0 && c.Confidence > res.Candidates[i-1].Confidence {
			t.Fatalf("%q: candidate %d (%v) above %d (%v)", in, i, c.Confidence, i-1, res.Candidates[i-1].Confidence)
		}
		if c.Name == "" || c.Category == "" || (c.HashcatMode == nil) != (c.Hashcat == "") {
			t.Fatalf("%q: %+v", in, c)
		}
	}
	if len(res.Candidates) > 0 && res.Note == "" && res.Estimate != res.Candidates[0].Name {
		t.Fatalf("%q: estimate %q, first %q", in, res.Estimate, res.Candidates[0].Name)
	}
}

func FuzzIdentify(f *testing.F) {
	for _, s := range []string{"8743b52063cd84097a65d1633f5c74f5", "$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a",
		"{CRYPT}$1$28772684$iEwNOgGugqO9.bIz5sk8k/", "u::d:0123456789abcdef:0123456789abcdef0123456789abcdef:00",
		"a:b:c", "$pkzip2$1*1*2*0*e3*1c5*eda7a8de*0*28*8*e3*eda7*5096*a9fc*$/pkzip2$", "", "$", "{", "eyJ.a.b", "1Jv6EonX"} {
		f.Add(s)
	}
	f.Fuzz(checkInvariants)
}

func TestTokens(t *testing.T) {
	const argon2 = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG"
	const sap = "{x-issha, 1024}BnjXMqcNTwa3BzdnUOf1iAu6dw02NzU4MzE2MTA="
	got := hashid.Tokens("a1, b2;c3 d4\te5\r\n" + argon2 + " " + sap + "\n\na1\n" + argon2)
	want := []string{"a1", "b2", "c3", "d4", "e5", argon2, sap}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
}

func TestIdentifyBatch(t *testing.T) {
	groups := hashid.IdentifyBatch([]string{
		"$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"8743b52063cd84097a65d1633f5c74f5",
		"$2b$10$abcdefghijklmnopqrstuuDvg4Z9Nq1aJVWHkBWNbZpOvHlEwB5Ey",
		"$2b$12$abcdefghijklmnopqrstuuDvg4Z9Nq1aJVWHkBWNbZpOvHlEwB5Ey",
		"b4b9b02e6f09a9bd760f388b67351e2b",
		"nope nope",
	})
	if len(groups) != 3 {
		t.Fatalf("groups %+v", groups)
	}
	if g := groups[0]; g.Estimate != "bcrypt" || g.Count != 3 || len(g.Hashes) != 3 ||
		!reflect.DeepEqual(g.Candidates[0].Params, map[string]any{"version": "b"}) {
		t.Errorf("bcrypt group (cost and salt differ, version shared): %+v", g)
	}
	if g := groups[1]; g.Estimate != "MD5" || g.Count != 2 || g.Hashes[1] != "b4b9b02e6f09a9bd760f388b67351e2b" {
		t.Errorf("MD5 group: %+v", g)
	}
	if g := groups[2]; g.Estimate != hashid.NotHash || g.Note != "text with spaces" || g.Count != 1 {
		t.Errorf("not a hash: %+v", g)
	}
}

func TestFormatsCount(t *testing.T) {
	if got := hashid.HashcatModes(); got < 430 {
		t.Errorf("HashcatModes() = %d, want every text mode of hashcat 6.2.6", got)
	}
	if got := hashid.Formats(); got <= hashid.HashcatModes() {
		t.Errorf("Formats() = %d: the table must hold more than hashcat's modes", got)
	}
	t.Logf("%d formats, %d hashcat modes", hashid.Formats(), hashid.HashcatModes())
}
