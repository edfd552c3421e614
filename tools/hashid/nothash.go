package hashid

import (
	"encoding/base64"
	"net/netip"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// notAHash says what s is when it is recognisably not a hash: an email
// address, a URL, a UUID, an IP address, a number, a plain word, text with
// spaces, or base64 of text. plain reports a word or text, which hashcat's
// plaintext modes take as they are. It is consulted only when no format fits
// s better than by its length.
func notAHash(s string) (what string, plain bool) {
	if isHex(s) {
		// Hex digits hold none of '@', ':', '-', '.' or a space, so a
		// word and a number are all that a digest's alphabet can spell.
		switch {
		case isWord(s):
			return "a plain word", true
		case isDigits(s):
			return "a number", false
		}
		return "", false
	}
	switch {
	case isEmail(s):
		return "an email address", false
	case strings.Contains(s, "://"):
		return "a URL", false
	case isUUID(s):
		return "a UUID", false
	case isIP(s):
		return "an IP address", false
	case isWord(s):
		return "a plain word", true
	case strings.IndexByte(s, ' ') >= 0 || strings.IndexByte(s, '\t') >= 0:
		return "text with spaces", true
	case isBase64Text(s):
		return "base64 of text", false
	case isDigits(s):
		return "a number", false
	}
	return "", false
}

// plaintextMatches are hashcat's modes that take a plaintext as the "hash".
func plaintextMatches(s string) []match {
	var ms []match
	for i, f := range formats {
		if f.category == catPlain {
			ms = append(ms, match{f: int32(i), p: -1, exact: 1, end: int32(len(s))})
		}
	}
	return ms
}

func isEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	dot := strings.LastIndexByte(domain, '.')
	if !ok || local == "" || strings.ContainsAny(local, " :$*") || dot <= 0 || len(domain)-dot <= 2 {
		return false
	}
	alnum := classes()["alnum"]
	for i := 0; i < len(domain); i++ {
		if c := domain[i]; !(c == '.' || c == '-' || alnum.in[c]) {
			return false
		}
	}
	return true
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	hex := hexClass()
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !hex.in[s[i]] {
				return false
			}
		}
	}
	return true
}

func isIP(s string) bool {
	if strings.IndexByte(s, '.') < 0 && strings.IndexByte(s, ':') < 0 {
		return false
	}
	_, err := netip.ParseAddr(s)
	return err == nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxWordLen bounds what counts as one word.
const maxWordLen = 40

// isWord reports a word as people type it: letters in one case, or
// capitalised, optionally followed by digits and one punctuation mark
// ("password", "Summer2024!"). A random string of a hash alphabet almost
// never has that shape.
func isWord(s string) bool {
	if len(s) > maxWordLen {
		return false
	}
	i := 0
	for i < len(s) && unicode.IsLetter(rune(s[i])) {
		i++
	}
	letters := s[:i]
	if len(letters) < 2 {
		return false
	}
	lower, upper := strings.ToLower(letters), strings.ToUpper(letters)
	if letters != lower && letters != upper && letters != upper[:1]+lower[1:] {
		return false
	}
	rest := s[i:]
	rest = strings.TrimRight(rest, "!?.")
	return len(s)-i-len(rest) <= 1 && isDigits(rest)
}

// base64Class holds the characters of every base64 alphabet: a string with
// another is no base64, and needs no decoding to tell.
var base64Class = sync.OnceValue(func() *charClass { return classes()["b64x"] })

// minBase64Text is the shortest base64 string read as encoded text: 9
// bytes, which random bytes spell as printable text once in 10,000 times.
const minBase64Text = 12

// isBase64Text reports base64 that decodes to printable UTF-8 text with a
// letter in it; the bytes of a digest almost never decode so. An all-hex
// string is a hex digest, whatever it decodes to.
func isBase64Text(s string) bool {
	if len(s) < minBase64Text || isHex(s) || !inClass(base64Class(), s) {
		return false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		letter, printable := false, true
		for _, r := range string(b) {
			letter = letter || unicode.IsLetter(r)
			printable = printable && (unicode.IsPrint(r) || r == '\n' || r == '\t' || r == '\r')
		}
		if letter && printable {
			return true
		}
	}
	return false
}
