package hashindex_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// wordlist returns n deterministic, mostly distinct password-like words of 6 to 16 bytes:
// syllables, sometimes capitalised, often followed by digits or a symbol.
func wordlist(n int) []string {
	syllables := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "ban", "dor", "fel", "gim",
		"har", "jon", "kel", "mar", "nor", "pet", "qui", "ros", "sun", "tor", "wen", "zar", "love", "star", "dragon"}
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, n)
	var b strings.Builder
	for i := range words {
		b.Reset()
		size := 6 + rng.IntN(11)
		for b.Len() < size-4 {
			s := syllables[rng.IntN(len(syllables))]
			if b.Len() == 0 && rng.IntN(4) == 0 {
				s = strings.ToUpper(s[:1]) + s[1:]
			}
			b.WriteString(s)
		}
		b.WriteString(strconv.Itoa(rng.IntN(10000)))
		if rng.IntN(5) == 0 {
			b.WriteByte("!@#$."[rng.IntN(5)])
		}
		w := b.String()
		if len(w) > 16 {
			w = w[:16]
		}
		for len(w) < 6 {
			w += "1"
		}
		words[i] = w
	}
	return words
}
