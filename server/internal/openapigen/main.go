// Command openapigen writes the server's OpenAPI document
// (server.OpenAPIDocument) to the file it is given: `go generate ./server`
// runs it for static/openapi.json.
package main

import (
	"fmt"
	"os"

	"secutil/server"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: openapigen FILE")
		os.Exit(2)
	}
	doc, err := server.OpenAPIDocument()
	if err == nil {
		err = os.WriteFile(os.Args[1], doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}
