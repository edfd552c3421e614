package server

import (
	"io/fs"
	"net/http"
	"os"
	"testing/fstest"
)

// APIPaths lists the API table's paths (relative to a scope), for tests that
// must cover every route and hold the OpenAPI document to the router.
func APIPaths() []string {
	var paths []string
	s, err := newServer(Deps{Assets: os.DirFS("..")})
	if err != nil {
		panic(err)
	}
	for _, rt := range s.apiRoutes() {
		paths = append(paths, rt.path)
	}
	return paths
}

// UtilityPanels maps each utility's path to its panel of the utilities
// page, as declared.
func UtilityPanels() map[string]string {
	panels := map[string]string{}
	for _, u := range utilities {
		panels[u.path] = u.panel
	}
	return panels
}

// patternList records the patterns routes registers.
type patternList []string

func (l *patternList) Handle(pattern string, _ http.Handler) { *l = append(*l, pattern) }

// RoutePatterns is every pattern of the router ("POST /api/base64"), for
// the test that holds the OpenAPI document to it.
func RoutePatterns() []string {
	s, err := newServer(Deps{Assets: os.DirFS("..")})
	if err != nil {
		panic(err)
	}
	var l patternList
	s.routes(&l)
	return l
}

// ErrorCodes is the error vocabulary: each code and its one status.
func ErrorCodes() map[string]int {
	codes := map[string]int{}
	for _, c := range errorCodes {
		codes[c.Name] = c.Status
	}
	return codes
}

// AssetsInMemory copies the files under templates/ and static/ of root
// (what a server reads of its Assets) into memory, so that the many
// servers of a test process read them without a system call.
func AssetsInMemory(root fs.FS) (fstest.MapFS, error) {
	assets := fstest.MapFS{}
	for _, dir := range []string{"templates", "static"} {
		err := fs.WalkDir(root, dir, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			body, err := fs.ReadFile(root, name)
			assets[name] = &fstest.MapFile{Data: body}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return assets, nil
}

// LargestAnswer bounds the largest answer a utility gives (respond.go).
const LargestAnswer = largestAnswer
