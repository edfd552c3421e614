package passgen

// EmbeddedWordList is the embedded file, for the tests.
func EmbeddedWordList() string { return effLargeWordList }

// Words is the parsed list, for the tests.
var Words = words
