// Package web holds the embedded templates and static assets of secutil's
// pages, so the binary serves them with no files beside it.
package web

import "embed"

// FS holds templates/ (html/template sources: base.html and one file per
// page), static/ (CSS, JS, icon) and openapi.json (the API reference).
//
//go:embed templates static openapi.json
var FS embed.FS
