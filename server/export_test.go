package server

// APIPaths lists the API routes (relative to a scope) for black-box tests
// that must cover every route.
func APIPaths() []string {
	var paths []string
	for _, rt := range (&Server{}).apiRoutes() {
		paths = append(paths, rt.path)
	}
	return paths
}
