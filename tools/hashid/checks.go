package hashid

import (
	"crypto/sha256"
	"strings"
)

// Checks refine a pattern match (format.check): they return -1 to reject a
// string the pattern let through, or a bonus to its exactness when a detail
// only one variant has is present. Bonuses, not requirements, wherever a
// freshly drawn value of the right alphabet could lack the detail.

// netscreenMarkers: a ScreenOS hash carries the letters n, r, c, s, t, n at
// fixed offsets of its 30 characters.
func netscreenMarkers(s string) int {
	for i, b := range map[int]byte{0: 'n', 6: 'r', 12: 'c', 17: 's', 23: 't', 29: 'n'} {
		if s[i] != b {
			return 0
		}
	}
	return 4
}

// leadingByte rewards a string starting with b (Citrix NetScaler's
// algorithm digit).
func leadingByte(b byte) func(string) int {
	return func(s string) int {
		if s[0] == b {
			return 1
		}
		return 0
	}
}

// caseBonus rewards hex written in upper case (Oracle T:) or lower case
// (Samsung DEK), the case each tool writes.
func caseBonus(upper bool) func(string) int {
	return func(s string) int {
		lower, up := strings.ContainsAny(s, "abcdef"), strings.ContainsAny(s, "ABCDEF")
		if upper && up && !lower || !upper && lower && !up {
			return 1
		}
		return 0
	}
}

// zeroTail rewards a SAP hash whose last n hex digits are zero, the way
// RFC_READ_TABLE truncates it.
func zeroTail(n int) func(string) int {
	return func(s string) int {
		if strings.HasSuffix(s, strings.Repeat("0", n)) {
			return 3
		}
		return 0
	}
}

// ciscoType7 rewards what Cisco's reversible type 7 writes: a decimal
// offset 00-15, then upper-case hex pairs, at a length no common hex
// digest has (24 is only PKZIP's rare master key).
func ciscoType7(s string) int {
	if isDigestLength(len(s)) || len(s)%2 != 0 || s[:2] > "15" ||
		strings.ContainsAny(s, "abcdef") || !strings.ContainsAny(s, "ABCDEF") {
		return 0
	}
	return 3
}

// isDigestLength tells the lengths of common hex digests.
func isDigestLength(n int) bool {
	switch n {
	case 8, 16, 32, 40, 48, 56, 64, 96, 128:
		return true
	}
	return false
}

// notAllHex rejects an all-hex string a base64 field would also take.
func notAllHex(s string) int {
	if isHex(s) {
		return -1
	}
	return 0
}

// rarCompressed rejects a RAR3-p record whose method is 0x30 (stored).
func rarCompressed(s string) int {
	if strings.HasSuffix(s, "*30") {
		return -1
	}
	return 0
}

// PKZIP variants, told apart by the file records of $pkzip2$.
const (
	pkSingleDeflate = iota
	pkSingleStored
	pkMultiDeflate
	pkMultiMixed
	pkMultiAny // checksum-only records, any compression
)

// pkzipKind checks a $pkzip2$ string against one variant: +2 when its
// records are that variant's, 0 when they could be, -1 when the file count
// rules it out.
func pkzipKind(kind int) func(string) int {
	return func(s string) int {
		files, deflate, stored, checksumOnly, ok := pkzipRecords(s)
		if !ok {
			return -1
		}
		single := kind == pkSingleDeflate || kind == pkSingleStored
		if single != (files == 1) {
			return -1
		}
		var fits bool
		switch kind {
		case pkSingleDeflate:
			fits = deflate > 0
		case pkSingleStored:
			fits = stored > 0
		case pkMultiDeflate:
			fits = stored == 0
		case pkMultiMixed:
			fits = stored > 0 && deflate > 0
		case pkMultiAny:
			fits = checksumOnly == files
		}
		if fits {
			return 2
		}
		return 0
	}
}

// pkzipRecords reads $pkzip2$C*B*records*$/pkzip2$, where a record is
// 1*MT*CT*DL*CS*TC*DA (checksum only) or 2*MT*CL*UL*CR*OF*OX*CT*DL*CS*TC*DA
// (3 is 2 with the data in a file). CT is 0 for stored, 8 for deflate.
func pkzipRecords(s string) (files, deflate, stored, checksumOnly int, ok bool) {
	inner := strings.TrimSuffix(strings.TrimPrefix(s, "$pkzip2$"), "*$/pkzip2$")
	f := strings.Split(inner, "*")
	if len(f) < 3 {
		return 0, 0, 0, 0, false
	}
	want := parseSmallInt(f[0])
	i := 2
	for i < len(f) {
		var ct string
		switch f[i] {
		case "1":
			if i+7 > len(f) {
				return 0, 0, 0, 0, false
			}
			ct, i = f[i+2], i+7
			checksumOnly++
		case "2", "3":
			if i+12 > len(f) {
				return 0, 0, 0, 0, false
			}
			ct, i = f[i+7], i+12
		default:
			return 0, 0, 0, 0, false
		}
		files++
		switch ct {
		case "0":
			stored++
		case "8":
			deflate++
		}
	}
	return files, deflate, stored, checksumOnly, files > 0 && files == want
}

func parseSmallInt(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 6; i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Address rejects an all-hex string (a hex digest that happens to
// start with 1 or 3) and rewards a Base58Check checksum that verifies.
func base58Address(s string) int {
	if base58CheckValid(s) {
		return 4
	}
	return notAllHex(s)
}

// base58CheckValid reports whether s decodes to a payload followed by the
// first four bytes of its double SHA-256.
func base58CheckValid(s string) bool {
	// The big-endian value of s, built digit by digit at the end of buf:
	// an address is at most 35 digits, 26 bytes.
	var buf [64]byte
	if len(s) > len(buf) {
		return false
	}
	start := len(buf) // b is buf[start:]
	for i := 0; i < len(s); i++ {
		carry := strings.IndexByte(base58Alphabet, s[i])
		if carry < 0 {
			return false
		}
		for j := len(buf) - 1; j >= start; j-- {
			carry += int(buf[j]) * 58
			buf[j] = byte(carry)
			carry >>= 8
		}
		for ; carry > 0; carry >>= 8 {
			start--
			buf[start] = byte(carry)
		}
	}
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		start-- // a leading '1' is a leading zero byte
		buf[start] = 0
	}
	b := buf[start:]
	if len(b) < 5 {
		return false
	}
	payload, sum := b[:len(b)-4], b[len(b)-4:]
	first := sha256.Sum256(payload)
	second := sha256.Sum256(first[:])
	return string(second[:4]) == string(sum)
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32Address rewards a bc1 address whose BIP-173 checksum verifies.
func bech32Address(s string) int {
	hrp, data := "bc", s[3:]
	values := make([]byte, 0, len(hrp)*2+1+len(data))
	for i := 0; i < len(hrp); i++ {
		values = append(values, hrp[i]>>5)
	}
	values = append(values, 0)
	for i := 0; i < len(hrp); i++ {
		values = append(values, hrp[i]&31)
	}
	for i := 0; i < len(data); i++ {
		values = append(values, byte(strings.IndexByte(bech32Charset, data[i])))
	}
	if bech32Polymod(values) == 1 {
		return 4
	}
	return 0
}

func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := 0; i < 5; i++ {
			if top>>i&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

// The hashes of the empty password: LM's (two DES halves of an empty
// block, what Windows stores when it keeps no LM hash) and NT's.
const (
	emptyLM     = "aad3b435b51404eeaad3b435b51404ee"
	emptyLMHalf = "aad3b435b51404ee"
)

// isEmptyLM reports whether h is the empty LM in either case. Dumps write
// it in lower case, which one comparison of bytes tells.
func isEmptyLM(h string) bool {
	return h == emptyLM || strings.EqualFold(h, emptyLM)
}

// emptyLMBonus lifts an LM:NT pair whose LM half is the empty LM: every
// dump of a Windows account since Vista writes the pair so.
const emptyLMBonus = 4

// lmField returns the LM hash of an LM:NT pair or a pwdump line (the
// forms that have a colon), and whether s is one of those.
func lmField(s string) (string, bool) {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return "", false
	}
	if colon == 32 && len(s) == 65 {
		return s[:32], true
	}
	// user:rid:lm:nt:::, the user ending at the first colon.
	rest := s[colon+1:]
	_, rest, _ = strings.Cut(rest, ":")
	lm, _, _ := strings.Cut(rest, ":")
	return lm, true
}

// hasHexLetter reports a letter among hex digits: 16 random bytes are
// written with decimal digits only once in three million times, so a
// field without one is a number or a known plaintext, not a digest.
func hasHexLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'f' {
			return true
		}
	}
	return false
}

// ntlmCheck vets an LM:NT pair: both halves are digests, and an empty LM
// half is the mark of a Windows dump.
func ntlmCheck(s string) int {
	lm, ok := lmField(s)
	if !ok || len(s) != 65 {
		return 0 // a bare NT hash or a pwdump line
	}
	if !hasHexLetter(lm) || !hasHexLetter(s[33:]) {
		return -1
	}
	if isEmptyLM(lm) {
		return emptyLMBonus
	}
	return 0
}

// lmCheck rejects the empty LM of a pair or pwdump line (there is nothing
// to crack in it) and a half that is no digest; the empty LM standing
// alone is certainly LM's.
func lmCheck(s string) int {
	lm, ok := lmField(s)
	switch {
	case !ok:
		if isEmptyLM(s) || strings.EqualFold(s, emptyLMHalf) {
			return emptyLMBonus
		}
		return 0
	case isEmptyLM(lm) || !hasHexLetter(lm):
		return -1
	case len(s) == 65 && !hasHexLetter(s[33:]):
		return -1
	}
	return 0
}

// ntHalf and lmHalf are how hashcat takes an LM:NT pair: the NT half for
// -m 1000, the LM half for -m 3000.
func ntHalf(s string) string { return s[33:] }
func lmHalf(s string) string { return s[:32] }
