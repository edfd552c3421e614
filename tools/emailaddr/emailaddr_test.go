package emailaddr_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"secutil/tools/emailaddr"
)

func TestCanonicalAcceptsOrdinaryAddresses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ address, canonical string }{
		{"victim@example.com", "victim@example.com"},
		{"  Victim@Example.COM\n", "victim@example.com"},
		{"first.last+tag@mail.example.co.uk", "first.last+tag@mail.example.co.uk"},
		{"o'brien@example.ie", "o'brien@example.ie"},
		{"x_y-z@sub-domain.example.org", "x_y-z@sub-domain.example.org"},
		{"!#$%&'*+-/=?^_`{|}~@example.com", "!#$%&'*+-/=?^_`{|}~@example.com"},
		{"jorg@xn--mnchen-3ya.de", "jorg@xn--mnchen-3ya.de"},
		{"1234@123.example", "1234@123.example"},
		{strings.Repeat("a", 64) + "@example.com", strings.Repeat("a", 64) + "@example.com"},
		{"a@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + "." + strings.Repeat("e", 57),
			"a@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + "." + strings.Repeat("e", 57)},
	} {
		got, err := emailaddr.Canonical(tc.address)
		if err != nil || got != tc.canonical {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tc.address, got, err, tc.canonical)
		}
		if key := emailaddr.Key(tc.address); key != tc.canonical {
			t.Errorf("Key(%q) = %q, want Canonical's %q", tc.address, key, tc.canonical)
		}
	}
}

func TestCanonicalRefusesLookAlikesAndNonAddresses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, address, reason string }{
		{"soft hyphen", "vic\u00adtim@example.com", "U+00AD, an invisible character"},
		{"zero-width space", "victim@example.com\u200b", "U+200B, an invisible character"},
		{"zero-width joiner", "vic\u200dtim@example.com", "U+200D, an invisible character"},
		{"zero-width non-joiner", "vic\u200ctim@example.com", "U+200C, an invisible character"},
		{"byte order mark", "\ufeffvictim@example.com", "U+FEFF, an invisible character"},
		{"variation selector", "victim\ufe0f@example.com", "U+FE0F, an invisible character"},
		{"tag character", "victim@example.com\U000E0041", "U+E0041, an invisible character"},
		{"right-to-left override", "\u202evictim@example.com", "U+202E, an invisible character"},
		{"fullwidth letter", "\uff56ictim@example.com", "U+FF56 (ｖ), the fullwidth form of 'v'"},
		{"fullwidth at sign", "victim\uff20example.com", "the fullwidth form of '@'"},
		{"ligature", "\ufb01nance@example.com", "U+FB01 (ﬁ): only addresses written in ASCII"},
		{"Cyrillic a", "vict\u0430m@example.com", "U+0430 (а): only addresses written in ASCII"},
		{"accented letter", "jos\u00e9@example.com", "U+00E9 (é)"},
		{"Unicode domain", "jorg@m\u00fcnchen.de", "an internationalised domain in its xn-- form"},
		{"combining mark", "jose\u0301@example.com", "U+0301"},
		{"no-break space inside", "vic\u00a0tim@example.com", "U+00A0"},
		{"control character", "vic\ttim@example.com", "control character U+0009"},
		{"C1 control", "vic\u0085tim@example.com", "control character U+0085"},
		{"NUL", "victim@example.com\x00", "control character U+0000"},
		{"invalid UTF-8", "vic\xfftim@example.com", "not valid UTF-8"},
		{"too long", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 190) + ".com", "longer than 254"},
		{"empty", "   ", "like name@example.com"},
		{"no at sign", "victim.example.com", "like name@example.com"},
		{"two at signs", "victim@evil@example.com", "like name@example.com"},
		{"no dot in domain", "victim@localhost", "like name@example.com"},
		{"empty local part", "@example.com", "like name@example.com"},
		{"local part too long", strings.Repeat("a", 65) + "@example.com", "like name@example.com"},
		{"leading dot", ".victim@example.com", "like name@example.com"},
		{"double dot", "vic..tim@example.com", "like name@example.com"},
		{"trailing dot in domain", "victim@example.com.", "like name@example.com"},
		{"hyphen ending a label", "victim@example-.com", "like name@example.com"},
		{"label too long", "victim@" + strings.Repeat("a", 64) + ".com", "like name@example.com"},
		{"underscore in domain", "victim@ex_ample.com", "like name@example.com"},
		{"space inside", "vic tim@example.com", "like name@example.com"},
		{"quoted local part", `"vic tim"@example.com`, "like name@example.com"},
		{"display name", "Victim <victim@example.com>", "like name@example.com"},
		{"domain literal", "victim@[127.0.0.1]", "like name@example.com"},
	} {
		got, err := emailaddr.Canonical(tc.address)
		if err == nil {
			t.Errorf("%s: Canonical(%q) = %q, want an error", tc.name, tc.address, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: Canonical(%q): %q does not say %q", tc.name, tc.address, err, tc.reason)
		}
	}
}

// The look-alikes of victim@example.com are refused, and the rate
// limiters count each of them as the address it imitates.
func TestKeyCountsLookAlikesAsTheirAddress(t *testing.T) {
	t.Parallel()
	for _, lookAlike := range []string{
		"vic\u00adtim@example.com", "victim@example.com\u200b", "\uff56ictim@example.com",
		"\uff36ICTIM\uff20EXAMPLE\uff0eCOM", " \u2060Victim@Example.com\ufeff ", "\u200b victim@example.com",
	} {
		if key := emailaddr.Key(lookAlike); key != "victim@example.com" {
			t.Errorf("Key(%q) = %q, want victim@example.com", lookAlike, key)
		}
	}
}

// The table of default-ignorable code points is the one Unicode derives
// (DerivedCoreProperties.txt): Other_Default_Ignorable_Code_Point, format
// characters (Cf) and variation selectors, less white space, the
// interlinear annotation characters, the Egyptian hieroglyph format
// controls and the prepended concatenation marks. Go's tables give each
// part; a Go release with another Unicode version that changes the result
// fails here.
func TestDefaultIgnorableTableMatchesUnicode(t *testing.T) {
	t.Parallel()
	derived := func(r rune) bool {
		if !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) && !unicode.Is(unicode.Cf, r) &&
			!unicode.Is(unicode.Variation_Selector, r) {
			return false
		}
		return !unicode.Is(unicode.White_Space, r) && (r < 0xfff9 || r > 0xfffb) && (r < 0x13430 || r > 0x1343f) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
	}
	check := func(r rune, dropped bool) {
		if derived(r) != dropped {
			t.Errorf("%U: Default_Ignorable_Code_Point is %v, the table says %v", r, derived(r), dropped)
		}
	}
	// Key drops exactly the default-ignorable characters. It maps each
	// character on its own (dropped, kept, or one ASCII character for a
	// fullwidth or capital letter), so the code points go through it 4,096
	// at a time, each between two separators that no other character
	// becomes (a call per code point made the test cost 0.3 CPU-s). Inside
	// the string white space is not trimmed, so it is checked too.
	const sep = 'é'
	check(sep, emailaddr.Key("a"+string(sep)) == "a")
	var batch []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) && r != sep {
			batch = append(batch, r)
		}
		if len(batch) < 4096 && r < unicode.MaxRune {
			continue
		}
		in := []rune{sep}
		for _, c := range batch {
			in = append(in, c, sep)
		}
		out := []rune(emailaddr.Key(string(in)))
		i := 1 // out[i] follows a separator
		for _, c := range batch {
			dropped := i < len(out) && out[i] == sep
			if !dropped {
				i++
			}
			if i >= len(out) || out[i] != sep {
				t.Fatalf("Key made more than one character of %U", c)
			}
			i++
			check(c, dropped)
		}
		batch = batch[:0]
	}
}

func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{"victim@example.com", " Victim@Example.COM ", "vic\u00adtim@example.com",
		"\uff56ictim@example.com", "a@b.c", "a@@b.c", "\u200b a@b.c", "x\xff@y.z", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, address string) {
		key := emailaddr.Key(address)
		if again := emailaddr.Key(key); again != key {
			t.Fatalf("Key is not idempotent: %q → %q → %q", address, key, again)
		}
		canonical, err := emailaddr.Canonical(address)
		if err != nil {
			if canonical != "" {
				t.Fatalf("Canonical(%q) refused it but returned %q", address, canonical)
			}
			return
		}
		if canonical != key {
			t.Fatalf("Canonical(%q) = %q but Key gives %q", address, canonical, key)
		}
		if again, err := emailaddr.Canonical(canonical); err != nil || again != canonical {
			t.Fatalf("Canonical is not idempotent: %q → %q → %q, %v", address, canonical, again, err)
		}
		if len(canonical) > emailaddr.MaxLength || strings.Count(canonical, "@") != 1 {
			t.Fatalf("Canonical(%q) = %q: too long or not one @", address, canonical)
		}
		for _, r := range canonical {
			if r <= ' ' || r >= 0x7f || ('A' <= r && r <= 'Z') {
				t.Fatalf("Canonical(%q) = %q holds %U", address, canonical, r)
			}
		}
	})
}
