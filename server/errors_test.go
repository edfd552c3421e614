package server_test

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// TestErrorVocabularyDocumented holds /docs/errors and the OpenAPI
// document's Error schema to the table writeError answers from.
func TestErrorVocabularyDocumented(t *testing.T) {
	t.Parallel()
	codes := server.ErrorCodes()
	if len(codes) == 0 {
		t.Fatal("no error codes")
	}

	t.Run("docs page", func(t *testing.T) {
		page := html.UnescapeString(string(newEnv(t).request("GET", "/docs/errors", nil).want(200).body))
		for code, status := range codes {
			row := fmt.Sprintf("<tr><td>%d</td><td><code>%s</code></td>", status, code)
			if !strings.Contains(page, row) {
				t.Errorf("/docs/errors has no row %s", row)
			}
		}
		if rows := strings.Count(page, "<tr><td>"); rows != len(codes) {
			t.Errorf("/docs/errors has %d rows, the table %d codes", rows, len(codes))
		}
	})

	t.Run("openapi", func(t *testing.T) {
		raw, err := os.ReadFile("../static/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Components struct {
				Schemas struct {
					Error struct {
						Properties struct {
							Code struct {
								Enum []string `json:"enum"`
							} `json:"code"`
						} `json:"properties"`
					} `json:"Error"`
				} `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		enum := doc.Components.Schemas.Error.Properties.Code.Enum
		for code := range codes {
			if !slices.Contains(enum, code) {
				t.Errorf("the Error schema's code enum lacks %q", code)
			}
		}
		for _, code := range enum {
			if _, ok := codes[code]; !ok {
				t.Errorf("the Error schema's code enum has %q, which the server never sends", code)
			}
		}
	})
}

// TestEveryCodeSentIsInTheTable reads the server's source: every error
// code it can write is defined in the one table (errors.go), whether it
// goes through writeError or is spelled out in a literal body, and every
// code of the table is used somewhere, so /docs/errors lists no code the
// server never sends.
func TestEveryCodeSentIsInTheTable(t *testing.T) {
	t.Parallel()
	codes := server.ErrorCodes()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var source strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		source.Write(raw)
	}
	src := source.String()
	defined := regexp.MustCompile(`(code[A-Z]\w*)\s*= defineCode\("([a-z_]+)"`).FindAllStringSubmatch(src, -1)
	if len(defined) != len(codes) {
		t.Errorf("the source defines %d codes, the table has %d", len(defined), len(codes))
	}
	mentions := map[string]int{} // each codeX identifier, counted in one pass
	for _, name := range regexp.MustCompile(`\bcode[A-Z]\w*`).FindAllString(src, -1) {
		mentions[name]++
	}
	for _, d := range defined {
		if uses := mentions[d[1]] - 1; uses == 0 {
			t.Errorf("%s (%s) is in the table but never sent", d[2], d[1])
		}
	}
	literal := regexp.MustCompile(`\\?"code\\?":\s*\\?"([a-z_]+)|Code:\s*"([a-z_]+)"`)
	for _, m := range literal.FindAllStringSubmatch(src, -1) {
		code := m[1] + m[2]
		if _, ok := codes[code]; !ok {
			t.Errorf("the source sends the code %q, which the table does not define", code)
		}
	}
	if !strings.Contains(src, `"code":"internal_error"`) {
		t.Error("the literal fallback body of writeJSON was not found: this test reads literals no longer")
	}
}

// Text holding the NUL character cannot be stored (PostgreSQL's text has
// no room for it): a 400 naming it, nothing counted, on either backend.
func TestStoredTextWithNULIsABadRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanStarter)
	e.post("/api/v1/suggestion", map[string]string{"message": "a\x00b"}, "X-API-Key", key).wantError(400, "invalid_request")
	if m := e.post("/api/v1/user_info", nil, "X-API-Key", key).want(200).json(); m["api_usage"] != float64(0) {
		t.Fatalf("user_info after a refused suggestion: %v", m)
	}
	e.post("/login", map[string]string{"email": "a\x00b@example.com", "password": testPassword}).wantError(401, "invalid_credentials")
}

// TestErrorsPageNamesTheAnswersWithAnErrorField: /docs/errors names the
// utilities whose own answer has an "error" field, which are those whose
// success response in the OpenAPI document has one; the page takes them
// from the declarations, so a new utility needs no line there.
func TestErrorsPageNamesTheAnswersWithAnErrorField(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../static/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Ref        string                     `json:"$ref"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var doc struct {
		Paths map[string]struct {
			Post *struct {
				Responses map[string]struct {
					Content map[string]struct {
						Schema schema `json:"schema"`
					} `json:"content"`
				} `json:"responses"`
			} `json:"post"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, path := range server.APIPaths() {
		op := doc.Paths["/api/v1"+path].Post
		if op == nil {
			t.Fatalf("the document has no POST /api/v1%s", path)
		}
		s := op.Responses["200"].Content["application/json"].Schema
		if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
			s = doc.Components.Schemas[name]
		}
		if _, ok := s.Properties["error"]; ok {
			want = append(want, path)
		}
	}
	if len(want) < 6 {
		t.Fatalf("%d answers with an error field in the document (%v): not the utilities' six", len(want), want)
	}

	page := string(newEnv(t).request("GET", "/docs/errors", nil).want(200).body)
	_, list, _ := strings.Cut(page, "<p>Some tools (")
	list, _, _ = strings.Cut(list, ")")
	var named []string
	for _, m := range regexp.MustCompile(`<code>(/[a-z0-9_]+)</code>`).FindAllStringSubmatch(list, -1) {
		named = append(named, m[1])
	}
	slices.Sort(want)
	slices.Sort(named)
	if !slices.Equal(named, want) {
		t.Errorf("/docs/errors names %v as having an error field in their answer; the document: %v", named, want)
	}
}
