package apiref

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

const document = `{
  "openapi": "3.1.0",
  "info": {"version": "1.2.3"},
  "paths": {
    "/api/v1/base64": {"x-aliases": ["/api/base64"], "post": {
      "summary": "Base64", "description": "Encodes or decodes.",
      "tags": ["utilities"], "security": [{"ApiKey": []}],
      "requestBody": {"content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Base64Request"},
        "example": {"text": "it's", "option": "encode"}}}},
      "responses": {
        "200": {"description": "the text", "content": {"application/json": {"schema": {
          "type": "object", "properties": {
            "result": {"type": ["string", "null"], "description": "the answer"},
            "hashes": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}}}}}},
        "400": {"$ref": "#/components/responses/BadRequest"}
      }}},
    "/range/{prefix}": {
      "parameters": [{"name": "prefix", "in": "path", "example": "5BAA6"}],
      "get": {"summary": "Range", "tags": ["range"], "responses": {"200": {"description": "hashes"}}}},
    "/login": {"post": {"tags": ["web"], "responses": {"200": {"description": "a page"}}}},
    "/metrics": {"get": {"tags": ["operations"], "security": [{"MetricsToken": []}], "responses": {}}}
  },
  "components": {
    "schemas": {"Base64Request": {"type": "object", "required": ["text"], "properties": {
      "text": {"type": "string", "description": "what to convert"},
      "option": {"type": "string", "enum": ["encode", "decode"]}}}},
    "responses": {"BadRequest": {"description": "a bad request"}}
  }
}`

func TestParse(t *testing.T) {
	t.Parallel()
	ref, err := Parse([]byte(document))
	if err != nil {
		t.Fatal(err)
	}
	utilities := []Route{{
		Method: "POST", Prefix: "/api/v1", Path: "/base64", Summary: "Base64", Description: "Encodes or decodes.", Auth: "X-API-Key header",
		Command: "curl -s -X POST", Target: "/api/v1/base64",
		Args: " \\\n     -H \"X-API-Key: $KEY\" \\\n     -H 'Content-Type: application/json' \\\n     -d '{\"text\":\"it'\\''s\",\"option\":\"encode\"}'",
		Request: []Field{
			// In the document's order, not sorted.
			{Name: "text", Type: "string, required", Description: "what to convert"},
			{Name: "option", Type: "string", Description: "one of: encode, decode."},
		},
		Response: []Field{{Name: "result", Type: "string or null", Description: "the answer"}, {Name: "hashes", Type: "array or string"}},
		Statuses: []Status{{Code: "200", Description: "the text"}, {Code: "400", Description: "a bad request"}},
	}}
	operations := []Route{{
		Method: "GET", Prefix: "", Path: "/metrics", Auth: "Authorization: Bearer <-metrics-token>",
		Command: "curl -s", Target: "/metrics", Args: " \\\n     -H \"Authorization: Bearer $METRICS_TOKEN\"",
	}}
	ranges := []Route{{
		Method: "GET", Prefix: "", Path: "/range/{prefix}", Summary: "Range", Auth: "none",
		Command: "curl -s", Target: "/range/5BAA6",
		Statuses: []Status{{Code: "200", Description: "hashes"}},
	}}
	want := &Reference{Version: "1.2.3", Groups: []Group{
		{Tag: "utilities", Title: "Utilities", Routes: utilities},
		{Tag: "range", Title: "Range API", Routes: ranges},
		{Tag: "operations", Title: "Operations", Routes: operations},
	}}
	if !reflect.DeepEqual(ref, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", ref, want)
	}
}

func TestParseRefusesBrokenDocuments(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"not JSON":          `{`,
		"unknown schema":    `{"paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}}}}`,
		"body not JSON":     `{"paths": {"/a": {"post": {"requestBody": {"content": {"text/plain": {}}}}}}}`,
		"unknown in answer": `{"paths": {"/a": {"get": {"responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/x/Nope"}}}}}}}}}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestParsesTheServedDocument: the document the server serves reads
// without error, and every route a program calls is in the reference.
func TestParsesTheServedDocument(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../../static/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/base64", "/password_check", "/range/{prefix}"} {
		found := false
		for _, rt := range routesOf(ref) {
			found = found || rt.Path == path
			if strings.Contains(rt.Target, "{") {
				t.Errorf("%s: the curl example has no value for a parameter: %s", rt.Path, rt.Target)
			}
		}
		if !found {
			t.Errorf("%s is not in the reference", path)
		}
	}
	// The groups the reference promises, in order, with no route left to
	// "Other".
	var tags []string
	for _, g := range ref.Groups {
		tags = append(tags, g.Tag)
	}
	if want := []string{"account", "utilities", "range", "admin", "billing", "operations"}; !reflect.DeepEqual(tags, want) {
		t.Errorf("groups %q, want %q", tags, want)
	}
}

func routesOf(ref *Reference) []Route {
	var all []Route
	for _, g := range ref.Groups {
		all = append(all, g.Routes...)
	}
	return all
}
