package server

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"secutil/tools/codec"
	"secutil/tools/hashgen"
	"secutil/tools/passgen"
)

// fieldsProbe is a request type of every kind of field formJSON reads.
type fieldsProbe struct {
	Text  string  `json:"text" aka:"words,input"`
	Count int     `json:"count"`
	Ratio float64 `json:"ratio"`
	On    bool    `json:"on"`
	Maybe *bool   `json:"maybe"`
	Size  *int    `json:"size"`
	Skip  string  `json:"-"`
	_     struct{}
}

var probeType = reflect.TypeFor[fieldsProbe]()

// unknownByMap is refuseUnknownFields's verdict the slow way: is any key of
// the object body not a field of fieldsProbe.
func unknownByMap(t testing.TB, body []byte) bool {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	for key := range members {
		switch key {
		case "text", "count", "ratio", "on", "maybe", "size":
		default:
			return true
		}
	}
	return false
}

func TestRefuseUnknownFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, want string // want: in the error, "" for none
	}{
		{`{"text":"a","count":1,"ratio":0.5,"on":true,"maybe":null,"size":3}`, ""},
		{`{}`, ""},
		{`{"te\u0078t":"a"}`, ""},
		{`{"x":{"y":1},"text":"a"}`, `unknown field "x": the fields are "text", "count", "ratio", "on", "maybe" and "size"`},
		{`{"text":"a","Skip":"b"}`, `unknown field "Skip"`},
		{`{"-":1}`, `unknown field "-"`},
		{`{"":1}`, `unknown field ""`},
		{`{"words":"a"}`, `unknown field "words": did you mean "text"?`},
		{`{"INPUT":"a"}`, `did you mean "text"?`},
		{`{"cont":1}`, `did you mean "count"?`},
		{`{"Ratio":1}`, `did you mean "ratio"?`},
		{`{"\u0077ords":"a"}`, `did you mean "text"?`},
		{`{"` + strings.Repeat("x", 100) + `":1}`, `unknown field "` + strings.Repeat("x", 40) + `…"`},
	} {
		err := refuseUnknownFields([]byte(tc.body), probeType)
		var ae *apiError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case tc.want != "" && (!errors.As(err, &ae) || ae.code != codeUnknownField || !strings.Contains(ae.msg, tc.want)):
			t.Errorf("%s: %v, want unknown_field %q", tc.body, err, tc.want)
		}
	}
}

func FuzzRefuseUnknownFields(f *testing.F) {
	for _, body := range presenceBodies {
		f.Add(body)
	}
	f.Add(`{"text":"a","count":1,"on":true,"\u0073ize":2}`)
	f.Fuzz(func(t *testing.T, body string) {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &obj) != nil || obj == nil {
			return // it reads only objects json.Unmarshal accepted
		}
		err := refuseUnknownFields([]byte(body), probeType)
		if want := unknownByMap(t, []byte(body)); (err != nil) != want {
			t.Errorf("%q: refuseUnknownFields = %v, the map says unknown %v", body, err, want)
		}
	})
}

// TestFormJSON: a form's strings become the JSON types of their fields, so
// a form and a JSON client share one request type.
func TestFormJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"text": {"5"}, "count": {"12"}, "ratio": {"-0.5e1"}, "on": {"on"}, "maybe": {"false"}, "size": {" 7 "}},
			`{"count":12,"maybe":false,"on":true,"ratio":-0.5e1,"size":7,"text":"5"}`},
		// An empty number box leaves its field out; an unchecked box is false.
		{url.Values{"count": {""}, "size": {"  "}, "on": {""}}, `{"on":false}`},
		// A checked box first, the hidden false after it: the first counts.
		{url.Values{"maybe": {"true", "false"}, "on": {"false"}}, `{"maybe":true,"on":false}`},
		// What does not read as the field's type stays a string, for
		// decoding to refuse by the field's name; other fields stay strings.
		{url.Values{"count": {"twelve"}, "on": {"perhaps"}, "ratio": {"NaN"}, "size": {"0x10"}, "submit": {"1"}},
			`{"count":"twelve","on":"perhaps","ratio":"NaN","size":"0x10","submit":"1"}`},
	} {
		raw, err := formJSON(tc.form, &fieldsProbe{})
		if err != nil || string(raw) != tc.want {
			t.Errorf("%v: %s (%v), want %s", tc.form, raw, err, tc.want)
		}
	}
	// And decoding them names the field.
	var probe fieldsProbe
	raw, _ := formJSON(url.Values{"count": {"twelve"}}, &probe)
	if err := decodeJSON(raw, &probe, false); err == nil || !strings.Contains(err.Error(), `"count"`) {
		t.Errorf("a count of twelve: %v", err)
	}
}

func TestAndList(t *testing.T) {
	t.Parallel()
	for items, want := range map[string]string{"": "", "a": "a", "a b": "a and b", "a b c": "a, b and c"} {
		if got := andList(strings.Fields(items)); got != want {
			t.Errorf("andList(%q) = %q, want %q", items, got, want)
		}
	}
}

// TestDocumentedBoundsAreTheTools: the maxima the request types document
// (struct tags cannot name constants) are the bounds the tools apply.
func TestDocumentedBoundsAreTheTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		t     reflect.Type
		field string
		bound int
	}{
		{reflect.TypeFor[hashGeneratorRequest](), "Cost", hashgen.MaxBcryptCost},
		{reflect.TypeFor[hashGeneratorRequest](), "Memory", hashgen.MaxArgon2MemoryKiB},
		{reflect.TypeFor[hashGeneratorRequest](), "Time", hashgen.MaxArgon2Time},
		{reflect.TypeFor[hashGeneratorRequest](), "Parallelism", hashgen.MaxArgon2Parallelism},
		{reflect.TypeFor[hashGeneratorRequest](), "N", 1 << hashgen.MaxScryptLogN},
		{reflect.TypeFor[hashGeneratorRequest](), "R", hashgen.MaxScryptR},
		{reflect.TypeFor[hashGeneratorRequest](), "P", hashgen.MaxScryptP},
		{reflect.TypeFor[randomKeyRequest](), "Length", codec.MaxKeyBytes},
		{reflect.TypeFor[passwordGenRequest](), "Length", passgen.MaxLength},
		{reflect.TypeFor[passwordGenRequest](), "Words", passgen.MaxWords},
	} {
		f, _ := tc.t.FieldByName(tc.field)
		if got := f.Tag.Get("maximum"); got != strconv.Itoa(tc.bound) {
			t.Errorf("%v.%s documents a maximum of %s; the tool's is %d", tc.t, tc.field, got, tc.bound)
		}
		if doc := f.Tag.Get("doc"); !strings.Contains(doc, strconv.Itoa(tc.bound)) {
			t.Errorf("%v.%s: %q does not say %d", tc.t, tc.field, doc, tc.bound)
		}
	}
}
