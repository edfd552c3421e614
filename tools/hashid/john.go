package hashid

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// John the Ripper (jumbo) writes many hashes its own way: a tag naming its
// format ($NT$, $dynamic_1$, $pbkdf2-hmac-sha1$), a user before the hash
// (M$user#hash), the message before an HMAC (message#hash). This file
// declares those written forms: each is a pattern with John's --format
// name, attached to the table row of the same algorithm where the table
// has one (so one candidate carries both tools' names), and, where hashcat
// cracks the algorithm, how to turn the string into hashcat's form.

// johnForm is what John calls one written form of a format.
type johnForm struct {
	// label is John's --format name; "" leaves the row's.
	label string
	// hashcat rewrites a string of this form the way hashcat reads it
	// (Candidate.Params["hashcat_hash"]); nil when hashcat reads it as is.
	hashcat func(s string) string
	// implied replaces the row's implied parameters for this form.
	implied map[string]any
	// line and also are filled in at init (indexJohn): John's command
	// line for the label and johnAlso's entry for it.
	line string
	also []string
}

// plain reports a form that changes nothing of the row's answer.
func (f johnForm) plain(row string) bool {
	return f.hashcat == nil && f.implied == nil && f.label == row
}

// johnSyntax attaches written forms in John's syntax to a row of the table.
type johnSyntax struct {
	row      string // the row's name
	form     johnForm
	patterns []string
}

// withJohn returns the table with John's forms attached to their rows and
// the rows of John's formats hashcat lacks appended.
func withJohn(base []row) []row {
	rows := append(append([]row(nil), base...), johnRows()...)
	rows = append(rows, dynamicRows()...)
	at := map[string]int{}
	for i, r := range rows {
		at[r.name] = i
	}
	for _, js := range append(johnSyntaxes(), dynamicSyntaxes()...) {
		i, ok := at[js.row]
		if !ok {
			panic("john.go: no row named " + strconv.Quote(js.row))
		}
		r := &rows[i]
		forms := make([]johnForm, len(r.patterns), len(r.patterns)+len(js.patterns))
		copy(forms, r.forms)
		r.forms = forms
		// Copied before appending: rows share nothing with the table.
		r.patterns = append(append([]string(nil), r.patterns...), js.patterns...)
		for range js.patterns {
			r.forms = append(r.forms, js.form)
		}
	}
	return rows
}

// Rewrites from John's forms to hashcat's.

// afterTag drops John's tag: hashcat takes the digest alone.
func afterTag(tag string) func(string) string {
	return func(s string) string { return strings.TrimPrefix(s, tag) }
}

// dynamicToHashcat turns $dynamic_N$hash$salt into hashcat's hash:salt; a
// salt John writes as HEX$... is decoded, and a user ($$U) stands in for a
// missing salt.
func dynamicToHashcat(s string) string {
	rest := s[strings.IndexByte(s[1:], '$')+2:]
	hash, salt, _ := strings.Cut(rest, "$")
	var user string
	if i := strings.Index(salt, "$$U"); i >= 0 {
		salt, user = salt[:i], salt[i+3:]
		user, _, _ = strings.Cut(user, "$$")
	}
	if i := strings.Index(salt, "$$"); i >= 0 {
		salt = salt[:i]
	}
	if h, ok := strings.CutPrefix(salt, "HEX$"); ok {
		// hashcat takes a salt of any bytes only as hex (--hex-salt), so
		// the salt is decoded where it is text.
		if b, err := hex.DecodeString(h); err == nil && printableASCII(b) {
			salt = string(b)
		} else {
			salt = h
		}
	}
	switch {
	case salt != "":
		return hash + ":" + salt
	case user != "":
		return hash + ":" + user
	}
	return hash
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// dynamicFormat is one of John's preloaded dynamic_N formats: an
// expression over $p (password), $s (salt) and $u (user).
type dynamicFormat struct {
	n      int
	expr   string
	digest string // the digest's field: "hex:32", "c64:16"...
	row    string // the table row computing the same, "" if none
}

// dynamicPlain are John's dynamic_0 to dynamic_41 (27, 28 and 17, 21 are
// retired).
var dynamicPlain = []dynamicFormat{
	{0, "md5($p)", "hex:32", "MD5"},
	{1, "md5($p.$s)", "hex:32", "md5($pass.$salt)"},
	{2, "md5(md5($p))", "hex:32", "md5(md5($pass))"},
	{3, "md5(md5(md5($p)))", "hex:32", "md5(md5(md5($pass)))"},
	{4, "md5($s.$p)", "hex:32", "md5($salt.$pass)"},
	{5, "md5($s.$p.$s)", "hex:32", "md5($salt.$pass.$salt)"},
	{6, "md5(md5($p).$s)", "hex:32", "vBulletin < v3.8.5"},
	{7, "md5(md5($p).$s)", "hex:32", "vBulletin < v3.8.5"},
	{8, "md5(md5($s).$p)", "hex:32", ""},
	{9, "md5($s.md5($p))", "hex:32", "md5($salt.md5($pass))"},
	{10, "md5($s.md5($s.$p))", "hex:32", "md5($salt.md5($salt.$pass))"},
	{11, "md5($s.md5($p.$s))", "hex:32", "md5($salt.md5($pass.$salt))"},
	{12, "md5(md5($s).md5($p))", "hex:32", "MyBB 1.2+, IPB2+ (Invision Power Board)"},
	{13, "md5(md5($p).md5($s))", "hex:32", "md5(md5($pass).md5($salt))"},
	{14, "md5($s.md5($p).$s)", "hex:32", ""},
	{15, "md5($u.md5($p).$s)", "hex:32", ""},
	{16, "md5(md5(md5($p).$s).$s2)", "hex:32", ""},
	{18, "md5($s.Y.$p.0xF7.$s)", "hex:32", ""},
	{19, "md5($p) (Cisco PIX)", "c64:16", "Cisco-PIX MD5"},
	{20, "md5($p.$s) (Cisco ASA)", "c64:16", "Cisco-ASA MD5"},
	{22, "md5(sha1($p))", "hex:32", "md5(sha1($pass))"},
	{23, "sha1(md5($p))", "hex:40", "sha1(md5($pass))"},
	{24, "sha1($p.$s)", "hex:40", "sha1($pass.$salt)"},
	{25, "sha1($s.$p)", "hex:40", "sha1($salt.$pass)"},
	{26, "sha1($p)", "hex:40", "SHA-1"},
	{29, "md5(utf16($p))", "hex:32", "md5(utf16le($pass))"},
	{30, "md4($p)", "hex:32", "MD4"},
	{31, "md4($s.$p)", "hex:32", ""},
	{32, "md4($p.$s)", "hex:32", ""},
	{33, "md4(utf16($p))", "hex:32", "NTLM"},
	{34, "md5(md4($p))", "hex:32", ""},
	{35, "sha1(uc($u).:.$p)", "hex:40", ""},
	{36, "sha1($u.:.$p)", "hex:40", ""},
	{37, "sha1(lc($u).$p)", "hex:40", "SMF (Simple Machines Forum) > v1.1"},
	// hashcat's WBB3 (8400) computes dynamic_38 but takes only a 40-digit
	// salt; John's $wbb3$ form maps there.
	{38, "sha1($s.sha1($s.sha1($p)))", "hex:40", ""},
	{39, "md5($s.pad16($p))", "hex:32", ""},
	{40, "sha1($s.pad20($p))", "hex:40", ""},
	{41, "sha1($s.utf16($p))", "hex:40", "sha1($salt.utf16le($pass))"},
}

// dynamicTemplates are the nine expressions John builds for each larger
// hash (dynamic_N0 to dynamic_N8), H standing for the hash.
var dynamicTemplates = [9]string{"H($p)", "H($s.$p)", "H($p.$s)", "H(H($p))", "H(H_raw($p))", "H(H($p).$s)",
	"H($s.H($p))", "H(H($s).H($p))", "H(H($p).H($p))"}

// dynamicFamily is one of the larger hashes, with the table rows that
// compute the same as its templates (by template index).
type dynamicFamily struct {
	base   int
	hash   string
	digest int // hex digits
	rows   map[int]string
}

// dynamicFamilies are the larger hashes (a function, as table is: built on
// first use).
func dynamicFamilies() []dynamicFamily {
	return []dynamicFamily{
		{50, "sha224", 56, map[int]string{0: "SHA-224"}},
		{60, "sha256", 64, map[int]string{0: "SHA-256", 1: "sha256($salt.$pass)", 2: "sha256($pass.$salt)",
			4: "sha256(sha256_bin($pass))", 5: "sha256(sha256($pass).$salt)", 6: "sha256($salt.sha256($pass))"}},
		{70, "sha384", 96, map[int]string{0: "SHA-384", 1: "sha384($salt.$pass)", 2: "sha384($pass.$salt)"}},
		{80, "sha512", 128, map[int]string{0: "SHA-512", 1: "sha512($salt.$pass)", 2: "sha512($pass.$salt)",
			4: "BitShares v0.x - sha512(sha512_bin(pass))"}},
		{90, "gost", 64, map[int]string{0: "GOST R 34.11-94"}},
		{100, "whirlpool", 128, map[int]string{0: "Whirlpool"}},
		{110, "tiger", 48, map[int]string{0: "Tiger-192"}},
		{120, "ripemd128", 32, map[int]string{0: "RIPEMD-128"}},
		{130, "ripemd160", 40, map[int]string{0: "RIPEMD-160"}},
		{140, "ripemd256", 64, map[int]string{0: "RIPEMD-256"}},
		{150, "ripemd320", 80, map[int]string{0: "RIPEMD-320"}},
		{160, "haval128_3", 32, nil}, {170, "haval128_4", 32, nil}, {180, "haval128_5", 32, nil},
		{190, "haval160_3", 40, nil}, {200, "haval160_4", 40, nil}, {210, "haval160_5", 40, nil},
		{220, "haval192_3", 48, nil}, {230, "haval192_4", 48, nil}, {240, "haval192_5", 48, nil},
		{250, "haval224_3", 56, nil}, {260, "haval224_4", 56, nil}, {270, "haval224_5", 56, nil},
		{280, "haval256_3", 64, nil}, {290, "haval256_4", 64, nil}, {300, "haval256_5", 64, nil},
		{310, "md2", 32, map[int]string{0: "MD2"}},
		{320, "panama", 64, nil},
		{330, "skein224", 56, nil}, {340, "skein256", 64, nil}, {350, "skein384", 96, nil}, {360, "skein512", 128, nil},
		{370, "sha3_224", 56, map[int]string{0: "SHA3-224"}}, {380, "sha3_256", 64, map[int]string{0: "SHA3-256"}},
		{390, "sha3_384", 96, map[int]string{0: "SHA3-384"}}, {400, "sha3_512", 128, map[int]string{0: "SHA3-512"}},
		{410, "keccak_256", 64, map[int]string{0: "Keccak-256"}}, {420, "keccak_512", 128, map[int]string{0: "Keccak-512"}},
		{430, "keccak_224", 56, map[int]string{0: "Keccak-224"}}, {440, "keccak_384", 96, map[int]string{0: "Keccak-384"}},
	}
}

// dynamicFormats lists every preloaded dynamic_N.
func dynamicFormats() []dynamicFormat {
	out := append([]dynamicFormat(nil), dynamicPlain...)
	for _, fam := range dynamicFamilies() {
		for k, t := range dynamicTemplates {
			expr := strings.ReplaceAll(t, "H", fam.hash)
			out = append(out, dynamicFormat{fam.base + k, expr, "hex:" + strconv.Itoa(fam.digest), fam.rows[k]})
		}
	}
	return out
}

// dynamicPatterns are the forms of $dynamic_N$: the digest, then a salt
// (which may carry $$U user and $$2 second salt) or nothing.
func (d dynamicFormat) patterns() []string {
	tag := "$dynamic_" + strconv.Itoa(d.n) + "$"
	return []string{tag + "<" + d.digest + ">", tag + "<" + d.digest + ">$<any=salt>"}
}

func (d dynamicFormat) form() johnForm {
	return johnForm{label: "dynamic_" + strconv.Itoa(d.n), hashcat: dynamicToHashcat,
		implied: map[string]any{"dynamic": int64(d.n), "expression": d.expr}}
}

// dynamicRows are the rows of the dynamic formats no table row computes.
func dynamicRows() []row {
	var out []row
	for _, d := range dynamicFormats() {
		if d.row != "" {
			continue
		}
		cat := catRaw
		if strings.Contains(d.expr, "$s") || strings.Contains(d.expr, "$u") {
			cat = catSalted
		}
		x := r(noMode, "dynamic_"+strconv.Itoa(d.n)+": "+d.expr, "", cat, d.patterns()...)
		x.forms = []johnForm{d.form(), d.form()}
		out = append(out, x)
	}
	return out
}

// dynamicSyntaxes attach the other dynamic formats to their rows.
func dynamicSyntaxes() []johnSyntax {
	var out []johnSyntax
	for _, d := range dynamicFormats() {
		if d.row != "" {
			out = append(out, johnSyntax{row: d.row, form: d.form(), patterns: d.patterns()})
		}
	}
	return out
}

// johnAlso lists, by John format (lower case), John's other formats that
// read the same strings: variants built for long passwords or other
// hardware, the generic crypt(3) format, and formats John builds on a
// dynamic one (whose test strings are in the dynamic syntax). (A function,
// as table is: built on first use.)
func johnAlso() map[string][]string {
	return map[string][]string{
		"raw-md5":      {"Raw-MD5-flat"},
		"nt":           {"NT-long"},
		"md5crypt":     {"md5crypt-long", "crypt"},
		"descrypt":     {"crypt"},
		"bcrypt":       {"crypt"},
		"sha256crypt":  {"crypt"},
		"sha512crypt":  {"crypt"},
		"phps":         {"PHPS2"},
		"netntlm":      {"netntlm-naive"},
		"mschapv2":     {"mschapv2-naive"},
		"wpapsk":       {"wpapsk-pmk"},
		"tc_sha512":    {"tc_aes_xts"},
		"tc_ripemd160": {"tc_aes_xts"},
		"tc_whirlpool": {"tc_aes_xts"},
		"dynamic_0":    {"Raw-MD5", "Raw-MD5-flat"},
		"dynamic_4":    {"osc"},
		"dynamic_9":    {"MediaWiki"},
		"dynamic_20":   {"asa-md5"},
		"dynamic_61":   {"FormSpring"},
	}
}

// johnLine is John's command line for a format, like Candidate.Hashcat's.
func johnLine(label string) string {
	return "john --format=" + label + " --wordlist=wordlist.txt hash.txt"
}

// indexJohn resolves, once, what an answer says about John for every
// format and form: the label, its command line and its other formats.
func indexJohn() {
	also := johnAlso()
	for _, f := range formats {
		for i := range f.forms {
			form := &f.forms[i]
			if form.label == "" {
				form.label = f.john
			}
			if form.label != "" {
				form.line = johnLine(form.label)
				form.also = also[strings.ToLower(form.label)]
			}
		}
	}
}

// js declares John's written forms of a table row's format.
func js(row, label string, hashcat func(string) string, patterns ...string) johnSyntax {
	return johnSyntax{row: row, form: johnForm{label: label, hashcat: hashcat}, patterns: patterns}
}

// johnSyntaxes are John's forms of formats the table already has, with
// how hashcat reads each where its syntax differs. (A function, as table
// is: built on first use.)
func johnSyntaxes() []johnSyntax {
	return []johnSyntax{
		// Raw digests behind a tag.
		js("MD5", "Raw-MD5", afterTag("$MD5$"), "$MD5$<hex:32>"),
		js("SHA-1", "Raw-SHA1", afterTag("$SHA1$"), "$SHA1$<hex:40>"),
		js("SHA-224", "Raw-SHA224", afterTag("$SHA224$"), "$SHA224$<hex:56>"),
		js("SHA-256", "Raw-SHA256", afterTag("$SHA256$"), "$SHA256$<hex:64>"),
		js("SHA-384", "Raw-SHA384", afterTag("$SHA384$"), "$SHA384$<hex:96>"),
		js("SHA-512", "Raw-SHA512", afterTag("$SHA512$"), "$SHA512$<hex:128>"),
		js("MD4", "Raw-MD4", afterTag("$MD4$"), "$MD4$<hex:32>"),
		js("NTLM", "NT", afterTag("$NT$"), "$NT$<hex:32>"),
		js("LM", "LM", afterTag("$LM$"), "$LM$<hex:16>"),
		js("GOST R 34.11-2012 (Streebog) 256-bit, big-endian", "Stribog-256", afterTag("$stribog256$"), "$stribog256$<hex:64>"),
		js("GOST R 34.11-2012 (Streebog) 512-bit, big-endian", "Stribog-512", afterTag("$stribog512$"), "$stribog512$<hex:128>"),
		js("MD2", "MD2", nil, "$md2$<hex:32>"),
		js("GOST R 34.11-94", "gost", afterTag("$gost$"), "$gost$<hex:64>"),
		js("Whirlpool", "whirlpool", afterTag("$whirlpool$"), "$whirlpool$<hex:128>"),
		js("Keccak-256", "Raw-Keccak-256", afterTag("$keccak256$"), "$keccak256$<hex:64>"),
		js("Keccak-512", "Raw-Keccak", afterTag("$keccak$"), "$keccak$<hex:128>"),
		js("RIPEMD-160", "ripemd-160", afterTag("$ripemd$"), "$ripemd$<hex:40>"),
		js("RIPEMD-128", "ripemd-128", nil, "$ripemd$<hex:32>"),
		js("Haval-128", "HAVAL-128-4", nil, "$haval$<hex:32>"),
		js("Haval-256", "HAVAL-256-3", nil, "$haval$<hex:64>"),
		js("Skein-256", "skein-256", nil, "$skein$<hex:64>"),
		js("Skein-512", "skein-512", nil, "$skein$<hex:128>"),
		js("Tiger-192", "Tiger", nil, "$tiger$<hex:48>"),
		// JSON Web Tokens signed with HS384 and HS512: John's HMAC formats
		// read them (hashcat's mode 16500 too).
		js("JWT (JSON Web Token)", "HMAC-SHA384", nil, "eyJ<b64u>.<b64u:0+>.<b64u:64>"),
		js("JWT (JSON Web Token)", "HMAC-SHA512", nil, "eyJ<b64u>.<b64u:0+>.<b64u:86>"),
		js("Snefru-128", "Snefru-128", nil, "$snefru$<hex:32>"),
		js("Snefru-256", "Snefru-256", nil, "$snefru$<hex:64>"),
		js("Oracle T: Type (Oracle 12+)", "Oracle12C", afterTag("$oracle12c$"), "$oracle12c$<hex:160>"),
		js("macOS v10.7", "xsha512", afterTag("$LION$"), "$LION$<hex:8=salt><hex:128>"),
		js("Plaintext", "plaintext", afterTag("$0$"), "$0$<text:1+>"), // hashcat takes no empty line

		// A user or salt before the hash, which hashcat wants after it.
		js("Domain Cached Credentials (DCC), MS Cache", "mscash", hashColonFirst("M$", '#'), "M$<user=user>#<hex:32>"),
		js("Oracle H: Type (Oracle 7+)", "oracle", hashColonFirst("O$", '#'), "O$<user=user>#<uhex:16>"),
		js("md5($salt.$pass)", "osc", hashColonFirst("$OSC$", '$'), "$OSC$<word=salt>$<hex:32>"),
		js("Juniper NetScreen/SSG (ScreenOS)", "md5ns", hashColonFirst("", '$'), "<word=user>$<b64:30>"),
		js("sha256($salt.$pass)", "FormSpring", sepToColon('$'), "<hex:64>$<text=salt>"),
		js("Oracle S: Type (Oracle 11+)", "oracle11", splitAt(40), "<hex:40><hex:20=salt>"),
		js("MyBB 1.2+, IPB2+ (Invision Power Board)", "ipb2", hexSaltLast("$IPB2$"), "$IPB2$<hex=salt>$<hex:32>"),
		js("WBB3 (Woltlab Burning Board)", "wbb3", wbb3ToHashcat, "$wbb3$*1*<hex:40=salt>*<hex:40>"),
		js("PostgreSQL CRAM (MD5)", "postgres", postgresToHashcat, "$postgre$<user=user>*<hex:8=salt>*<hex:32>"),
		js("iSCSI CHAP authentication, MD5(CHAP)", "chap", chapToHashcat, "$chap$<dec:1-3=id>*<hex:32=challenge>*<hex:32>"),
		js("IPMI2 RAKP HMAC-SHA1", "RAKP", rakpToHashcat, "$rakp$<hex=salt>$<hex:40>"),

		// HMACs: John writes the message, '#', the digest.
		js("HMAC-MD5 (key = $pass)", "HMAC-MD5", hashColonFirst("", '#'), "<text:0+=message>#<hex:32>", "<text:0+=message>#<text:0+>#<hex:32>"),
		js("HMAC-SHA1 (key = $pass)", "HMAC-SHA1", hashColonFirst("", '#'), "<text:0+=message>#<hex:40>", "<text:0+=message>#<text:0+>#<hex:40>"),
		js("HMAC-SHA256 (key = $pass)", "HMAC-SHA256", hashColonFirst("", '#'), "<text:0+=message>#<hex:64>", "<text:0+=message>#<text:0+>#<hex:64>"),
		js("HMAC-SHA512 (key = $pass)", "HMAC-SHA512", hashColonFirst("", '#'), "<text:0+=message>#<hex:128>", "<text:0+=message>#<text:0+>#<hex:128>"),

		// Key derivation.
		js("PBKDF2-HMAC-MD5", "PBKDF2-HMAC-MD5", pbkdf2ToHashcat("md5"),
			"$pbkdf2-hmac-md5$<dec=iterations>$<hex=salt>$<hex:32+>", "$pbkdf2-hmac-md5$<dec=iterations>.<hex=salt>.<hex:32+>"),
		js("PBKDF2-HMAC-SHA1", "PBKDF2-HMAC-SHA1", pbkdf2ToHashcat("sha1"),
			"$pbkdf2-hmac-sha1$<dec=iterations>$<hex=salt>$<hex:40+>", "$pbkdf2-hmac-sha1$<dec=iterations>.<hex=salt>.<hex:40+>"),
		js("PBKDF2-HMAC-SHA256", "PBKDF2-HMAC-SHA256", pbkdf2ToHashcat("sha256"),
			"$pbkdf2-hmac-sha256$<dec=iterations>$<hex=salt>$<hex:64+>", "$pbkdf2-hmac-sha256$<dec=iterations>.<hex=salt>.<hex:64+>"),
		js("PBKDF2-HMAC-SHA512", "PBKDF2-HMAC-SHA512", pbkdf2ToHashcat("sha512"),
			"$pbkdf2-hmac-sha512$<dec=iterations>$<hex=salt>$<hex:128+>", "$pbkdf2-hmac-sha512$<dec=iterations>.<hex=salt>.<hex:128+>"),
		js("Django (PBKDF2-SHA256)", "Django", afterTag("$django$*1*"), "$django$*1*pbkdf2_sha256$<dec=iterations>$<word=salt>$<b64:44>"),
		js("Django scrypt", "django-scrypt", nil, "scrypt$<word=salt>$<dec=cost>$<dec=block_size>$<dec=parallelism>$<dec>$<b64>"),
		js("Sun MD5 crypt", "SunMD5", nil, "$md5$rounds=<dec=rounds>$<c64:0-16=salt>$$<c64:22>", "$md5$rounds=<dec=rounds>$<c64:0-16=salt>$<c64:22>"),
		js("MS-AzureSync PBKDF2-HMAC-SHA256", "AzureAD", nil, "v1;PPH1_MD4,<hex=salt>,<dec=iterations>,<hex>", "v1;PPH1_MD4,<hex=salt>,<dec=iterations>,<hex>;"),
		js("Episerver 6.x < .NET 4", "EPiServer", trimPadding, "$episerver$*0*<b64=salt>*<b64e:27>="),
		js("Episerver 6.x >= .NET 4", "EPiServer", trimPadding, "$episerver$*1*<b64=salt>*<b64e:43>="),

		// Network protocols.
		js("NetNTLMv1 / NetNTLMv1+ESS", "netntlm", netntlmToHashcat, "$NETNTLM$<hex:32=challenge>$<hex:48>"),
		js("NetNTLMv1 / NetNTLMv1+ESS", "MSCHAPv2", nil, "$MSCHAPv2$<hex:32=challenge>$<hex:48>$<hex:32>$<user:0+=user>"),
		js("Kerberos 5, etype 17, Pre-Auth", "krb5pa-sha1", krb5paToHashcat, "$krb5pa$17$<user=user>$<host=realm>$<word:0+=salt>$<hex:104+>"),
		js("Kerberos 5, etype 18, Pre-Auth", "krb5pa-sha1", krb5paToHashcat, "$krb5pa$18$<user=user>$<host=realm>$<word:0+=salt>$<hex:104+>"),
		js("DNSSEC (NSEC3)", "nsec3", nsec3ToHashcat, "$NSEC3$<dec=iterations>$<hex:0+=salt>$<hex:40>$<host=domain>"),
		js("Dahua Authentication MD5", "dahua", afterTag("$dahua$"), "$dahua$<alnum:8>"),
		js("eCryptfs", "eCryptfs", ecryptfsToHashcat, "$ecryptfs$0$<hex:16>"),
		js("LastPass + LastPass sniffed", "LastPass", nil, "$lastpass$<email=user>$<dec=iterations>$<b64>"),
	}
}

// hashColonFirst turns "TAG first SEP hash" (a user, salt or message
// before the digest) into hashcat's "hash:first".
func hashColonFirst(tag string, sep byte) func(string) string {
	return func(s string) string {
		s = strings.TrimPrefix(s, tag)
		i := strings.LastIndexByte(s, sep)
		if i < 0 {
			return s
		}
		return s[i+1:] + ":" + s[:i]
	}
}

// sepToColon turns "hash SEP salt" into "hash:salt".
func sepToColon(sep byte) func(string) string {
	return func(s string) string {
		if i := strings.IndexByte(s, sep); i >= 0 {
			return s[:i] + ":" + s[i+1:]
		}
		return s
	}
}

// splitAt turns a digest of n characters run together with its salt into
// "digest:salt".
func splitAt(n int) func(string) string {
	return func(s string) string { return s[:n] + ":" + s[n:] }
}

// hexSaltLast turns "TAG hexsalt $ hash" into "hash:salt", the salt
// decoded.
func hexSaltLast(tag string) func(string) string {
	return func(s string) string {
		salt, hash, _ := strings.Cut(strings.TrimPrefix(s, tag), "$")
		if b, err := hex.DecodeString(salt); err == nil {
			salt = string(b)
		}
		return hash + ":" + salt
	}
}

// trimPadding drops the base64 padding hashcat's form leaves out.
func trimPadding(s string) string { return strings.TrimRight(s, "=") }

// wbb3ToHashcat: $wbb3$*1*salt*hash → hash:salt.
func wbb3ToHashcat(s string) string {
	f := strings.Split(s, "*")
	return f[len(f)-1] + ":" + f[len(f)-2]
}

// postgresToHashcat: John's $postgre$ is hashcat's $postgres$.
func postgresToHashcat(s string) string { return "$postgres$" + strings.TrimPrefix(s, "$postgre$") }

// chapToHashcat: $chap$id*challenge*hash → hash:challenge:id, the id as
// two hex digits.
func chapToHashcat(s string) string {
	f := strings.Split(strings.TrimPrefix(s, "$chap$"), "*")
	id, _ := strconv.Atoi(f[0])
	return f[2] + ":" + f[1] + ":" + hex.EncodeToString([]byte{byte(id)})
}

// rakpToHashcat: $rakp$salt$hash → salt:hash.
func rakpToHashcat(s string) string { return sepToColon('$')(strings.TrimPrefix(s, "$rakp$")) }

// pbkdf2ToHashcat: $pbkdf2-hmac-H$iterations$salt$dk (hex, '$' or '.'
// between) → H:iterations:salt:dk in base64.
func pbkdf2ToHashcat(h string) func(string) string {
	return func(s string) string {
		rest := s[strings.IndexByte(s[1:], '$')+2:]
		f := strings.FieldsFunc(rest, func(r rune) bool { return r == '$' || r == '.' })
		if len(f) != 3 {
			return s
		}
		salt, err1 := hex.DecodeString(f[1])
		dk, err2 := hex.DecodeString(f[2])
		if err1 != nil || err2 != nil {
			return s
		}
		return h + ":" + f[0] + ":" + base64.StdEncoding.EncodeToString(salt) + ":" + base64.StdEncoding.EncodeToString(dk)
	}
}

// netntlmToHashcat: John's $NETNTLM$ with the 16-byte ESS challenge (the
// server's, then the client's) → hashcat's ::::lm:nt:challenge, the
// client challenge padded into the LM response.
func netntlmToHashcat(s string) string {
	f := strings.Split(s, "$")
	chal, nt := f[2], f[3]
	return "::" + ":" + chal[16:] + strings.Repeat("0", 32) + ":" + nt + ":" + chal[:16]
}

// krb5paToHashcat drops the salt field John's $krb5pa$ carries.
func krb5paToHashcat(s string) string {
	f := strings.Split(s, "$")
	if len(f) < 7 {
		return s
	}
	return strings.Join(append(f[:5], f[6:]...), "$")
}

// nsec3ToHashcat: $NSEC3$iterations$salt$hash$domain → hashcat's
// base32hex-hash:.domain:salt:iterations (the domain with a leading dot,
// not a trailing one).
func nsec3ToHashcat(s string) string {
	f := strings.Split(s, "$")
	if len(f) < 6 {
		return s
	}
	b, err := hex.DecodeString(f[4])
	if err != nil {
		return s
	}
	h := strings.ToLower(base32.HexEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
	return h + ":." + strings.TrimSuffix(f[5], ".") + ":" + f[3] + ":" + f[2]
}

// ecryptfsDefaultSalt is the salt eCryptfs uses when none is given, which
// John's short form leaves out.
const ecryptfsDefaultSalt = "0011223344556677"

// ecryptfsToHashcat writes the default salt out.
func ecryptfsToHashcat(s string) string {
	return "$ecryptfs$0$1$" + ecryptfsDefaultSalt + "$" + strings.TrimPrefix(s, "$ecryptfs$0$")
}

// DragonFly BSD's SHA-2 crypts, the same strings for its 32- and 64-bit
// builds.
const (
	dragonfly3 = "$3$<c64:0-8=salt>$<c64:40-48>"
	dragonfly4 = "$4$<c64:0-8=salt>$<c64:80-90>"
)

// jr is a row for a format only John the Ripper cracks.
func jr(name, label, category string, patterns ...string) row {
	return r(noMode, name, label, category, patterns...)
}

// johnRows are John's formats hashcat lacks (or reads only from its own
// extraction tools' output), each in John's syntax. (A function, as table
// is: built on first use.)
func johnRows() []row {
	return []row{
		jr("AFS (Kerberos v4 string-to-key)", "AFS", catNet, "$K4$<hex:16>,<text=realm>"),
		jr("Eggdrop blowfish", "bfegg", catIM, "+<c64:12>"),
		jr("DIGEST-MD5 C/R", "dmd5", catNet, "$DIGEST-MD5$<user=user>$<text>"),
		jr("EPiServer SID (EPI)", "EPI", catServer, "0x<uhex:60=salt> 0x<uhex:40>"),
		jr("HTTP Digest access authentication", "hdaa", catNet, "$response$<hex:32>$<text>"),
		jr("Kerberos v4 TGT", "krb4", catNet, "$af$<host=realm>$<hex:32>", "$k4$<host=realm>$<hex:32>"),
		jr("Kerberos v5 TGT", "krb5", catNet, "$krb5$<user=user>$<host=realm>$<hex>"),
		jr("NetLM", "netlm", catNet, "$NETLM$<hex:16=challenge>$<hex:48>"),
		jr("NetLMv2", "netlmv2", catNet, "$NETLMv2$<user=user>$<hex:16=challenge>$<hex:32>$<hex:16>"),
		jr("NetHalfLM", "nethalflm", catNet, "$NETHALFLM$<hex:16=challenge>$<hex:48>"),
		jr("S/Key", "skey", catOTP, "<dec:4=sequence> <word=seed>  <hex:16>", "<name=hash> <dec:4=sequence> <word=seed>  <hex:16>"),
		jr("Sybase ASE PROP", "Sybase-PROP", catDB, "0x<hex:60>"),
		jr("ADX crypt", "adxcrypt", catEAS, "$adxcrypt$<dec>"),
		jr("andOTP backup", "andOTP", catPM, "$andotp$<dec=version>*<hexs>"),
		jr("IBM AS/400 DES", "as400-des", catOS, "$as400des$<user=user>*<uhex:16>"),
		jr("IBM AS/400 SSHA1", "as400-ssha1", catOS, "$as400ssha1$<uhex:40>$<user=user>"),
		jr("BestCrypt container", "BestCrypt", catFDE, "$BestCrypt$<dec=version>$<text>"),
		jr("BestCrypt VE 4 volume", "BestCryptVE4", catFDE, "$bcve$4$<dec>$<hex=salt>$<hex>"),
		jr("BitShares wallet", "bitshares", catWallet, "$BitShares$<dec=version>*<hexs>"),
		jr("Bitwarden (John)", "Bitwarden", catPM, "$bitwarden$<dec=version>*<dec=iterations>*<email=user>*<hexs>"),
		jr("BouncyCastle keystore (BKS)", "BKS", catKey, "$bks$<dec=version>$<text>"),
		jr("BlackBerry ES10", "Blackberry-ES10", catOS, "$bbes10$<hex:128>$<text=salt>"),
		jr("Cardano wallet", "cardano", catWallet, "$cardano$<dec=version>$<hex>"),
		jr("Clipperz SRP", "Clipperz", catPM, "$clipperz$<hex>$<b64=salt>", "$clipperz$<hex>$<b64=salt>*<text=user>"),
		jr("1Password cloudkeychain (John)", "cloudkeychain", catPM, "$cloudkeychain$<dec>$<hex=salt>$<dec=iterations>$<text>"),
		jr("Adobe AEM (CQ)", "cq", catEAS, "$cq$<user=user>$<hex:8>"),
		jr("CryptoSafe", "cryptoSafe", catPM, "$cryptosafe$<dec=version>$<b64>", "<b64:100+>"),
		jr("Dashlane", "dashlane", catPM, "$dashlane$<dec=version>*<hexs>"),
		jr("DragonFly BSD $3$ SHA-256 (32-bit)", "dragonfly3-32", catOS, dragonfly3),
		jr("DragonFly BSD $3$ SHA-256 (64-bit)", "dragonfly3-64", catOS, dragonfly3),
		jr("DragonFly BSD $4$ SHA-512 (32-bit)", "dragonfly4-32", catOS, dragonfly4),
		jr("DragonFly BSD $4$ SHA-512 (64-bit)", "dragonfly4-64", catOS, dragonfly4),
		jr("EIGRP MD5/HMAC-SHA-256", "eigrp", catNet, "$eigrp$<dec=algorithm>$<hex>$<text>"),
		jr("ENCDataVault MD5", "ENCDataVault-MD5", catPM, "$encdv$<dec=version>$<dec>$<hex>$<text>"),
		jr("ENCDataVault PBKDF2", "ENCDataVault-PBKDF2", catPM, "$encdv-pbkdf2$<dec=version>$<dec>$<hex>$<text>"),
		jr("1Password agilekeychain (John)", "agilekeychain", catPM, "$agilekeychain$<dec>*<dec=iterations>*<dec>*<hexs>"),
		jr("Enpass", "enpass", catPM, "$enpass$<dec=version>$<dec=iterations>$<hex>"),
		jr("FreeBSD GELI", "geli", catFDE, "$geli$<dec=version>$<text>"),
		jr("HMAC-SHA224", "HMAC-SHA224", catAuth, "<text:0+=message>#<hex:56>", "<text:0+=message>#<text:0+>#<hex:56>"),
		jr("HMAC-SHA384", "HMAC-SHA384", catAuth, "<text:0+=message>#<hex:96>", "<text:0+=message>#<text:0+>#<hex:96>"),
		jr("HSRP MD5 authentication", "hsrp", catNet, "$hsrp$<hex>$<hex:32>"),
		jr("IKE PSK (John)", "IKE", catNet, "$ike$*<dec=hash>*<hexs>"),
		jr("Keplr wallet", "keplr", catWallet, "$keplr$<hexs>"),
		jr("Java KeyStore (John)", "keystore", catKey, "$keystore$<dec=version>$<dec>$<text>"),
		jr("OpenSSH known_hosts", "known_hosts", catNet, "$known_hosts$|1|<b64=salt>|<b64:28>"),
		jr("Kerberos 5 AS-REP etype 17/18 (John)", "krb5asrep", catNet, "$krb5asrep$<dec=etype>$<text=salt>$<hex>$<hex>", "<hex:32>$<hex:64+>"),
		jr("Kerberos 5 db etype 18", "krb5-18", catNet, "$krb18$<text=salt>$<hex:64>", "<user=salt>$<hex:64>"),
		jr("Kerberos 5 db etype 17", "krb5-17", catNet, "$krb17$<text=salt>$<hex:32>"),
		jr("Kerberos 5 db etype 3", "krb5-3", catNet, "$krb3$<text=salt>$<hex:16>"),
		jr("Kerberos 5 TGS-REP etype 17/18 (John)", "krb5tgs-sha1", catNet, "$krb5tgs$<dec=etype>$<text=salt>$<hex:24>$<hex>"),
		jr("Kerberos 5 AS-REQ Pre-Auth etype 23 (John)", "krb5pa-md5", catNet, "$mskrb5$<user:0+=user>$<host:0+=realm>$<hex:32>$<hex>"),
		jr("LastPass CLI", "lpcli", catPM, "$lpcli$<dec=version>$<email=user>$<dec=iterations>$<hex:32>$<hex>"),
		jr("LastPass offline (John)", "lp", catPM, "$lp$<email=user>$<hex:32>"),
		jr("Leet.cc", "leet", catWeb, "<word=salt>$<hex:128>"),
		jr("Lotus Notes/Domino 8.5", "lotus85", catEAS, "<uhex:100+>"),
		jr("MDC-2", "mdc2", catRaw, "$mdc2$<hex:32>"),
		jr("Monero wallet", "monero", catWallet, "$monero$<dec=version>*<hex>"),
		jr("Microsoft Money", "money", catDoc, "$money$<dec=version>*<hex:16=salt>*<hex>"),
		jr("MongoDB challenge/response", "MongoDB", catDB, "$mongodb$0$<user=user>$<hex:32>", "$mongodb$1$<user=user>$<hex:16=salt>$<hex:32>"),
		jr("MongoDB SCRAM (John)", "scram", catDB, "$scram$<user=user>$<dec=iterations>$<b64=salt>$<b64:28>"),
		jr("Mozilla key3.db (John)", "Mozilla", catPM, "$mozilla$*<dec=version>*<dec>*<dec>*<hexs>"),
		jr("IPsec AH (HMAC-MD5/SHA1)", "net-ah", catNet, "$net-ah$<dec>$<hex>$<hex>"),
		jr("Network keyed MD5 (RIPv2, OSPF, BGP...)", "net-md5", catNet, "<hex:64+>$<hex:32>", "$netmd5$<hex>$<hex:32>"),
		jr("Network keyed SHA1 (RIPv2, VRRP...)", "net-sha1", catNet, "$netsha1$<hex>$<hex:40>"),
		jr("Nuked-Klan CMS", "nk", catWeb, "$nk$*<hex:40=salt>*#<hex>"),
		jr("Oracle 10g O5LOGON-like (o10glogon)", "o10glogon", catDB, "$o10glogon$<user=user>$<uhex>$<uhex>$<uhex>"),
		jr("Oracle O3LOGON", "o3logon", catDB, "$o3logon$<user=user>$<uhex>$<uhex>"),
		jr("OpenBSD SoftRAID", "OpenBSD-SoftRAID", catFDE, "$openbsd-softraid$<dec=iterations>$<text>"),
		jr("OpenSSL enc", "openssl-enc", catDoc, "$openssl$<dec>$<dec>$<dec>$<hex=salt>$<text>"),
		jr("OSPF keyed SHA", "ospf", catNet, "$ospf$<dec>$<hex>$<hex>"),
		jr("Padlock", "Padlock", catPM, "$padlock$<dec=version>$<dec=iterations>$<text>"),
		jr("Palshop", "Palshop", catWeb, "$palshop$<hex:51>", "<hex:51>"),
		jr("PBKDF2-HMAC-MD4", "PBKDF2-HMAC-MD4", catKDF, "$pbkdf2-hmac-md4$<dec=iterations>$<hex=salt>$<hex:32+>", "$pbkdf2-hmac-md4$<dec=iterations>.<hex=salt>.<hex:32+>"),
		jr("PKCS#12 (PFX)", "pfx", catKey, "$pfxng$<dec=version>$<text>"),
		jr("PGP Virtual Disk", "pgpdisk", catFDE, "$pgpdisk$<dec=version>*<hexs>"),
		jr("PGP Self-Decrypting Archive", "pgpsda", catArchive, "$pgpsda$<dec=version>*<hexs>"),
		jr("PGP Whole Disk Encryption", "pgpwde", catFDE, "$pgpwde$<dec=version>*<hexs>"),
		jr("Outlook PST", "PST", catDoc, "$pst$<hex:8>"),
		jr("PuTTY private key", "PuTTY", catKey, "$putty$<dec=version>*<text>"),
		jr("RACF KDFAES", "RACF-KDFAES", catOS, "$racf$*<user=user>*<uhex:17+>"),
		jr("RADIUS shared secret", "radius", catNet, "$radius$<dec>*<text>"),
		jr("restic repository", "restic", catArchive, "$restic$<name=kdf>*<dec=cost>*<dec=block_size>*<dec=parallelism>*<text>"),
		jr("RSVP HMAC", "rsvp", catNet, "$rsvp$<dec>$<hex>$<hex>"),
		jr("RVARY (RACF)", "RVARY", catOS, "$rvary$<uhex:16>"),
		jr("SAP PSE", "sappse", catKey, "$pse$<dec=version>$<dec=iterations>$<text>"),
		jr("Siemens S7", "Siemens-S7", catNet, "$siemens-s7$<dec>$<hex:40>$<hex:40>"),
		jr("Signal Android backup", "Signal", catIM, "$signal$<dec=version>$<dec=iterations>$<text>"),
		jr("Nokia SL3", "SL3", catOS, "$sl3$<dec:14-15=salt>$<hex:40>", "<dec:14-15=salt>:<hex:40>"),
		jr("NetIQ SSPR", "sspr", catServer, "$sspr$<dec=version>$<dec=iterations>$<word=salt>$<hex:40+>"),
		jr("STRIP", "STRIP", catPM, "$strip$*<hex>"),
		jr("TCP MD5 signature (BGP)", "tcp-md5", catNet, "$tcpmd5$<hex>$<hex:32>"),
		jr("Tezos wallet", "tezos", catWallet, "$tezos$<dec=version>*<dec=iterations>*<text>"),
		jr("MS SNTP (timeroast)", "timeroast", catNet, "$sntp-ms$<hex:32>$<hex:96>"),
		jr("TrueCrypt RIPEMD-160 (John)", "tc_ripemd160", catFDE, "truecrypt_RIPEMD_160$<hex>"),
		jr("TrueCrypt RIPEMD-160 boot (John)", "tc_ripemd160boot", catFDE, "truecrypt_RIPEMD_160_BOOT$<hex>"),
		jr("TrueCrypt SHA-512 (John)", "tc_sha512", catFDE, "truecrypt_SHA_512$<hex>"),
		jr("TrueCrypt Whirlpool (John)", "tc_whirlpool", catFDE, "truecrypt_WHIRLPOOL$<hex>"),
		jr("VirtualBox VDI", "vdi", catFDE, "$vdi$<name=cipher>$<name=hash>$<dec=iterations>$<dec>$<dec=keysize>$<dec>$<text>"),
		jr("OpenVMS Purdy", "OpenVMS", catOS, "$V$<c64:25-26>", "$V$<text>"),
		jr("VMware VMX (John)", "vmx", catFDE, "$vmx$<dec=version>$<dec>$<dec>$<dec=iterations>$<hex:32=salt>$<hex>"),
		jr("VTP MD5", "vtp", catNet, "$vtp$<dec=version>$<dec>$<hex>$<text>"),
		jr("WoW SRP", "WoWSRP", catIM, "$WoWSRP$<uhex>$<uhex=salt>", "$WoWSRP$<uhex>$<uhex=salt>*<text=user>"),
		jr("ZED container", "zed", catArchive, "$zed$<dec=version>$<dec>$<dec=iterations>$<hex=salt>$<hex>"),
		jr("ZipMonster", "ZipMonster", catArchive, "$zipmonster$<hex:32>"),
		jr("Panama", "Panama", catRaw, "$panama$<hex:64>"),
		jr("Whirlpool-0", "whirlpool0", catRaw, "$whirlpool$<hex:128>"),
		jr("Whirlpool-1", "whirlpool1", catRaw, "$whirlpool$<hex:128>"),
		jr("SHA-1, LinkedIn leak (first 20 bits zeroed)", "Raw-SHA1-Linkedin", catRaw, "00000<hex:35>"),
		jr("SHA-1, AxCrypt (last 32 bits zeroed)", "Raw-SHA1-AxCrypt", catRaw, "<hex:32>00000000"),
		jr("Armory wallet", "armory", catWallet, "<b64:100+>"),
	}
}
