// Package plural writes a count with its noun in the right number, so
// that no page or message says "1 calls" or "1 seconds".
package plural

import "strconv"

// Integer is any count: an int, or an int64 such as a row count.
type Integer interface {
	~int | ~int64
}

// Count writes n and the noun: one for exactly 1 (or -1), many otherwise
// ("0 calls", "1 call", "2 calls").
func Count[N Integer](n N, one, many string) string {
	noun := many
	if n == 1 || n == -1 {
		noun = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun
}
