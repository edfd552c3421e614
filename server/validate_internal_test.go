package server

import (
	"encoding/json"
	"testing"
)

// missingByMap is firstMissing's answer the slow way: the body decoded into
// a map, as checkPresent does when firstMissing declines.
func missingByMap(t testing.TB, body []byte, names []string) string {
	var present map[string]json.RawMessage
	if err := json.Unmarshal(body, &present); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	for _, name := range names {
		if raw, ok := present[name]; !ok || string(raw) == "null" {
			return name
		}
	}
	return ""
}

var presenceBodies = []string{
	`{"text":"a","option":"encode"}`,
	`{"option":"encode"}`,
	`{"text":null}`,
	` { "text" : null , "option" : 1 } `,
	`{"text":"a","text":null}`,
	`{"text":null,"text":"a"}`,
	`{"Text":"a"}`,
	`{"t\u0065xt":"a"}`,
	`{"x":"te\"xt","text":"}"}`,
	`{"x":{"text":null,"y":[1,{"z":"]"}]},"text":[null]}`,
	`{"x":"\\","text":nullx}`,
	`{"text":-1.5e3,"option":true}`,
	`{"text":"null"}`,
	"{\n\t\"text\"\r:\tfalse\n}",
	`{}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`,
}

// TestFirstMissingIsTheMapsAnswer: reading the body straight gives what
// decoding it into a map gives, whenever it answers.
func TestFirstMissingIsTheMapsAnswer(t *testing.T) {
	t.Parallel()
	for _, names := range [][]string{{"text"}, {"text", "option"}, {"option", "text"}, {"x", "text"}, {"a", "b", "c", "d", "e", "f", "g", "h"}} {
		for _, body := range presenceBodies {
			if !json.Valid([]byte(body)) {
				continue // the invalid one above is for the fuzzer's corpus only
			}
			got, ok := firstMissing([]byte(body), names)
			if want := missingByMap(t, []byte(body), names); ok && got != want {
				t.Errorf("%s %q: firstMissing = %q, the map says %q", body, names, got, want)
			}
			if !ok && body != `{"t\u0065xt":"a"}` {
				t.Errorf("%s %q: firstMissing declined", body, names)
			}
		}
	}
	if _, ok := firstMissing([]byte(`{}`), []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}); ok {
		t.Error("firstMissing answered for 9 names")
	}
}

func FuzzFirstMissing(f *testing.F) {
	for _, body := range presenceBodies {
		f.Add(body)
	}
	names := []string{"text", "option", "x"}
	f.Fuzz(func(t *testing.T, body string) {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &obj) != nil || obj == nil {
			return // firstMissing reads only objects json.Unmarshal accepted
		}
		if got, ok := firstMissing([]byte(body), names); ok {
			if want := missingByMap(t, []byte(body), names); got != want {
				t.Errorf("%q: firstMissing = %q, the map says %q", body, got, want)
			}
		}
	})
}
