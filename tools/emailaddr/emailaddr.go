// Package emailaddr decides which email addresses an account may have and
// the one form each is stored, found and rate-limited under, so that every
// path (registration, login, codes, the command line) and both database
// backends treat an address alike.
//
// The policy: an address is written in ASCII, as a dot-atom local part, an
// @ and a host name (letters, digits and hyphens in dot-separated labels);
// an internationalised domain is accepted in its ASCII (xn--) form. Case
// does not matter: the canonical form is the address trimmed and
// lowercased. Any other character is refused with a message naming it.
// Accepting non-ASCII safely would take Unicode normalisation (NFKC) and
// the IDNA mapping tables, which the standard library does not have:
// without them a look-alike spelling (a fullwidth "ｖ", a ligature, an
// invisible soft hyphen) would be a second account beside the address it
// imitates, with a brute-force budget of its own. Mailboxes whose local
// part needs non-ASCII are rare, and every mail system takes the ASCII form
// of a domain.
package emailaddr

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLength is the longest address in bytes: RFC 5321's 256-octet path
// less its angle brackets.
const MaxLength = 254

// maxLocalLength is RFC 5321's limit on the part before the @.
const maxLocalLength = 64

// errNotAnAddress is Canonical's answer to text that is no address at all.
var errNotAnAddress = errors.New("must be an email address like name@example.com")

// Canonical checks address against the package's policy and returns its
// canonical form: trimmed and lowercased. Two addresses are the same
// account exactly when their canonical forms are equal, and for an address
// Canonical accepts, Key returns the same form. Its error completes a
// sentence that starts with the field's name ("field \"email\" …").
func Canonical(address string) (string, error) {
	s := strings.TrimSpace(address)
	if len(s) > MaxLength {
		return "", fmt.Errorf("is longer than %d characters", MaxLength)
	}
	if !utf8.ValidString(s) {
		return "", errors.New("is not valid UTF-8 text")
	}
	for _, r := range s {
		if err := refused(r); err != nil {
			return "", err
		}
	}
	local, domain, _ := strings.Cut(s, "@")
	if len(local) > maxLocalLength || !isDotAtom(local) || !isHostName(domain) {
		return "", errNotAnAddress
	}
	return lowerASCII(s), nil
}

// Key is the form an address is counted under by the rate limiters: what
// Canonical returns for an address it accepts. It takes any text: for one
// Canonical refuses it drops the default-ignorable (invisible) characters
// and turns fullwidth forms into the ASCII they imitate before trimming and
// lowercasing, so that such a look-alike of an address draws from the same
// brute-force budget as the address itself.
func Key(address string) string {
	var b strings.Builder
	b.Grow(len(address))
	for _, r := range address {
		switch {
		case isDefaultIgnorable(r):
			continue
		case isFullwidthASCII(r):
			r -= fullwidthOffset
		}
		b.WriteRune(r)
	}
	return lowerASCII(strings.TrimSpace(b.String()))
}

// refused explains why a character may not be in an address, or returns
// nil for a printable ASCII character (which the syntax checks then place).
func refused(r rune) error {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return fmt.Errorf("contains the control character %U", r)
	case isDefaultIgnorable(r):
		return fmt.Errorf("contains %U, an invisible character that would let it pass for another address: type the address without it", r)
	case isFullwidthASCII(r):
		return fmt.Errorf("contains %U (%c), the fullwidth form of %q: type the address in ordinary characters", r, r, r-fullwidthOffset)
	case r >= utf8.RuneSelf:
		return fmt.Errorf("contains %U (%c): only addresses written in ASCII are accepted (an internationalised domain in its xn-- form)", r, r)
	}
	return nil
}

// isDotAtom reports whether local is RFC 5322's dot-atom: runs of atext
// joined by single dots. Quoted local parts are refused: nobody's ordinary
// address needs one, and they would let spaces and backslashes in.
func isDotAtom(local string) bool {
	if local == "" {
		return false
	}
	for atom := range strings.SplitSeq(local, ".") {
		if atom == "" || strings.IndexFunc(atom, func(r rune) bool { return !isAtext(r) }) >= 0 {
			return false
		}
	}
	return true
}

func isAtext(r rune) bool {
	return isLetterOrDigit(r) || strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r)
}

// isHostName reports whether domain is at least two dot-separated labels
// of letters, digits and inner hyphens, each 1 to 63 long.
func isHostName(domain string) bool {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, label := range labels {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		if strings.IndexFunc(label, func(r rune) bool { return !isLetterOrDigit(r) && r != '-' }) >= 0 {
			return false
		}
	}
	return true
}

func isLetterOrDigit(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// lowerASCII lowercases ASCII letters and leaves every other byte as it
// is, as SQLite's lower() does: the migration that keyed the accounts
// already in a database used it.
func lowerASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// The fullwidth forms U+FF01 to U+FF5E are compatibility characters for
// the printable ASCII characters U+0021 to U+007E, at a fixed offset.
const fullwidthOffset = 0xff01 - 0x21

func isFullwidthASCII(r rune) bool { return r >= 0xff01 && r <= 0xff5e }

// defaultIgnorable holds the code points with Unicode's
// Default_Ignorable_Code_Point property (DerivedCoreProperties.txt,
// Unicode 15.0, the version of Go's unicode tables), as inclusive ranges:
// characters a renderer shows as nothing, such as the soft hyphen, the
// zero-width space and joiners, the byte order mark, the bidirectional
// controls, variation selectors and tag characters.
var defaultIgnorable = [][2]rune{
	{0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c}, {0x115f, 0x1160},
	{0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x200b, 0x200f}, {0x202a, 0x202e},
	{0x2060, 0x206f}, {0x3164, 0x3164}, {0xfe00, 0xfe0f}, {0xfeff, 0xfeff},
	{0xffa0, 0xffa0}, {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
	{0xe0000, 0xe0fff},
}

func isDefaultIgnorable(r rune) bool {
	if r < 0xad {
		return false
	}
	for _, span := range defaultIgnorable {
		if r < span[0] {
			return false
		}
		if r <= span[1] {
			return true
		}
	}
	return false
}
