package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"secutil/server/internal/apiref"
	"secutil/server/internal/schemagen"
)

// TestGeneratedPartsHaveOneSource: the generator refuses to write a part
// of the document that openapi_source.json holds already.
func TestGeneratedPartsHaveOneSource(t *testing.T) {
	t.Parallel()
	doc := schemagen.NewObject("paths", schemagen.NewObject("/base64", schemagen.NewObject()))
	if err := fill(member(doc, "paths"), "/base64", "generated"); err == nil {
		t.Error("fill overwrote a path the source holds")
	}
	if err := fill(member(doc, "paths"), "/entropy", "generated"); err != nil {
		t.Errorf("fill of a new path: %v", err)
	}
	if err := fill(member(doc, "components", "schemas"), "X", "generated"); err == nil {
		t.Error("fill into a missing object")
	}
}

// TestReferenceListsFieldsInAnswerOrder: /docs lists each utility's
// answer fields in the order the API writes them, which is the order of
// the response struct's fields (encoding/json keeps it).
func TestReferenceListsFieldsInAnswerOrder(t *testing.T) {
	t.Parallel()
	doc, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := apiref.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	for _, g := range ref.Groups {
		for _, rt := range g.Routes {
			for _, f := range rt.Response {
				documented[rt.Path] = append(documented[rt.Path], f.Name)
			}
		}
	}
	checked := 0
	for _, u := range utilities {
		written := jsonFieldOrder(u.response)
		if len(written) == 0 {
			continue // not a struct of its own (a tool's type or several shapes)
		}
		checked++
		if got := documented[u.path]; !slices.Equal(got, written) {
			t.Errorf("%s: /docs lists %q, the API writes %q", u.path, got, written)
		}
	}
	if checked < 10 {
		t.Errorf("only %d utilities checked", checked)
	}
}

// jsonFieldOrder is the names encoding/json writes a struct's fields
// under, in order (nil for a type that is not a struct).
func jsonFieldOrder(t reflect.Type) []string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		if !f.IsExported() || f.Name == "_" {
			continue
		}
		if f.Anonymous && f.Tag.Get("json") == "" {
			names = append(names, jsonFieldOrder(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// TestPathsAreWrittenInFull: each path of the source, written relative to
// its servers, comes out whole under the origin, the same route at its
// other servers and at the source's aliases listed in x-aliases; two
// routes at one path are refused.
func TestPathsAreWrittenInFull(t *testing.T) {
	t.Parallel()
	source := `{"servers": [{"url": "/api/v1"}, {"url": "/api"}], "paths": {
		"/base64": {"post": {}},
		"/docs": {"servers": [{"url": "/"}], "x-aliases": ["/docs/"], "get": {}},
		"/health": {"servers": [{"url": "/"}], "get": {}}}}`
	want := `{"servers":[{"url":"/","description":"the server's origin: every path is written in full"}],"paths":{` +
		`"/api/v1/base64":{"x-aliases":["/api/base64"],"post":{}},` +
		`"/docs":{"x-aliases":["/docs/"],"get":{}},` +
		`"/health":{"get":{}}}}`
	doc := parseObject(t, source)
	if err := writePathsInFull(doc); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(doc); string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	for _, bad := range []string{
		`{"servers": [{"url": "/api/v1"}, {"url": "/api"}], "paths": {"/a": {}, "/v1/a": {"servers": [{"url": "/api"}]}}}`,
		`{"servers": [{"url": "/"}], "paths": {"/a": {"x-aliases": ["/b"]}, "/b": {}}}`,
		`{"servers": [{"url": "https://example.com"}], "paths": {"/a": {}}}`,
		`{"paths": {"/a": {}}}`,
	} {
		if err := writePathsInFull(parseObject(t, bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func parseObject(t *testing.T, s string) *schemagen.Object {
	t.Helper()
	v, err := schemagen.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*schemagen.Object)
}
