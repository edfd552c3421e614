package server

import (
	"bytes"
	"os"
	"testing"
	"testing/fstest"
)

// TestPagesAreParsedOncePerContent: servers made from the same assets
// share one parse, and a change to any template gives new pages that show
// it (the cache never serves pages of other content).
func TestPagesAreParsedOncePerContent(t *testing.T) {
	t.Parallel()
	assets, err := AssetsInMemory(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	first, err := loadPages(assets)
	if err != nil {
		t.Fatal(err)
	}
	again, err := loadPages(assets)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Error("the same assets were parsed twice")
	}

	const marker = "changed for the cache test"
	changed := fstest.MapFS{}
	for name, f := range assets {
		changed[name] = f
	}
	changed["templates/docs/terms.html"] = &fstest.MapFile{Data: bytes.Replace(assets["templates/docs/terms.html"].Data, []byte("without warranty"), []byte(marker), 1)}
	other, err := loadPages(changed)
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Fatal("changed assets got the pages of the old ones")
	}
	var page bytes.Buffer
	if err := other.templates["docs/terms"].ExecuteTemplate(&page, "base", view[noData]{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page.Bytes(), []byte(marker)) {
		t.Error("the page parsed from the changed assets does not show the change")
	}

	delete(changed, "templates/docs/terms.html")
	if _, err := loadPages(changed); err == nil {
		t.Error("assets without a doc page's template loaded")
	}
}

func TestSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                      "",
		"no API key":            "No API key.",
		"did you mean /tools?":  "Did you mean /tools?",
		"done.":                 "Done.",
		"ünïcode first":         "Ünïcode first.",
		"JSON is not an object": "JSON is not an object.",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}
