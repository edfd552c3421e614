// Package closest finds the known name nearest to a mistyped one, for a
// "did you mean" hint: the fewest single-byte insertions, deletions and
// substitutions (Levenshtein distance), within a bound that grows with
// the name's length.
package closest

// MaxLen bounds the work of one lookup: a name longer than this gets no
// suggestion (the distance costs len(name) × len(candidate) steps).
const MaxLen = 80

// Match returns the candidate nearest to name, if one is near enough: at
// most 1 edit for names up to 8 bytes, then one more for each further 8
// bytes, and never as many edits as the candidate has bytes. Ties go to
// the earlier candidate.
func Match(name string, candidates []string) (string, bool) {
	if len(name) > MaxLen {
		return "", false
	}
	best, bestDistance := "", -1
	for _, c := range candidates {
		limit := min(1+(len(name)-1)/8, len(c)-1)
		if limit < 1 || abs(len(c)-len(name)) > limit {
			continue
		}
		if d := distance(name, c, limit); d <= limit && (bestDistance < 0 || d < bestDistance) {
			best, bestDistance = c, d
		}
	}
	return best, bestDistance >= 0
}

// distance is the Levenshtein distance of a and b, or some number above
// limit once every path through the table is past it.
func distance(a, b string, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
