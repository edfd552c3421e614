package server

// APIRoutePaths lists the API table's paths (relative to a scope), for the
// test that holds the OpenAPI document to the router.
func APIRoutePaths() []string {
	var paths []string
	for _, rt := range newServer(Deps{}).apiRoutes() {
		paths = append(paths, rt.path)
	}
	return paths
}
