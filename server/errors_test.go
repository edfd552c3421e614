package server_test

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"slices"
	"strings"
	"testing"

	"secutil/server"
)

// TestErrorVocabularyDocumented holds /docs/errors and the OpenAPI
// document's Error schema to the table writeError answers from.
func TestErrorVocabularyDocumented(t *testing.T) {
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
