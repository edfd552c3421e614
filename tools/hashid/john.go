package hashid

import (
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
}

// plain reports a form that changes nothing of the row's answer.
func (f johnForm) plain() bool { return f.hashcat == nil && f.implied == nil && f.label == "" }

// johnSyntax attaches written forms in John's syntax to a row of the table.
type johnSyntax struct {
	row      string // the row's name
	form     johnForm
	patterns []string
}

// withJohn returns the table with John's forms attached to their rows and
// the rows of John's formats hashcat lacks appended.
func withJohn(base []row) []row {
	rows := append(append([]row(nil), base...), johnRows...)
	rows = append(rows, dynamicRows()...)
	at := map[string]int{}
	for i, r := range rows {
		at[r.name] = i
	}
	for _, js := range append(johnSyntaxes, dynamicSyntaxes()...) {
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

// hashThenUser turns "TAG user SEP hash" into hashcat's "hash:user".
func hashThenUser(tag string, sep byte) func(string) string {
	return func(s string) string {
		s = strings.TrimPrefix(s, tag)
		i := strings.LastIndexByte(s, sep)
		if i < 0 {
			return s
		}
		return s[i+1:] + ":" + s[:i]
	}
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
		if b, err := hex.DecodeString(h); err == nil {
			salt = string(b)
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
	{38, "sha1($s.sha1($s.sha1($p)))", "hex:40", "WBB3 (Woltlab Burning Board)"},
	{39, "md5($s.pad16($p))", "hex:32", ""},
	{40, "sha1($s.pad20($p))", "hex:40", ""},
	{41, "sha1($s.utf16($p))", "hex:40", "sha1($salt.utf16le($pass))"},
}

// dynamicTemplates are the nine expressions John builds for each larger
// hash (dynamic_N0 to dynamic_N8), H standing for the hash.
var dynamicTemplates = [9]string{"H($p)", "H($s.$p)", "H($p.$s)", "H(H($p))", "H(H_raw($p))", "H(H($p).$s)",
	"H($s.H($p))", "H(H($s).H($p))", "H(H($p).H($p))"}

// dynamicFamilies are the larger hashes, each with the table rows that
// compute the same as its templates (by template index).
var dynamicFamilies = []struct {
	base   int
	hash   string
	digest int // hex digits
	rows   map[int]string
}{
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

// dynamicFormats lists every preloaded dynamic_N.
func dynamicFormats() []dynamicFormat {
	out := append([]dynamicFormat(nil), dynamicPlain...)
	for _, fam := range dynamicFamilies {
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

// johnSyntaxes are John's forms of formats the table already has.
var johnSyntaxes = []johnSyntax{}

// johnRows are John's formats hashcat lacks.
var johnRows = []row{}
