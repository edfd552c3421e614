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
		`no`:               `line 1, column 2: unexpected 'o' in what begins as null: the only words JSON knows are true, false and null`,
		`{"a": tru}`:       `line 1, column 10: unexpected '}' in what begins as true`,
		`[False]`:          `unexpected 'F' where a value belongs`,
		`"\u12x4"`:         `line 1, column 6: unexpected 'x' after \u in a string: four hex digits belong there`,
		`[1.e5]`:           `unexpected 'e' after decimal point in a number`,
	} {
		_, err := jsonfmt.Format(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v\nwant %q", in, err, want)
		}
		for _, parser := range []string{"looking for", "in literal", "invalid character", "hexadecimal character escape"} {
			if err != nil && strings.Contains(err.Error(), parser) {
				t.Errorf("%q: %v speaks of the parser's state (%s)", in, err, parser)
			}
		}
	}
}
