package server

import (
	"strings"
	"testing"
	"unicode"
)

// The rule of the API's error messages: they are written to go after a
// colon ("error: no API key: ..."), so they start in lower case (unless
// the first word is a name such as JSON or X-API-Key) and end without a
// full stop; a page shows them with sentence, which makes them start and
// end like sentences.
func TestErrorMessagesFollowTheRule(t *testing.T) {
	t.Parallel()
	messages := []string{errNoKey.msg, errMistypedKey.msg, errUnknownKey.msg, errCrossOrigin.msg,
		errUnauthorized.msg, errLoginRequired.msg, errInternal.msg, errAccountDisabled.msg}
	for _, row := range toolErrors {
		if row.msg != "" {
			messages = append(messages, row.msg)
		}
	}
	for _, msg := range messages {
		first, _, _ := strings.Cut(msg, " ")
		if first == "" || unicode.IsUpper(rune(first[0])) && strings.ToUpper(first) != first && !strings.Contains(first, "-") {
			t.Errorf("%q starts like a sentence; API messages start in lower case", msg)
		}
		if strings.HasSuffix(msg, ".") {
			t.Errorf("%q ends with a full stop; API messages go after a colon", msg)
		}
		shown := sentence(msg)
		if !unicode.IsUpper(rune(shown[0])) || !strings.ContainsAny(shown[len(shown)-1:], ".?!") {
			t.Errorf("sentence(%q) = %q, not a sentence", msg, shown)
		}
	}
}
