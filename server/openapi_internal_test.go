package server

import (
	"testing"

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
