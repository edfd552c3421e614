package main

import (
	"strings"
	"testing"
)

// TestExtractRefusesOtherTarballs: only the pinned tarball is read.
func TestExtractRefusesOtherTarballs(t *testing.T) {
	t.Parallel()
	if _, err := extract([]byte("not the pinned package")); err == nil || !strings.Contains(err.Error(), "not the pinned "+tarballSHA256) {
		t.Fatalf("extract of another tarball: %v", err)
	}
}
