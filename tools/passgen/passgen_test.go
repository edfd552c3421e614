package passgen_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	mathrand "math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"secutil/tools/passgen"
)

// seeded is a deterministic random source for the tests.
func seeded(seed byte) passgen.Generator {
	return passgen.Generator{Random: mathrand.NewChaCha8([32]byte{seed})}
}

func TestPasswordHonoursOptions(t *testing.T) {
	t.Parallel()
	g := seeded(1)
	for classes := 1; classes < 16; classes++ {
		for _, noLookAlikes := range []bool{false, true} {
			o := passgen.PasswordOptions{Length: 4 + classes, Lower: classes&1 != 0, Upper: classes&2 != 0,
				Digits: classes&4 != 0, Symbols: classes&8 != 0, NoLookAlikes: noLookAlikes}
			var sets []string
			for i, chars := range []string{passgen.LowerChars, passgen.UpperChars, passgen.DigitChars, passgen.SymbolChars} {
				if classes&(1<<i) != 0 {
					sets = append(sets, chars)
				}
			}
			for range 200 {
				res, err := g.Password(o)
				if err != nil {
					t.Fatal(err)
				}
				p := res.Value
				if len(p) != o.Length || strings.Trim(p, strings.Join(sets, "")) != "" {
					t.Fatalf("%+v: %q has another length or a character of no chosen class", o, p)
				}
				for _, set := range sets {
					if !strings.ContainsAny(p, set) {
						t.Fatalf("%+v: %q has no character of %q", o, p, set)
					}
				}
				if noLookAlikes && strings.ContainsAny(p, passgen.LookAlikes) {
					t.Fatalf("%+v: %q has a look-alike", o, p)
				}
			}
		}
	}
}

// TestPasswordEntropyCountsExactly: the entropy is log2 of the number of
// strings with a character of each class, counted here by enumerating all
// 32^4 strings of 8 digits and 24 capitals (no look-alikes) of length 4.
func TestPasswordEntropyCountsExactly(t *testing.T) {
	t.Parallel()
	o := passgen.PasswordOptions{Length: 4, Upper: true, Digits: true, NoLookAlikes: true}
	alphabet := "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	count := 0
	for n := range 32 * 32 * 32 * 32 {
		digit, upper := false, false
		for i := 0; i < 4; i++ {
			c := alphabet[n%32]
			n /= 32
			digit, upper = digit || c <= '9', upper || c >= 'A'
		}
		if digit && upper {
			count++
		}
	}
	got, err := passgen.PasswordEntropy(o)
	if err != nil || math.Abs(got-math.Log2(float64(count))) > 1e-9 {
		t.Fatalf("entropy %v, %v; enumeration gives log2(%d) = %v", got, err, count, math.Log2(float64(count)))
	}
	for _, tc := range []struct {
		o    passgen.PasswordOptions
		want float64
	}{
		// One class: every string of the alphabet.
		{passgen.PasswordOptions{Length: 20, Lower: true}, 20 * math.Log2(26)},
		{passgen.PasswordOptions{Length: 16, Digits: true, NoLookAlikes: true}, 16 * 3},
		// Four classes of 94 characters, 1024 long: all but a vanishing
		// share of the 94^1024 strings have each class.
		{passgen.PasswordOptions{Length: 1024, Lower: true, Upper: true, Digits: true, Symbols: true}, 1024 * math.Log2(94)},
	} {
		if got, _ := passgen.PasswordEntropy(tc.o); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v: %v bits, want %v", tc.o, got, tc.want)
		}
	}
	res, _ := seeded(2).Password(passgen.DefaultPasswordOptions())
	if want, _ := passgen.PasswordEntropy(passgen.DefaultPasswordOptions()); res.EntropyBits != want || want < 130 || want > 20*math.Log2(94) {
		t.Fatalf("default password: %v bits, PasswordEntropy %v", res.EntropyBits, want)
	}
}

func TestPassphrase(t *testing.T) {
	t.Parallel()
	inList := map[string]bool{}
	for line := range strings.Lines(wordListFile(t)) {
		inList[strings.Fields(line)[1]] = true
	}
	word := log2(7776)
	for _, tc := range []struct {
		o       passgen.PassphraseOptions
		pattern string
		bits    float64
	}{
		{passgen.DefaultPassphraseOptions(), `^[a-z-]+(-[a-z-]+){5}$`, 6 * word},
		{passgen.PassphraseOptions{Words: 3, Separator: " ", Case: passgen.CaseTitle}, `^[A-Z][a-z-]+( [A-Z][a-z-]+){2}$`, 3 * word},
		{passgen.PassphraseOptions{Words: 4, Separator: "", Case: "UPPER"}, `^[A-Z-]+$`, 4 * word},
		{passgen.PassphraseOptions{Words: 5, Separator: ".", Case: passgen.CaseRandom}, `^[a-zA-Z-]+(\.[a-zA-Z-]+){4}$`, 5*word + 5},
		{passgen.PassphraseOptions{Words: 64, Separator: "·", Digit: true}, `^([a-z-]+[0-9]?·){63}[a-z-]+[0-9]?$`, 64*word + log2(640)},
	} {
		g := seeded(3)
		for range 50 {
			res, err := g.Passphrase(tc.o)
			if err != nil || !regexp.MustCompile(tc.pattern).MatchString(res.Value) || math.Abs(res.EntropyBits-tc.bits) > 1e-9 {
				t.Fatalf("%+v: %q %v bits, %v; want %s and %v bits", tc.o, res.Value, res.EntropyBits, err, tc.pattern, tc.bits)
			}
			parts := strings.Split(res.Value, tc.o.Separator)
			if tc.o.Separator == "" {
				continue
			}
			digits := 0
			for _, p := range parts {
				w := strings.ToLower(strings.TrimRightFunc(p, unicode.IsDigit))
				digits += len(p) - len(w)
				if !inList[w] {
					t.Fatalf("%q is not a word of the list", w)
				}
			}
			if want := map[bool]int{true: 1}[tc.o.Digit]; digits != want {
				t.Fatalf("%q has %d digits, want %d", res.Value, digits, want)
			}
		}
	}
}

func log2(x float64) float64 { return math.Log2(x) }

func wordListFile(t *testing.T) string {
	t.Helper()
	return passgen.EmbeddedWordList()
}

// TestWordList: the embedded file is EFF's, byte for byte (the sum of
// data/README.md), and parses to 7,776 distinct words, each beginning with
// a letter (title case relies on it), in the order of their dice numbers.
func TestWordList(t *testing.T) {
	t.Parallel()
	file := wordListFile(t)
	if sum := sha256.Sum256([]byte(file)); hex.EncodeToString(sum[:]) != "addd35536511597a02fa0a9ff1e5284677b8883b83e986e43f15a3db996b903e" {
		t.Fatalf("the embedded word list's sha256 is %x, not the pinned one", sum)
	}
	words := passgen.Words()
	if len(words) != passgen.WordListSize {
		t.Fatalf("%d words", len(words))
	}
	seen := map[string]bool{}
	lowerCase := regexp.MustCompile(`^[a-z][a-z-]*$`)
	dice := []byte("11111")
	i := 0
	for line := range strings.Lines(file) {
		if want := fmt.Sprintf("%s\t%s\n", dice, words[i]); line != want {
			t.Fatalf("line %d is %q, want %q", i+1, line, want)
		}
		if seen[words[i]] || !lowerCase.MatchString(words[i]) {
			t.Fatalf("word %d %q is a repeat or not lower-case letters", i+1, words[i])
		}
		seen[words[i]] = true
		for j := 4; j >= 0; j-- { // the next dice roll, in base 6 with digits 1-6
			if dice[j]++; dice[j] <= '6' {
				break
			}
			dice[j] = '1'
		}
		i++
	}
}

func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		password   *passgen.PasswordOptions
		passphrase *passgen.PassphraseOptions
		want       string
	}{
		{password: &passgen.PasswordOptions{Length: 3, Lower: true}, want: "the length must be from 4 to 1024 characters; got 3"},
		{password: &passgen.PasswordOptions{Length: 1025, Lower: true}, want: "got 1025"},
		{password: &passgen.PasswordOptions{Length: 20, NoLookAlikes: true}, want: "choose at least one character class"},
		{passphrase: &passgen.PassphraseOptions{Words: 2}, want: "the number of words must be from 3 to 64; got 2"},
		{passphrase: &passgen.PassphraseOptions{Words: 65}, want: "got 65"},
		{passphrase: &passgen.PassphraseOptions{Words: 6, Separator: strings.Repeat("-", 17)}, want: "the separator is at most 16 bytes"},
		{passphrase: &passgen.PassphraseOptions{Words: 6, Separator: "\n"}, want: "without control characters"},
		{passphrase: &passgen.PassphraseOptions{Words: 6, Separator: "\xff"}, want: "without control characters"},
		{passphrase: &passgen.PassphraseOptions{Words: 6, Case: "camel"}, want: `the case must be lower, title, upper or random; got "camel"`},
	} {
		var err, entropyErr error
		if tc.password != nil {
			_, err = passgen.Password(*tc.password)
			_, entropyErr = passgen.PasswordEntropy(*tc.password)
		} else {
			_, err = passgen.Passphrase(*tc.passphrase)
			_, entropyErr = passgen.PassphraseEntropy(*tc.passphrase)
		}
		if !errors.Is(err, passgen.ErrInvalidOptions) || !strings.Contains(err.Error(), tc.want) || entropyErr == nil {
			t.Errorf("%v: want %q", err, tc.want)
		}
	}
}

// TestDrawsAreUniform: a chi-square test, on a fixed seed so that it
// cannot fail by chance, that each character of an alphabet and each word
// of the list comes up equally often. A character favoured by a tenth, or
// the modulo bias of a 16-bit draw over the words (65,536 mod 7,776 would
// favour the first 3,328 words by an eighth), would show; the rejection
// itself is tested in uniform_internal_test.go. The bounds are the 0.9999
// quantiles of chi-square.
func TestDrawsAreUniform(t *testing.T) {
	t.Parallel()
	g := seeded(4)
	counts := map[rune]int{}
	for range 4000 {
		res, err := g.Password(passgen.PasswordOptions{Length: 32, Lower: true, Upper: true, Digits: true, Symbols: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Value {
			counts[c]++
		}
	}
	chi := chiSquare(counts, 94, 4000*32)
	if len(counts) != 94 || chi > 153 { // 93 degrees of freedom
		t.Fatalf("characters: %d distinct, chi-square %.1f", len(counts), chi)
	}

	wordCounts := map[string]int{}
	for range 40000 {
		res, err := g.Passphrase(passgen.PassphraseOptions{Words: 5, Separator: " "})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.Fields(res.Value) {
			wordCounts[w]++
		}
	}
	chi = chiSquare(wordCounts, passgen.WordListSize, 40000*5)
	if chi > 8250 { // 7,775 degrees of freedom
		t.Fatalf("words: %d distinct, chi-square %.1f", len(wordCounts), chi)
	}
}

func chiSquare[K comparable](counts map[K]int, categories, draws int) float64 {
	expected := float64(draws) / float64(categories)
	chi := float64(categories-len(counts)) * expected // categories never drawn
	for _, n := range counts {
		chi += (float64(n) - expected) * (float64(n) - expected) / expected
	}
	return chi
}

func FuzzOptions(f *testing.F) {
	f.Add(20, uint8(15), false, 6, "-", "title", true)
	f.Add(4, uint8(9), true, 3, "", "random", false)
	f.Fuzz(func(t *testing.T, length int, classes uint8, noLookAlikes bool, words int, separator, wordCase string, digit bool) {
		g := seeded(byte(length))
		o := passgen.PasswordOptions{Length: length, Lower: classes&1 != 0, Upper: classes&2 != 0,
			Digits: classes&4 != 0, Symbols: classes&8 != 0, NoLookAlikes: noLookAlikes}
		res, err := g.Password(o)
		bits, entropyErr := passgen.PasswordEntropy(o)
		if (err == nil) != (entropyErr == nil) {
			t.Fatalf("%+v: Password %v, PasswordEntropy %v", o, err, entropyErr)
		}
		if err == nil && (len(res.Value) != length || res.EntropyBits != bits || bits <= 0 || noLookAlikes && strings.ContainsAny(res.Value, passgen.LookAlikes)) {
			t.Fatalf("%+v: %q, %v bits", o, res.Value, res.EntropyBits)
		}
		p := passgen.PassphraseOptions{Words: words, Separator: separator, Case: wordCase, Digit: digit}
		phrase, err := g.Passphrase(p)
		bits, entropyErr = passgen.PassphraseEntropy(p)
		if (err == nil) != (entropyErr == nil) || err == nil && (phrase.EntropyBits != bits || bits < 3*12.9) {
			t.Fatalf("%+v: %q, %v bits; %v, %v", p, phrase.Value, phrase.EntropyBits, err, entropyErr)
		}
	})
}
