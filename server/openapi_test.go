package server_test

import (
	"bytes"
	"os"
	"testing"

	"secutil/server"
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
