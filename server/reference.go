package server

import (
	"net/http"

	"secutil/server/internal/apiref"
)

// apiReference is the readable form of openapi.json that /docs shows
// (read by apiref).
type apiReference = apiref.Reference

func newAPIReference(openAPI []byte) (*apiReference, error) { return apiref.Parse(openAPI) }

// handleOpenAPI serves the OpenAPI document the reference is made from.
func (s *Server) handleOpenAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(s.pages.openAPI)
	})
}

// handleReference renders the API reference at /docs.
func (s *Server) handleReference() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := newView(s, r, s.pages.reference)
		v.Path = "/docs"
		render(s, w, r, http.StatusOK, "docs_index", v)
	})
}
