package strength

// Feedback texts, as zxcvbn 4.4.2 words them.
const (
	suggestAddWord       = "Add another word or two. Uncommon words are better."
	suggestFewWords      = "Use a few words, avoid common phrases"
	suggestNoNeedSymbols = "No need for symbols, digits, or uppercase letters"
)

// feedback explains the weakest part of a password scored 0..2: the
// longest match of its sequence. Stronger passwords get no advice.
func feedback(score int, seq []Match) (warning string, suggestions []string) {
	if len(seq) == 0 {
		return "", []string{suggestFewWords, suggestNoNeedSymbols}
	}
	if score > 2 {
		return "", []string{}
	}
	longest := seq[0]
	for _, m := range seq[1:] {
		if runeLen(m.Token) > runeLen(longest.Token) {
			longest = m
		}
	}
	warning, suggestions = matchFeedback(longest, len(seq) == 1)
	return warning, append([]string{suggestAddWord}, suggestions...)
}

func runeLen(s string) int { return len([]rune(s)) }

func matchFeedback(m Match, sole bool) (string, []string) {
	switch m.Pattern {
	case "dictionary":
		return dictionaryFeedback(m, sole)
	case "spatial":
		warning := "Short keyboard patterns are easy to guess"
		if m.Turns == 1 {
			warning = "Straight rows of keys are easy to guess"
		}
		return warning, []string{"Use a longer keyboard pattern with more turns"}
	case "repeat":
		warning := `Repeats like "abcabcabc" are only slightly harder to guess than "abc"`
		if runeLen(m.BaseToken) == 1 {
			warning = `Repeats like "aaa" are easy to guess`
		}
		return warning, []string{"Avoid repeated words and characters"}
	case "sequence":
		return "Sequences like abc or 6543 are easy to guess", []string{"Avoid sequences"}
	case "regex":
		return "Recent years are easy to guess", []string{"Avoid recent years", "Avoid years that are associated with you"}
	case "date":
		return "Dates are often easy to guess", []string{"Avoid dates and years that are associated with you"}
	}
	return "", nil
}

func dictionaryFeedback(m Match, sole bool) (string, []string) {
	warning := ""
	switch m.DictionaryName {
	case "passwords":
		switch {
		case sole && !m.L33t && !m.Reversed && m.Rank <= 10:
			warning = "This is a top-10 common password"
		case sole && !m.L33t && !m.Reversed && m.Rank <= 100:
			warning = "This is a top-100 common password"
		case sole && !m.L33t && !m.Reversed:
			warning = "This is a very common password"
		case m.GuessesLog10 <= 4:
			warning = "This is similar to a commonly used password"
		}
	case "english_wikipedia":
		if sole {
			warning = "A word by itself is easy to guess"
		}
	case "surnames", "male_names", "female_names":
		warning = "Common names and surnames are easy to guess"
		if sole {
			warning = "Names and surnames by themselves are easy to guess"
		}
	}

	var suggestions []string
	rs := []rune(m.Token)
	upper, lower := countCase(rs)
	switch {
	case len(rs) >= 2 && isUpper(rs[0]) && upper == 1:
		suggestions = append(suggestions, "Capitalization doesn't help very much")
	case upper > 0 && lower == 0:
		suggestions = append(suggestions, "All-uppercase is almost as easy to guess as all-lowercase")
	}
	if m.Reversed && len(rs) >= 4 {
		suggestions = append(suggestions, "Reversed words aren't much harder to guess")
	}
	if m.L33t {
		suggestions = append(suggestions, "Predictable substitutions like '@' instead of 'a' don't help very much")
	}
	return warning, suggestions
}
