package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secutil/server"
)

// TestEveryUtilityIsInItsPanelsFile: a utility's request and response
// types and its action are in utility_<panel>.go, named for the panel of
// the utilities page its declaration names (the rule CONTRIBUTING.md's
// "Adding a utility" gives), and every such file belongs to a panel.
func TestEveryUtilityIsInItsPanelsFile(t *testing.T) {
	t.Parallel()
	panels := map[string]bool{}
	for path, panel := range server.UtilityPanels() {
		panels[panel] = true
		if _, err := os.Stat("utility_" + panel + ".go"); err != nil {
			t.Errorf("%s is shown in panel %q, but there is no utility_%s.go: %v", path, panel, panel, err)
		}
	}
	files, err := filepath.Glob("utility_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if panel := strings.TrimSuffix(strings.TrimPrefix(f, "utility_"), ".go"); !panels[panel] {
			t.Errorf("%s: no utility is shown in a panel %q", f, panel)
		}
	}
}
