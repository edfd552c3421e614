package cmd

import (
	"strings"

	"secutil/tools/closest"
)

// nearestCommand suggests the command a mistyped name probably meant: a
// name or last word within a small edit distance (closest.Distance, where
// a swap of neighbours is one edit), or a name it starts, so "sevre" finds
// serve, "lst" user list and "import" import-wordlist.
func nearestCommand(typed string) string {
	const maxEdits = 2
	best, bestDistance := "", maxEdits+1
	for _, cmd := range commands() {
		words := strings.Fields(cmd.name)
		// A group's own name ("usr" for user) suggests the group, whose
		// overview lists its commands.
		for _, c := range [][2]string{{cmd.name, cmd.name}, {words[len(words)-1], cmd.name}, {words[0], words[0]}} {
			candidate, suggestion := c[0], c[1]
			d := closest.Distance(typed, candidate, maxEdits)
			if len(typed) >= 3 && strings.HasPrefix(candidate, typed) {
				d = 1
			}
			if limit := min(maxEdits, len(candidate)/3); d <= limit && d < bestDistance {
				best, bestDistance = suggestion, d
			}
		}
	}
	return best
}
