package hashverify

import (
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"secutil/tools/hashgen"
)

// likeliestDigests come first among the digests of one length, in the
// order people meet them (for 32 digits: MD5, then NTLM, then MD4).
var likeliestDigests = []string{"md5", "ntlm", "sha1", "sha224", "sha256", "sha384", "sha512"}

// hexDigests maps a number of hex digits to the fast digests of
// tools/hashgen that write that many, likeliest first.
var hexDigests = sync.OnceValue(func() map[int][]string {
	byLength := map[int][]string{}
	for _, name := range slices.Concat(likeliestDigests, hashgen.Algorithms()) {
		if hashgen.Slow(name) {
			continue
		}
		_, digest, _ := hashgen.Generate(name, "")
		if !slices.Contains(byLength[len(digest)], name) {
			byLength[len(digest)] = append(byLength[len(digest)], name)
		}
	}
	return byLength
})

func isHex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

// parseHex reads a bare hex digest, in either case.
func parseHex(s string) (*Hash, error) {
	candidates := hexDigests()[len(s)]
	if candidates == nil {
		var lengths []int
		for n := range hexDigests() {
			lengths = append(lengths, n)
		}
		sort.Ints(lengths)
		return nil, &UnsupportedError{Detail: fmt.Sprintf("%d hex digits is the length of no digest (these have %s)", len(s), joinInts(lengths))}
	}
	want, _ := hex.DecodeString(s)
	return &Hash{schemes: candidates, format: "hex", match: func(password []byte) int {
		for i, name := range candidates {
			_, got, _ := hashgen.Generate(name, string(password))
			if sum, _ := hex.DecodeString(got); equal(sum, want) {
				return i
			}
		}
		return -1
	}}, nil
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
