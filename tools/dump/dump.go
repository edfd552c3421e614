// Package dump reads credential dumps line by line and recognises each line
// by its content:
//
//   - pwdump lines, as pwdump, samdump2 and impacket's secretsdump write
//     them: [domain\]user:rid:lmhash:nthash::: with or without
//     secretsdump's " (status=Enabled)"; its user_historyN lines are
//     marked as history;
//   - user:hash lines with an unsalted hex digest, as hashcat's --username
//     reads them and DSInternals' HashcatNT format writes them: 32 hex
//     digits are an NT hash unless Options say MD5, 40 SHA-1, 64 SHA-256,
//     128 SHA-512;
//   - /etc/shadow lines (nine fields), /etc/passwd lines (seven) and
//     user:crypt lines: the crypt(3) scheme of the password field is named,
//     and empty and locked fields (*, !, !!, !*, a ! before a hash) are
//     told apart from hashes.
//
// A line that fits none gets a LineError saying why, never the line itself
// (it may hold a password), and reading goes on. Blank lines, # comments
// and secretsdump's own messages ([*] ..., [+] ...) are skipped. The
// Scanner reads UTF-8 with or without a byte-order mark, UTF-16 with one
// (what Windows PowerShell's redirection writes), CRLF or LF line ends,
// and holds at most MaxLineBytes of a line in memory: a longer line is a
// LineError, skipped to its end.
package dump

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// Format is the kind of line a record came from.
type Format uint8

const (
	// Pwdump: [domain\]user:rid:lm:nt::: (pwdump, samdump2, secretsdump).
	Pwdump Format = iota + 1
	// UserHash: user:hexdigest.
	UserHash
	// Shadow: an /etc/shadow or /etc/passwd line, or user:crypt.
	Shadow
)

var formatNames = [...]string{Pwdump: "pwdump", UserHash: "user:hash", Shadow: "shadow"}

func (f Format) String() string {
	if int(f) < len(formatNames) && formatNames[f] != "" {
		return formatNames[f]
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// MarshalText writes the format's name, as JSON shows it.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Algorithm is the hash algorithm or crypt(3) scheme of a record.
type Algorithm uint8

// Hex digests, Hash holding their bytes.
const (
	NTLM Algorithm = iota + 1 // MD4 of the UTF-16LE password
	MD5
	SHA1
	SHA256
	SHA512
)

// crypt(3) schemes of shadow password fields, Hash nil.
const (
	DESCrypt     Algorithm = iota + 16 // 13 characters, 8-character passwords
	BSDiCrypt                          // _ and 19 characters, extended DES
	MD5Crypt                           // $1$ (and Apache's $apr1$)
	SunMD5                             // $md5$
	Bcrypt                             // $2$, $2a$, $2b$, $2x$, $2y$
	SHA256Crypt                        // $5$
	SHA512Crypt                        // $6$
	Yescrypt                           // $y$
	GostYescrypt                       // $gy$
	Scrypt                             // $7$
	SHA1Crypt                          // $sha1$ (NetBSD)
	OtherCrypt                         // another $id$ scheme
)

var algorithmNames = map[Algorithm]string{
	NTLM: "ntlm", MD5: "md5", SHA1: "sha1", SHA256: "sha256", SHA512: "sha512",
	DESCrypt: "descrypt", BSDiCrypt: "bsdicrypt", MD5Crypt: "md5crypt", SunMD5: "sunmd5", Bcrypt: "bcrypt",
	SHA256Crypt: "sha256crypt", SHA512Crypt: "sha512crypt", Yescrypt: "yescrypt", GostYescrypt: "gost-yescrypt",
	Scrypt: "scrypt", SHA1Crypt: "sha1crypt", OtherCrypt: "crypt",
}

func (a Algorithm) String() string {
	if name, ok := algorithmNames[a]; ok {
		return name
	}
	return "Algorithm(" + strconv.Itoa(int(a)) + ")"
}

// MarshalText writes the algorithm's name, as JSON shows it.
func (a Algorithm) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// DigestLen is the length in bytes of a hex algorithm's digest, 0 for a
// crypt scheme.
func (a Algorithm) DigestLen() int {
	switch a {
	case NTLM, MD5:
		return 16
	case SHA1:
		return 20
	case SHA256:
		return 32
	case SHA512:
		return 64
	}
	return 0
}

// Weak reports the crypt schemes a GPU cracks at billions of guesses a
// second or that cut the password short: the DES-based ones (descrypt
// reads 8 characters) and the MD5-based ones.
func (a Algorithm) Weak() bool {
	switch a {
	case DESCrypt, BSDiCrypt, MD5Crypt, SunMD5:
		return true
	}
	return false
}

// Record is one credential line, parsed.
type Record struct {
	// Line is the line's number in its input, from 1 (blank and comment
	// lines counted); 0 from ParseLine.
	Line   int
	Format Format
	// Domain is a pwdump line's domain (CORP in CORP\alice), User the
	// account name, decoded when written $HEX[...].
	Domain, User string
	// RID is a pwdump line's relative identifier.
	RID uint32
	// History is N+1 for secretsdump's user_historyN lines (an earlier
	// password of User), 0 for the current one.
	History int
	// Algorithm is the hash's: NTLM for a pwdump line, by length for a
	// user:hash line, the crypt scheme of a shadow line; 0 when a shadow
	// field holds no hash (empty, or a lock mark alone).
	Algorithm Algorithm
	// Hash is a hex algorithm's digest (Algorithm.DigestLen bytes); nil
	// for crypt schemes and for a pwdump line whose NT column says NO
	// PASSWORD.
	Hash []byte
	// LM is a pwdump line's LM hash, HasLM false when its column holds
	// none (NO PASSWORD*..., asterisks or X's).
	LM    [16]byte
	HasLM bool
	// Raw is the hash as written: the NT column, the digest after user:,
	// the shadow password field (lock marks included).
	Raw string
	// Status is secretsdump's account status (Enabled, Disabled, N/A),
	// empty when the line has none.
	Status string
	// Empty: the line says the account has no password at all (an empty
	// shadow field, lets anyone log in; NO PASSWORD in the NT column).
	Empty bool
	// Locked: a shadow field marked so that no password logs in (*, !,
	// !!, !*, *LK*, or ! before a hash, which Algorithm then names).
	Locked bool
}

// Options change how lines are read.
type Options struct {
	// Hex32 is the algorithm of a 32-hex-digit digest on a user:hash line:
	// NTLM when zero (DSInternals' HashcatNT output, the NT hashes of an
	// Active Directory), or MD5. Nothing in such a line tells them apart:
	// the caller who knows the dump is of MD5s says so.
	Hex32 Algorithm
}

func (o Options) hex32() Algorithm {
	if o.Hex32 == MD5 {
		return MD5
	}
	return NTLM
}

// LineError says why a line is no credential line this package reads. It
// never holds the line's text, which may be a password.
type LineError struct {
	Line   int
	Reason string
}

func (e *LineError) Error() string {
	if e.Line == 0 {
		return e.Reason
	}
	return "line " + strconv.Itoa(e.Line) + ": " + e.Reason
}

// Reasons a line is refused.
const (
	reasonUnknown    = "not a pwdump, user:hash or shadow line"
	reasonNoUser     = "no user name before the hash"
	reasonBadHex     = "a user:hash line needs 32, 40, 64 or 128 hex digits after the user"
	reasonBadRID     = "a pwdump line's RID must be a decimal number below 2^32"
	reasonBadColumn  = "a pwdump line's LM and NT columns must be 32 hex digits or NO PASSWORD"
	reasonShadowPass = "the password is in /etc/shadow (an x in /etc/passwd)"
	reasonCrypt      = "a shadow line's password field is no crypt(3) hash, empty or locked field"
	reasonKerberos   = "a Kerberos key (secretsdump), not a password hash"
	reasonCleartext  = "a cleartext password (secretsdump's CLEARTEXT line): not read"
	reasonHexUser    = "a $HEX[...] user name that is not hex"
)

// ParseLine reads one line (without its line end): a pwdump, user:hash or
// shadow line. Surrounding white space is ignored.
func ParseLine(line string, opt Options) (Record, error) {
	rec, reason := parse(strings.TrimSpace(line), opt)
	if reason != "" {
		return Record{}, &LineError{Reason: reason}
	}
	return rec, nil
}

// parse is ParseLine on a trimmed line, returning why it is refused.
func parse(line string, opt Options) (rec Record, reason string) {
	var room [maxFields]string
	fields := splitColons(line, room[:0])
	switch {
	case len(fields) == 7 && isPwdump(fields):
		rec, reason = parsePwdump(fields)
	case len(fields) == 9 || len(fields) == 7 || len(fields) == 2 && isCryptField(fields[1]):
		rec, reason = parseShadow(fields)
	case len(fields) == 2:
		rec, reason = parseUserHash(fields, opt)
	case len(fields) == 3 && kerberosKeyTypes[fields[1]]:
		reason = reasonKerberos
	case len(fields) == 3 && fields[1] == "CLEARTEXT":
		reason = reasonCleartext
	default:
		reason = reasonUnknown
	}
	return rec, reason
}

// maxFields bounds the colon-separated fields a line is split into; none
// of the formats has more than nine.
const maxFields = 10

// splitColons appends to dst the fields of s between colons, at most
// maxFields, the last holding the rest.
func splitColons(s string, dst []string) []string {
	for len(dst) < maxFields-1 {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			break
		}
		dst, s = append(dst, s[:i]), s[i+1:]
	}
	return append(dst, s)
}

// kerberosKeyTypes are the key types secretsdump writes as user:type:key
// (impacket spells DES-CBC-CRC dec-cbc-crc).
var kerberosKeyTypes = map[string]bool{
	"aes256-cts-hmac-sha1-96": true, "aes128-cts-hmac-sha1-96": true, "des-cbc-md5": true,
	"des-cbc-crc": true, "rc4_hmac": true, "dec-cbc-crc": true,
}

// isPwdump tells a pwdump line by its columns: a decimal RID, LM and NT
// columns of 32 characters, and secretsdump's status or nothing after the
// sixth colon (pwdump 2 and smbpasswd put a comment and a home directory
// or flags and a date in the two fields before it).
func isPwdump(f []string) bool {
	return f[1] != "" && isDigits(f[1]) && len(f[2]) == 32 && len(f[3]) == 32 && (f[6] == "" || statusOf(f[6]) != "")
}

// statusOf reads secretsdump's " (status=X)", "" if tail is not one.
func statusOf(tail string) string {
	s, ok := strings.CutPrefix(strings.TrimSpace(tail), "(status=")
	if !ok {
		return ""
	}
	s, ok = strings.CutSuffix(s, ")")
	if !ok || s == "" || strings.IndexByte(s, '(') >= 0 || strings.IndexByte(s, ')') >= 0 || strings.IndexByte(s, ' ') >= 0 {
		return ""
	}
	return s
}

// noHashColumn reports a pwdump column that says it holds no hash: pwdump
// 6 and fgdump write NO PASSWORD and asterisks, smbpasswd 32 X's.
func noHashColumn(c string) bool {
	c = strings.TrimPrefix(c, "NO PASSWORD")
	return strings.Trim(c, "*") == "" || strings.Trim(c, "X") == ""
}

const historyMark = "_history"

func parsePwdump(f []string) (Record, string) {
	rid, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return Record{}, reasonBadRID
	}
	rec := Record{Format: Pwdump, RID: uint32(rid), Algorithm: NTLM, Raw: f[3], Status: statusOf(f[6])}
	name := f[0]
	if i := strings.IndexByte(name, '\\'); i >= 0 {
		rec.Domain, name = name[:i], name[i+1:]
	}
	if i := strings.LastIndex(name, historyMark); i > 0 {
		if n := name[i+len(historyMark):]; n != "" && len(n) <= 4 && isDigits(n) {
			k, _ := strconv.Atoi(n)
			rec.History, name = k+1, name[:i]
		}
	}
	if name == "" {
		return Record{}, reasonNoUser
	}
	rec.User = name
	switch {
	case noHashColumn(f[2]):
	case decodeHex(rec.LM[:], f[2]):
		rec.HasLM = true
	default:
		return Record{}, reasonBadColumn
	}
	switch {
	case noHashColumn(f[3]):
		rec.Empty = true
	default:
		var nt [16]byte
		if !decodeHex(nt[:], f[3]) {
			return Record{}, reasonBadColumn
		}
		rec.Hash = nt[:]
	}
	return rec, ""
}

// decodeHex decodes len(dst)*2 hex digits of s into dst.
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}

func parseUserHash(f []string, opt Options) (Record, string) {
	user, reason := userName(f[0])
	if reason != "" {
		return Record{}, reason
	}
	var alg Algorithm
	switch len(f[1]) {
	case 32:
		alg = opt.hex32()
	case 40:
		alg = SHA1
	case 64:
		alg = SHA256
	case 128:
		alg = SHA512
	default:
		return Record{}, reasonBadHex
	}
	digest := make([]byte, alg.DigestLen())
	if !decodeHex(digest, f[1]) {
		return Record{}, reasonBadHex
	}
	return Record{Format: UserHash, User: user, Algorithm: alg, Hash: digest, Raw: f[1]}, ""
}

// userName reads a user field, decoding hashcat's $HEX[...] form.
func userName(s string) (string, string) {
	if s == "" {
		return "", reasonNoUser
	}
	h, ok := strings.CutPrefix(s, "$HEX[")
	if !ok {
		return s, ""
	}
	h, ok = strings.CutSuffix(h, "]")
	b, err := hex.DecodeString(h)
	if !ok || err != nil || len(b) == 0 {
		return "", reasonHexUser
	}
	return string(b), ""
}

// parseShadow reads user:password followed by /etc/shadow's seven fields
// (dates and limits, digits or empty, and a reserved one), /etc/passwd's
// five (uid, gid, comment, home, shell) or nothing.
func parseShadow(f []string) (Record, string) {
	switch len(f) {
	case 9:
		for _, n := range f[2:8] {
			if !isDigits(n) {
				return Record{}, reasonUnknown
			}
		}
	case 7:
		if f[2] == "" || f[3] == "" || !isDigits(f[2]) || !isDigits(f[3]) {
			return Record{}, reasonUnknown
		}
		if f[1] == "x" {
			return Record{}, reasonShadowPass
		}
	}
	user, reason := userName(f[0])
	if reason != "" {
		return Record{}, reason
	}
	rec := Record{Format: Shadow, User: user, Raw: f[1]}
	pass := f[1]
	switch {
	case pass == "":
		if len(f) == 2 {
			return Record{}, reasonCrypt
		}
		rec.Empty = true
		return rec, ""
	case pass[0] == '!' || pass[0] == '*':
		rec.Locked = true
		pass = strings.TrimLeft(pass, "!")
	}
	alg := cryptScheme(pass)
	if alg == 0 && !rec.Locked {
		return Record{}, reasonCrypt
	}
	rec.Algorithm = alg
	return rec, ""
}

// isCryptField reports a field a user:crypt line may hold: a crypt(3)
// hash, possibly locked, or a lock mark alone.
func isCryptField(s string) bool {
	return s != "" && (s[0] == '!' || s[0] == '*' || cryptScheme(s) != 0)
}

// cryptSchemes maps the $id$ of modular crypt strings to their scheme.
var cryptSchemes = map[string]Algorithm{
	"1": MD5Crypt, "apr1": MD5Crypt, "md5": SunMD5, "2": Bcrypt, "2a": Bcrypt, "2b": Bcrypt, "2x": Bcrypt, "2y": Bcrypt,
	"5": SHA256Crypt, "6": SHA512Crypt, "y": Yescrypt, "gy": GostYescrypt, "7": Scrypt, "sha1": SHA1Crypt,
}

// cryptScheme names the crypt(3) scheme of s, 0 if s is none.
func cryptScheme(s string) Algorithm {
	switch {
	case len(s) == 13 && isCrypt64(s):
		return DESCrypt
	case len(s) == 20 && s[0] == '_' && isCrypt64(s[1:]):
		return BSDiCrypt
	case len(s) < 4 || s[0] != '$':
		return 0
	}
	id, rest, ok := strings.Cut(s[1:], "$")
	if !ok || rest == "" {
		return 0
	}
	// Sun's MD5 crypt writes $md5,rounds=N$ and $md5$.
	id, _, _ = strings.Cut(id, ",")
	if alg, ok := cryptSchemes[id]; ok {
		return alg
	}
	if id != "" && isCryptID(id) {
		return OtherCrypt
	}
	return 0
}

// isCrypt64 reports characters of crypt(3)'s base64 alphabet only.
func isCrypt64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '.' || c == '/' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// isCryptID reports a plausible scheme identifier: a few letters, digits
// or dashes.
func isCryptID(s string) bool {
	if len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
