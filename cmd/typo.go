package cmd

import "strings"

// nearestCommand suggests the command a mistyped name probably meant: a
// name or last word within a small edit distance, or a name it starts,
// so "sevre" finds serve, "lst" user list and "import" import-wordlist.
func nearestCommand(typed string) string {
	best, bestDistance := "", 3
	for _, cmd := range commands() {
		words := strings.Fields(cmd.name)
		// A group's own name ("usr" for user) suggests the group, whose
		// overview lists its commands.
		for _, c := range [][2]string{{cmd.name, cmd.name}, {words[len(words)-1], cmd.name}, {words[0], words[0]}} {
			candidate, suggestion := c[0], c[1]
			d := editDistance(typed, candidate)
			if len(typed) >= 3 && strings.HasPrefix(candidate, typed) {
				d = 1
			}
			if limit := min(2, len(candidate)/3); d <= limit && d < bestDistance {
				best, bestDistance = suggestion, d
			}
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
