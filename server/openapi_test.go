package server_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"secutil/server"
	"secutil/server/internal/schemagen"
)

// TestOpenAPIDocumentIsGenerated holds static/openapi.json to what the
// utilities' declarations, their Go types, the error codes and
// server/openapi_source.json make: a hand edit of the file fails here.
func TestOpenAPIDocumentIsGenerated(t *testing.T) {
	t.Parallel()
	want, err := server.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../static/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		line := 1 + bytes.Count(got[:commonPrefix(got, want)], []byte("\n"))
		t.Fatalf("static/openapi.json differs from what the declarations make, from line %d on: "+
			"edit server/utilities.go, the request and response types or server/openapi_source.json, then run go generate ./server", line)
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestOpenAPIDocumentSuitsClientGenerators holds the document to what
// client generators need, which TestGoClientFromOpenAPI and its siblings
// check with the generators themselves when they run: one server, the
// origin, and every path in full (generators ignore a path's own servers,
// so /health would be called under /api/v1); no union of types but with
// anyOf (oapi-codegen reads type: [a, b] only as one type and null); an
// operationId whose generated names clash with no schema (oapi-codegen's
// <OperationId>Response beside a schema Base64Response); and what
// Redocly's recommended rules count as errors among what the document once
// had: an operation that does not say which security it takes, a path
// with a trailing slash.
func TestOpenAPIDocumentSuitsClientGenerators(t *testing.T) {
	t.Parallel()
	raw, err := server.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Servers    []map[string]any
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0]["url"] != "/" {
		t.Errorf("servers %v, want the origin alone", doc.Servers)
	}
	// The type names oapi-codegen gives schemas, and those it makes for
	// each operation.
	types := map[string]string{}
	for name := range doc.Components.Schemas {
		types[camelCase(name)] = "schema " + name
	}
	for path, item := range doc.Paths {
		if _, ok := item["servers"]; ok {
			t.Errorf("%s has servers of its own", path)
		}
		if path != "/" && strings.HasSuffix(path, "/") {
			t.Errorf("%s ends with a slash", path)
		}
		for method, raw := range item {
			if method == "parameters" || method == "servers" || method == "summary" || method == "description" || strings.HasPrefix(method, "x-") {
				continue
			}
			var op struct {
				OperationID string
				Security    *[]any
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			if op.Security == nil {
				t.Errorf("%s %s: no security (an empty list for none)", method, path)
			}
			if op.OperationID == "" {
				t.Errorf("%s %s: no operationId", method, path)
			}
			for _, suffix := range []string{"Response", "Params", "JSONRequestBody", "JSONBody"} {
				name := camelCase(op.OperationID) + suffix
				if other, ok := types[name]; ok {
					t.Errorf("%s %s: operationId %s makes the type %s, which %s has already", method, path, op.OperationID, name, other)
				}
				types[name] = "operation " + op.OperationID
			}
		}
	}
	// A union of types would be rewritten (schemagen.SplitTypeUnions, which
	// its tests hold to leaving none).
	v, err := schemagen.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := schemagen.SplitTypeUnions(v); err != nil {
		t.Fatal(err)
	}
	if again, _ := schemagen.Encode(v); !bytes.Equal(again, raw) {
		line := 1 + bytes.Count(raw[:commonPrefix(raw, again)], []byte("\n"))
		t.Errorf("a type union generators cannot read, at line %d", line)
	}
}

// camelCase is a name as oapi-codegen writes it in Go: each part between
// separators capitalised (post_base64: PostBase64).
func camelCase(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return strings.Join(parts, "")
}
