package server

// APIPaths lists the API table's paths (relative to a scope), for tests that
// must cover every route and hold the OpenAPI document to the router.
func APIPaths() []string {
	var paths []string
	for _, rt := range newServer(Deps{}).apiRoutes() {
		paths = append(paths, rt.path)
	}
	return paths
}
