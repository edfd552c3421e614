package schemagen

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSplitTypeUnions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		// A union of types besides null becomes anyOf, each type's keywords
		// in its branch, the others (description, enum) beside it.
		{`{"type":["array","string"],"items":{"type":"string"},"description":"d"}`,
			`{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"string"}],"description":"d"}`},
		{`{"type":["string","number","boolean"]}`,
			`{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"}]}`},
		{`{"type":["integer","string","null"],"minimum":1,"maxLength":3}`,
			`{"anyOf":[{"type":"integer","minimum":1},{"type":"string","maxLength":3},{"type":"null"}]}`},
		// Deep in a document, in arrays and additionalProperties.
		{`{"a":[{"additionalProperties":{"type":["boolean","string"]}}]}`,
			`{"a":[{"additionalProperties":{"anyOf":[{"type":"boolean"},{"type":"string"}]}}]}`},
		// What generators read already is left as it is: one type, one
		// nullable type, and examples, which are values.
		{`{"type":"string"}`, `{"type":"string"}`},
		{`{"type":["string","null"],"maxLength":2}`, `{"type":["string","null"],"maxLength":2}`},
		{`{"example":{"type":["a","b"]},"examples":[{"type":["a","b"]}]}`, `{"example":{"type":["a","b"]},"examples":[{"type":["a","b"]}]}`},
	} {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if err := SplitTypeUnions(v); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got, _ := json.Marshal(v)
		if string(got) != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestSplitTypeUnionsRefuses(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		// A keyword of a type the union does not have: said nowhere else.
		`{"p":{"type":["string","boolean"],"items":{}}}`: "p: items constrains array values",
		`{"type":["string","boolean"],"anyOf":[]}`:       "beside an anyOf",
		`{"type":["string",1]}`:                          "not a list of names",
	} {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := SplitTypeUnions(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", in, err, want)
		}
	}
}

// FuzzSplitTypeUnions: whatever the document, no schema is left with a
// type union that generators cannot read, and a second pass changes
// nothing.
func FuzzSplitTypeUnions(f *testing.F) {
	for _, seed := range []string{
		`{"type":["array","string"],"items":{"type":"string"}}`,
		`{"properties":{"a":{"type":["integer","null","string"],"minimum":0}}}`,
		`[{"type":["null"]},{"type":[]},{"type":["object","array"],"required":["x"],"items":true}]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := Parse([]byte(in))
		if err != nil {
			return
		}
		if err := SplitTypeUnions(v); err != nil {
			return
		}
		once, _ := Encode(v)
		if unions := typeUnions(v); len(unions) > 0 {
			t.Fatalf("%s left %v in %s", in, unions, once)
		}
		if err := SplitTypeUnions(v); err != nil {
			t.Fatalf("second pass over %s: %v", once, err)
		}
		if twice, _ := Encode(v); string(twice) != string(once) {
			t.Fatalf("second pass changed %s into %s", once, twice)
		}
	})
}

// typeUnions are the type lists of two or more types besides null left in
// v, outside examples.
func typeUnions(v any) [][]any {
	var found [][]any
	switch v := v.(type) {
	case *Object:
		if list, ok := mustGet(v, "type").([]any); ok {
			others := 0
			for _, t := range list {
				if t != "null" {
					others++
				}
			}
			if others > 1 {
				found = append(found, list)
			}
		}
		for _, key := range v.Keys() {
			if key != "example" && key != "examples" {
				found = append(found, typeUnions(mustGet(v, key))...)
			}
		}
	case []any:
		for _, child := range v {
			found = append(found, typeUnions(child)...)
		}
	}
	return found
}

func mustGet(o *Object, key string) any {
	v, _ := o.Get(key)
	return v
}
