package schemagen

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseEncodeKeepsOrderAndText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"{}\n",
		"[]\n",
		"{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    \"<&>\"\n  ],\n  \"c\": {\n    \"z\": 1.50,\n    \"y\": \"×\"\n  }\n}\n",
	} {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		out, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("Encode(Parse(%q)) = %q", in, out)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `{"a":1,"a":2}`, `{} {}`, `[1,]`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) accepted it", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{`{"a":[1,{"b":null}]}`, `"x"`, `[{"b":1,"a":2}]`, `1E700`, `[1.0,-0,1e2]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := Parse([]byte(in))
		if err != nil {
			return
		}
		out, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode of a parsed %q: %v", in, err)
		}
		// The same JSON value, and a fixed point. Numbers compare as the
		// literals they are (UseNumber): Parse keeps 1E700 as written, which
		// no float64 holds.
		want, errIn := decodeWithNumbers([]byte(in))
		got, errOut := decodeWithNumbers(out)
		if errIn != nil || errOut != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("%q came back as %q", in, out)
		}
		again, _ := Parse(out)
		if out2, _ := Encode(again); !bytes.Equal(out, out2) {
			t.Fatalf("%q: %q, then %q", in, out, out2)
		}
	})
}

// decodeWithNumbers decodes one JSON value, numbers as json.Number.
func decodeWithNumbers(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

type nested struct {
	N int `json:"n"`
}

type batch []string

func (batch) JSONSchema() *Object { return NewObject("type", []any{"array", "string"}) }

type embedded struct {
	E string `json:"e" required:"check"`
}

type sample struct {
	_ struct{} `doc:"a sample"`
	embedded
	Plain    string   `json:"plain" required:"true"`
	Doc      string   `json:"doc,omitempty" doc:"said"`
	Choice   string   `json:"choice" enum:"x,y"`
	Score    int      `json:"score" minimum:"0" maximum:"4"`
	Maybe    *float64 `json:"maybe"`
	Nullable bool     `json:"nullable" nullable:"true"`
	Null     *string  `json:"null" type:"null"`
	List     []nested `json:"list"`
	Own      batch    `json:"own"`
	Skipped  string   `json:"-"`
	hidden   string
}

func TestSchema(t *testing.T) {
	t.Parallel()
	rf := &Reflector{Name: func(t reflect.Type) string { return "N_" + t.Name() }}
	schema, err := rf.Schema(reflect.TypeFor[sample]())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(schema)
	want := `{"type":"object","description":"a sample","properties":{` +
		`"e":{"type":"string"},` +
		`"plain":{"type":"string"},` +
		`"doc":{"type":"string","description":"said"},` +
		`"choice":{"type":"string","enum":["x","y"]},` +
		`"score":{"type":"integer","minimum":0,"maximum":4},` +
		`"maybe":{"type":["number","null"]},` +
		`"nullable":{"type":["boolean","null"]},` +
		`"null":{"type":"null"},` +
		`"list":{"type":"array","items":{"$ref":"#/components/schemas/N_nested"}},` +
		`"own":{"type":["array","string"]}},` +
		`"required":["e","plain"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	if len(rf.Nested) != 1 || rf.Nested[0] != reflect.TypeFor[nested]() {
		t.Errorf("nested types %v, want [nested]", rf.Nested)
	}
	_ = sample{}.hidden
}

func TestSchemaRefuses(t *testing.T) {
	t.Parallel()
	rf := &Reflector{Name: func(reflect.Type) string { return "X" }}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[int](),
		reflect.TypeFor[struct {
			M map[string]int `json:"m"`
		}](),
		reflect.TypeFor[struct {
			P *nested `json:"p"`
		}](),
	} {
		if _, err := rf.Schema(typ); err == nil {
			t.Errorf("%v: no error", typ)
		}
	}
}

func TestObjectDelete(t *testing.T) {
	t.Parallel()
	o := NewObject("a", 1, "b", 2, "c", 3)
	o.Delete("b")
	o.Delete("nope")
	if got, _ := json.Marshal(o); string(got) != `{"a":1,"c":3}` {
		t.Errorf("got %s", got)
	}
}
