package cmd

import (
	"runtime/debug"
	"testing"

	"secutil/server"
)

func TestDescribeBuild(t *testing.T) {
	t.Parallel()
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "secutil", Version: "v0.0.0-20261123194410-6fb999a3c972+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "6fb999a3c972c9b1429385dbd7e871c20542ec26"},
			{Key: "vcs.time", Value: "2026-11-23T19:44:10Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		name    string
		info    *debug.BuildInfo
		ldflags string
		want    buildInfo
	}{
		{"release", vcs, "1.4.0", buildInfo{"1.4.0", "6fb999a3c972c9b1429385dbd7e871c20542ec26", "2026-11-23T19:44:10Z", "go1.26.8", true}},
		{"from a checkout", vcs, "", buildInfo{"v0.0.0-20261123194410-6fb999a3c972+dirty", "6fb999a3c972c9b1429385dbd7e871c20542ec26", "2026-11-23T19:44:10Z", "go1.26.8", true}},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", buildInfo{server.APIVersion + "-dev", "unknown", "unknown", "go1.26.8", false}},
	} {
		if got := describeBuild(tc.info, tc.ldflags); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
