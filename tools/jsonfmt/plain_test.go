package jsonfmt_test

import (
	"strings"
	"testing"

	"secutil/tools/jsonfmt"
)

// TestSyntaxErrorsInPlainWords: a refusal says, at its line and column,
// what was expected there, not encoding/json's parser states.
func TestSyntaxErrorsInPlainWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a" 1}`:          `line 1, column 6: unexpected '1' after a key: a colon belongs there`,
		`{"a":1 "b"}`:      `unexpected '"' after a value in an object: a comma or } belongs there`,
		`[1 2]`:            `unexpected '2' after an item of a list: a comma or ] belongs there`,
		`{a:1}`:            `unexpected 'a' where a key belongs: keys are strings in double quotes`,
		`[,]`:              `unexpected ',' where a value belongs`,
		`{"a":1}}`:         `unexpected data after the JSON value`,
		`{"a":[1,2}`:       `unexpected '}' after an item of a list`,
		`{"a":`:            `the text ends before the JSON does`,
		`"a` + "\n" + `b"`: `inside a string: a line break or tab there must be written \n or \t`,
	} {
		_, err := jsonfmt.Format(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v\nwant %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "looking for") {
			t.Errorf("%q: %v speaks of the parser's state", in, err)
		}
	}
}
