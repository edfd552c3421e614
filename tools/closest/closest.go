// Package closest finds the known name nearest to a mistyped one, for a
// "did you mean" hint anywhere in secutil: a mistyped route, JSON field,
// command or flag. Near is the fewest single-byte insertions, deletions,
// substitutions and swaps of neighbours (the optimal string alignment
// distance), within a bound that grows with the name's length, and the work
// is bounded: names longer than MaxLen get no suggestion, and a distance
// stops as soon as it is past its limit.
package closest

// MaxLen bounds the work of one comparison: a name longer than this gets
// no suggestion (a distance costs len(a) × len(b) steps).
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
		if limit < 1 {
			continue
		}
		if d := Distance(name, c, limit); d <= limit && (bestDistance < 0 || d < bestDistance) {
			best, bestDistance = c, d
		}
	}
	return best, bestDistance >= 0
}

// Distance is the optimal string alignment distance of a and b (each
// insertion, deletion, substitution or swap of two neighbouring bytes one
// edit), or limit+1 once it is certain to be above limit: when the lengths
// differ by more, when either is longer than MaxLen, or when every path
// through a row of the table is past limit.
func Distance(a, b string, limit int) int {
	if len(a) > MaxLen || len(b) > MaxLen || abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	// Three rows of the table: two back for a swap, the last and this one.
	var rows [3][MaxLen + 1]int
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
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
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		// A swap reaches back two rows, but never below the last row's
		// minimum: d(i-1, j-1) ≤ d(i-2, j-2) + 1, the swap's cost.
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
