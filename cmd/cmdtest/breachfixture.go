package cmdtest

import (
	"crypto/sha1"
	"fmt"
	"slices"
	"strings"
)

// BreachedPasswords are the passwords the Pwned Passwords fixture
// (testdata/pwned-passwords-sha1.txt at the repository's root) holds,
// with the counts the tests expect. The counts are made up; the format is
// that of the Pwned Passwords download.
var BreachedPasswords = map[string]int64{
	"password":     424242,
	"correcthorse": 17,
	"Tr0ub4dor&3":  31,
	// Long and rated strong, so only the breach file refuses it as an
	// account password.
	BreachedPassphrase: 12,
}

// BreachedPassphrase is a password the account policy accepts unless a
// breach file holds it.
const BreachedPassphrase = "orchid lantern quarry melody"

// breachFixtureFiller is the number of filler lines around the known
// passwords, so that lookups search a file of a few blocks.
const breachFixtureFiller = 200

// FillerPassword is the plaintext of filler line i.
func FillerPassword(i int) string { return fmt.Sprintf("secutil breach fixture filler %d", i) }

// FillerCount is the count of filler line i.
func FillerCount(i int) int64 { return int64(i*37%1000 + 1) }

// BreachFixture is the content of the Pwned Passwords fixture: upper-case
// SHA1:COUNT lines sorted by hash, CRLF-terminated like the download.
func BreachFixture() []byte {
	var lines []string
	for password, count := range BreachedPasswords {
		lines = append(lines, fmt.Sprintf("%X:%d", sha1.Sum([]byte(password)), count))
	}
	for i := range breachFixtureFiller {
		lines = append(lines, fmt.Sprintf("%X:%d", sha1.Sum([]byte(FillerPassword(i))), FillerCount(i)))
	}
	slices.Sort(lines) // every hash has 40 digits, so line order is hash order
	return []byte(strings.Join(lines, "\r\n") + "\r\n")
}
