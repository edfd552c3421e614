package audit

import (
	"context"
	"fmt"
	"sync"

	"secutil/tools/dump"
)

// WordList returns a PlaintextLookup over words, such as the embedded
// common-password list (strength.CommonPasswords()): it hashes every word
// under an algorithm the first time it is asked about that algorithm, and
// answers from that table. It is safe for concurrent use.
func WordList(words []string) PlaintextLookup {
	var mu sync.Mutex
	tables := map[dump.Algorithm]map[string]string{}
	return func(_ context.Context, alg dump.Algorithm, digests [][]byte) ([]string, error) {
		if alg.DigestLen() == 0 {
			return nil, fmt.Errorf("audit: no word list lookup for %s", alg)
		}
		mu.Lock()
		table := tables[alg]
		if table == nil {
			var h hasher
			table = make(map[string]string, len(words))
			for _, w := range words {
				d := string(h.digest(alg, w))
				if _, dup := table[d]; !dup {
					table[d] = w
				}
			}
			tables[alg] = table
		}
		mu.Unlock()
		out := make([]string, len(digests))
		for i, d := range digests {
			out[i] = table[string(d)]
		}
		return out, nil
	}
}
