package dump_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"secutil/tools/dump"
)

const (
	emptyLM    = "aad3b435b51404eeaad3b435b51404ee"
	emptyNT    = "31d6cfe0d16ae931b73c59d7e0c089c0"
	ntPassword = "8846f7eaee8fb117ad06bdd830b7586c"
	lmPassword = "e52cac67419a9a224a3b108f3fa6cb6d"
	sha512c    = "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func lm(s string) [16]byte {
	var a [16]byte
	copy(a[:], unhex(s))
	return a
}

// TestParseLine: every line format, what it holds and what it refuses.
func TestParseLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		opt  dump.Options
		want dump.Record
	}{
		{"pwdump", "Administrator:500:" + emptyLM + ":" + emptyNT + ":::",
			dump.Options{}, dump.Record{Format: dump.Pwdump, User: "Administrator", RID: 500, Algorithm: dump.NTLM,
				Hash: unhex(emptyNT), LM: lm(emptyLM), HasLM: true, Raw: emptyNT}},
		{"secretsdump with a domain and a status", `CORP.LOCAL\alice:1104:` + lmPassword + ":" + strings.ToUpper(ntPassword) + "::: (status=Enabled)",
			dump.Options{}, dump.Record{Format: dump.Pwdump, Domain: "CORP.LOCAL", User: "alice", RID: 1104, Algorithm: dump.NTLM,
				Hash: unhex(ntPassword), LM: lm(lmPassword), HasLM: true, Raw: strings.ToUpper(ntPassword), Status: "Enabled"}},
		{"secretsdump, status N/A, no space", "krbtgt:502:" + emptyLM + ":" + ntPassword + ":::(status=N/A)",
			dump.Options{}, dump.Record{Format: dump.Pwdump, User: "krbtgt", RID: 502, Algorithm: dump.NTLM,
				Hash: unhex(ntPassword), LM: lm(emptyLM), HasLM: true, Raw: ntPassword, Status: "N/A"}},
		{"a computer account", "corp\\WS01$:1105:" + emptyLM + ":" + ntPassword + "::: (status=Disabled)",
			dump.Options{}, dump.Record{Format: dump.Pwdump, Domain: "corp", User: "WS01$", RID: 1105, Algorithm: dump.NTLM,
				Hash: unhex(ntPassword), LM: lm(emptyLM), HasLM: true, Raw: ntPassword, Status: "Disabled"}},
		{"secretsdump history", "bob_history1:1106:" + emptyLM + ":" + ntPassword + ":::",
			dump.Options{}, dump.Record{Format: dump.Pwdump, User: "bob", RID: 1106, History: 2, Algorithm: dump.NTLM,
				Hash: unhex(ntPassword), LM: lm(emptyLM), HasLM: true, Raw: ntPassword}},
		{"pwdump 6, no LM", "Guest:501:NO PASSWORD*********************:" + ntPassword + ":::",
			dump.Options{}, dump.Record{Format: dump.Pwdump, User: "Guest", RID: 501, Algorithm: dump.NTLM,
				Hash: unhex(ntPassword), Raw: ntPassword}},
		{"pwdump 6, no password", "Guest:501:NO PASSWORD*********************:NO PASSWORD*********************:::",
			dump.Options{}, dump.Record{Format: dump.Pwdump, User: "Guest", RID: 501, Algorithm: dump.NTLM,
				Raw: "NO PASSWORD*********************", Empty: true}},
		{"smbpasswd", "nobody:65534:" + strings.Repeat("X", 32) + ":" + ntPassword + ":[U          ]:LCT-00000000:",
			dump.Options{}, dump.Record{Format: dump.Pwdump, User: "nobody", RID: 65534, Algorithm: dump.NTLM,
				Hash: unhex(ntPassword), Raw: ntPassword}},
		{"HashcatNT: user:nthash", "alice:" + ntPassword,
			dump.Options{}, dump.Record{Format: dump.UserHash, User: "alice", Algorithm: dump.NTLM, Hash: unhex(ntPassword), Raw: ntPassword}},
		{"user:md5 when the caller says so", "alice:5f4dcc3b5aa765d61d8327deb882cf99",
			dump.Options{Hex32: dump.MD5}, dump.Record{Format: dump.UserHash, User: "alice", Algorithm: dump.MD5,
				Hash: unhex("5f4dcc3b5aa765d61d8327deb882cf99"), Raw: "5f4dcc3b5aa765d61d8327deb882cf99"}},
		{"user:sha1", "bob@example.com:5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8",
			dump.Options{}, dump.Record{Format: dump.UserHash, User: "bob@example.com", Algorithm: dump.SHA1,
				Hash: unhex("5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"), Raw: "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8"}},
		{"user:sha256", "carol:" + strings.Repeat("5e", 32),
			dump.Options{}, dump.Record{Format: dump.UserHash, User: "carol", Algorithm: dump.SHA256, Hash: bytes.Repeat([]byte{0x5e}, 32), Raw: strings.Repeat("5e", 32)}},
		{"user:sha512", "dave:" + strings.Repeat("b1", 64),
			dump.Options{}, dump.Record{Format: dump.UserHash, User: "dave", Algorithm: dump.SHA512, Hash: bytes.Repeat([]byte{0xb1}, 64), Raw: strings.Repeat("b1", 64)}},
		{"$HEX[] user", "$HEX[6a6f73c3a93a78]:" + ntPassword,
			dump.Options{}, dump.Record{Format: dump.UserHash, User: "josé:x", Algorithm: dump.NTLM, Hash: unhex(ntPassword), Raw: ntPassword}},
		{"shadow sha512crypt", "root:" + sha512c + ":19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "root", Algorithm: dump.SHA512Crypt, Raw: sha512c}},
		{"shadow yescrypt", "ann:$y$j9T$F5Jx5fExrKuJdljLu0pzG0$S3jTm96aeH/fcT56A7Qpa2QwBXj1zhwvAmVhEJzvv8B:19876:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "ann", Algorithm: dump.Yescrypt, Raw: "$y$j9T$F5Jx5fExrKuJdljLu0pzG0$S3jTm96aeH/fcT56A7Qpa2QwBXj1zhwvAmVhEJzvv8B"}},
		{"shadow md5crypt", "old:$1$28772684$iEwNOgGugqO9.bIz5sk8k/:15000::::::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "old", Algorithm: dump.MD5Crypt, Raw: "$1$28772684$iEwNOgGugqO9.bIz5sk8k/"}},
		{"shadow descrypt", "older:rl0uE4XI1ofhI:10000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "older", Algorithm: dump.DESCrypt, Raw: "rl0uE4XI1ofhI"}},
		{"shadow bcrypt", "bsd:$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy:19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "bsd", Algorithm: dump.Bcrypt, Raw: "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"}},
		{"shadow sha256crypt", "five:$5$rounds=80000$GX7BopJZJxPc/KEK$le16UF8I2Anb.rOrn22AUPWvzUETDGefUmAV8AZkGcD:19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "five", Algorithm: dump.SHA256Crypt, Raw: "$5$rounds=80000$GX7BopJZJxPc/KEK$le16UF8I2Anb.rOrn22AUPWvzUETDGefUmAV8AZkGcD"}},
		{"shadow, an unknown scheme", "new:$9z$abc$def:19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "new", Algorithm: dump.OtherCrypt, Raw: "$9z$abc$def"}},
		{"shadow, empty", "guest::19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "guest", Empty: true}},
		{"shadow, locked *", "daemon:*:19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "daemon", Raw: "*", Locked: true}},
		{"shadow, locked !!", "svc:!!:19000::::::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "svc", Raw: "!!", Locked: true}},
		{"shadow, locked !*", "sshd:!*:19000::::::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "sshd", Raw: "!*", Locked: true}},
		{"shadow, a locked hash", "lockedout:!" + sha512c + ":19000:0:99999:7:::",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "lockedout", Algorithm: dump.SHA512Crypt, Raw: "!" + sha512c, Locked: true}},
		{"passwd with a hash", "legacy:rl0uE4XI1ofhI:1001:1001:Legacy:/home/legacy:/bin/sh",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "legacy", Algorithm: dump.DESCrypt, Raw: "rl0uE4XI1ofhI"}},
		{"user:crypt", "web:$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.",
			dump.Options{}, dump.Record{Format: dump.Shadow, User: "web", Algorithm: dump.MD5Crypt, Raw: "$apr1$71850310$gh9m4xcAn3MGxogwX/ztb."}},
		{"CRLF and spaces", "  alice:" + ntPassword + "\r",
			dump.Options{}, dump.Record{Format: dump.UserHash, User: "alice", Algorithm: dump.NTLM, Hash: unhex(ntPassword), Raw: ntPassword}},
	}
	for _, tt := range tests {
		got, err := dump.ParseLine(tt.line, tt.opt)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

// TestParseLineRefuses: a line of none of the formats is refused with a
// reason, which never repeats the line (it may hold a password).
func TestParseLineRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"just some text":                   "not a pwdump",
		ntPassword:                         "not a pwdump",
		":" + ntPassword:                   "no user name",
		"alice:8846f7eaee8fb117":           "32, 40, 64 or 128 hex digits",
		"alice:" + strings.Repeat("z", 32): "32, 40, 64 or 128 hex digits",
		"alice:99999999999:" + emptyLM + ":" + emptyNT + ":::":         "RID",
		"alice:500:" + strings.Repeat("g", 32) + ":" + emptyNT + ":::": "LM and NT columns",
		"bob:x:1000:1000:Bob:/home/bob:/bin/bash":                      "/etc/shadow",
		"bob:Secret123:19000:0:99999:7:::":                             "no crypt(3) hash",
		"bob:aes256-cts-hmac-sha1-96:" + strings.Repeat("ab", 32):      "Kerberos key",
		"bob:CLEARTEXT:Hunter2!":                                       "cleartext",
		"$HEX[zz]:" + ntPassword:                                       "$HEX",
		"a:b:c:d:e:f:g:h:i:j:k":                                        "not a pwdump",
	}
	for line, want := range tests {
		_, err := dump.ParseLine(line, dump.Options{})
		var le *dump.LineError
		if !errors.As(err, &le) || !strings.Contains(le.Reason, want) {
			t.Errorf("%.40q: %v, want a LineError saying %q", line, err, want)
			continue
		}
		if strings.Contains(err.Error(), "Hunter2") || strings.Contains(err.Error(), "Secret123") {
			t.Errorf("%.40q: the error repeats the password: %v", line, err)
		}
	}
}

func scanAll(t *testing.T, r io.Reader, opt dump.Options) (recs []dump.Record, errs []*dump.LineError) {
	t.Helper()
	sc := dump.NewScanner(r, opt)
	for sc.Scan() {
		if err := sc.LineErr(); err != nil {
			errs = append(errs, err.(*dump.LineError))
			continue
		}
		recs = append(recs, sc.Record())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs, errs
}

// TestScanner: line numbers count every line; blank lines, comments and
// secretsdump's messages are skipped; a bad line is reported and reading
// goes on; a CRLF file and a last line without an end are read.
func TestScanner(t *testing.T) {
	t.Parallel()
	in := "Impacket v0.12.0 - Copyright Fortra, LLC and its affiliated companies\r\n" +
		"\r\n" +
		"[*] Dumping Domain Credentials (domain\\uid:rid:lmhash:nthash)\r\n" +
		"Administrator:500:" + emptyLM + ":" + ntPassword + ":::\r\n" +
		"# a comment\r\n" +
		"garbage line\r\n" +
		"   \r\n" +
		"alice:" + ntPassword
	recs, errs := scanAll(t, strings.NewReader(in), dump.Options{})
	if len(recs) != 2 || recs[0].Line != 4 || recs[0].User != "Administrator" || recs[1].Line != 8 || recs[1].User != "alice" {
		t.Errorf("records %+v", recs)
	}
	if len(errs) != 1 || errs[0].Line != 6 || errs[0].Error() != "line 6: not a pwdump, user:hash or shadow line" {
		t.Errorf("line errors %+v", errs)
	}
}

// TestScannerEncodings: a UTF-8 byte-order mark is dropped and UTF-16 (as
// Windows PowerShell's > writes DSInternals' output) is converted, a
// surrogate pair and an unpaired surrogate included.
func TestScannerEncodings(t *testing.T) {
	t.Parallel()
	text := "jürgen:" + ntPassword + "\r\n𝄞user:" + ntPassword + "\r\n"
	utf16le := func(s string, big bool) []byte {
		units := utf16.Encode([]rune(s))
		out := make([]byte, 0, 2*len(units)+2)
		if big {
			out = append(out, 0xFE, 0xFF)
		} else {
			out = append(out, 0xFF, 0xFE)
		}
		for _, u := range units {
			if big {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
		return out
	}
	for name, in := range map[string][]byte{
		"utf-8 with a mark": append([]byte{0xEF, 0xBB, 0xBF}, text...),
		"utf-16le":          utf16le(text, false),
		"utf-16be":          utf16le(text, true),
	} {
		recs, errs := scanAll(t, bytes.NewReader(in), dump.Options{})
		if len(errs) != 0 || len(recs) != 2 || recs[0].User != "jürgen" || recs[1].User != "𝄞user" || recs[1].Line != 2 {
			t.Errorf("%s: records %+v, errors %+v", name, recs, errs)
		}
	}
	// An unpaired high surrogate before a letter becomes U+FFFD and the
	// letter is kept.
	in := []byte{0xFF, 0xFE, 0x3D, 0xD8, 'a', 0, ':', 0}
	in = append(in, utf16le(ntPassword, false)[2:]...)
	recs, _ := scanAll(t, bytes.NewReader(in), dump.Options{})
	if len(recs) != 1 || recs[0].User != "\uFFFDa" {
		t.Errorf("unpaired surrogate: %+v", recs)
	}
	// Half a UTF-16 character at the end is a read error.
	sc := dump.NewScanner(bytes.NewReader([]byte{0xFF, 0xFE, 'a', 0, 'b'}), dump.Options{})
	for sc.Scan() {
	}
	if sc.Err() == nil {
		t.Error("odd UTF-16: no error")
	}
}

// TestScannerLongLine: a line over MaxLineBytes is one LineError, skipped
// whole, and the next line is read; memory holds one line at most.
func TestScannerLongLine(t *testing.T) {
	t.Parallel()
	long := "alice:" + strings.Repeat("a", 3*dump.MaxLineBytes)
	atLimit := "bob:" + ntPassword + strings.Repeat(" ", dump.MaxLineBytes-4-32)
	in := long + "\n" + atLimit + "\n" + "carol:" + ntPassword + "\n" + long
	recs, errs := scanAll(t, strings.NewReader(in), dump.Options{})
	if len(recs) != 2 || recs[0].User != "bob" || recs[0].Line != 2 || recs[1].User != "carol" {
		t.Errorf("records %+v", recs)
	}
	if len(errs) != 2 || errs[0].Line != 1 || errs[1].Line != 4 || !strings.Contains(errs[0].Reason, "longer than") {
		t.Errorf("errors %+v", errs)
	}
}

// failingReader fails after its text.
type failingReader struct{ r io.Reader }

var errDisk = errors.New("disk on fire")

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errDisk
	}
	return n, err
}

func TestScannerReadError(t *testing.T) {
	t.Parallel()
	sc := dump.NewScanner(&failingReader{strings.NewReader("alice:" + ntPassword + "\nbob:" + ntPassword)}, dump.Options{})
	n := 0
	for sc.Scan() {
		n++
	}
	if n != 2 || !errors.Is(sc.Err(), errDisk) {
		t.Errorf("%d lines, error %v", n, sc.Err())
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for a, want := range map[dump.Algorithm]string{dump.NTLM: "ntlm", dump.SHA1: "sha1", dump.DESCrypt: "descrypt", dump.MD5Crypt: "md5crypt", dump.Algorithm(99): "Algorithm(99)"} {
		if a.String() != want {
			t.Errorf("%d: %q, want %q", a, a.String(), want)
		}
	}
	for f, want := range map[dump.Format]string{dump.Pwdump: "pwdump", dump.UserHash: "user:hash", dump.Shadow: "shadow", 0: "Format(0)"} {
		if b, _ := f.MarshalText(); string(b) != want {
			t.Errorf("%d: %q, want %q", f, b, want)
		}
	}
	weak := map[dump.Algorithm]bool{dump.DESCrypt: true, dump.BSDiCrypt: true, dump.MD5Crypt: true, dump.SunMD5: true}
	for _, a := range []dump.Algorithm{dump.NTLM, dump.MD5, dump.DESCrypt, dump.BSDiCrypt, dump.MD5Crypt, dump.SunMD5, dump.Bcrypt, dump.SHA512Crypt, dump.Yescrypt} {
		if a.Weak() != weak[a] {
			t.Errorf("%s: weak %v", a, a.Weak())
		}
	}
}

// line writes r back as a line of its format, the way the tools write it.
func line(r dump.Record) string {
	user := r.User
	if strings.ContainsAny(user, ":\r\n") || user != strings.TrimSpace(user) {
		user = "$HEX[" + hex.EncodeToString([]byte(user)) + "]"
	}
	switch r.Format {
	case dump.Pwdump:
		if r.History > 0 {
			user += "_history" + strconv.Itoa(r.History-1)
		}
		if r.Domain != "" {
			user = r.Domain + `\` + user
		}
		lmCol, ntCol := "NO PASSWORD*********************", "NO PASSWORD*********************"
		if r.HasLM {
			lmCol = hex.EncodeToString(r.LM[:])
		}
		if r.Hash != nil {
			ntCol = hex.EncodeToString(r.Hash)
		}
		out := user + ":" + strconv.FormatUint(uint64(r.RID), 10) + ":" + lmCol + ":" + ntCol + ":::"
		if r.Status != "" {
			out += " (status=" + r.Status + ")"
		}
		return out
	case dump.UserHash:
		return user + ":" + hex.EncodeToString(r.Hash)
	}
	return user + ":" + r.Raw + ":19000:0:99999:7:::"
}

// FuzzParseLine: no line makes ParseLine panic; a record it returns keeps
// its invariants, and written back as a line, reads back the same.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"Administrator:500:" + emptyLM + ":" + emptyNT + ":::", `CORP\alice:1104:` + lmPassword + ":" + ntPassword + "::: (status=Enabled)",
		"bob_history0:1106:" + emptyLM + ":" + ntPassword + ":::", "Guest:501:NO PASSWORD*********************:NO PASSWORD*********************:::",
		"alice:" + ntPassword, "$HEX[6a6f73c3a9]:" + ntPassword, "root:" + sha512c + ":19000:0:99999:7:::", "guest::19000:0:99999:7:::",
		"daemon:*:19000:0:99999:7:::", "lockedout:!" + sha512c + ":19000:0:99999:7:::", "legacy:rl0uE4XI1ofhI:1001:1001:Legacy:/home/legacy:/bin/sh",
		"web:$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.", "bob:CLEARTEXT:x", ":", "", "a:b:c:d:e:f:g", "$HEX[]:" + ntPassword} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rec, err := dump.ParseLine(in, dump.Options{})
		if err != nil {
			var le *dump.LineError
			if !errors.As(err, &le) || le.Reason == "" {
				t.Fatalf("%q: %v", in, err)
			}
			return
		}
		if rec.User == "" || rec.Format == 0 || rec.Line != 0 {
			t.Fatalf("%q: %+v", in, rec)
		}
		if rec.Hash != nil && len(rec.Hash) != rec.Algorithm.DigestLen() || rec.Hash == nil && rec.Algorithm.DigestLen() > 0 && !rec.Empty {
			t.Fatalf("%q: %s with %d hash bytes", in, rec.Algorithm, len(rec.Hash))
		}
		if rec.Format == dump.Shadow && rec.Algorithm == 0 && !rec.Empty && !rec.Locked {
			t.Fatalf("%q: a shadow record with no hash, neither empty nor locked", in)
		}
		back := line(rec)
		again, err := dump.ParseLine(back, dump.Options{})
		if err != nil {
			t.Fatalf("%q written back as %q: %v", in, back, err)
		}
		if rec.Format == dump.Pwdump || rec.Format == dump.UserHash {
			rec.Raw, again.Raw = "", "" // the case of hex digits is not kept
		}
		if !reflect.DeepEqual(rec, again) {
			t.Fatalf("%q written back as %q:\n %+v\n %+v", in, back, rec, again)
		}
	})
}

// BenchmarkScanner reads a secretsdump of 10,000 accounts.
func BenchmarkScanner(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		sb.WriteString(`CORP\user` + strconv.Itoa(i) + ":" + strconv.Itoa(1100+i) + ":" + emptyLM + ":" + ntPassword + "::: (status=Enabled)\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		sc := dump.NewScanner(strings.NewReader(text), dump.Options{})
		for sc.Scan() {
		}
	}
}
