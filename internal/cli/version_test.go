package cli

import (
	"runtime/debug"
	"testing"
)

func TestStamp(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}
	tests := []struct {
		name     string
		ldflags  Build
		main     string
		settings []debug.BuildSetting
		want     Build
	}{
		{"installed as a module", Build{"dev", "unknown"}, "v1.4.0", nil, Build{"v1.4.0", "unknown"}},
		{"built from a checkout", Build{"dev", "unknown"}, "(devel)", vcs, Build{"dev", "abc123"}},
		{"checkout with edits", Build{"dev", "unknown"}, "(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}, Build{"dev", "abc123-dirty"}},
		{"pseudo-version and revision", Build{"dev", "unknown"}, "v0.0.0-20261124113900-abc123456789", vcs, Build{"v0.0.0-20261124113900-abc123456789", "abc123"}},
		{"ldflags win", Build{"v2.0.0", "fff"}, "v1.4.0", vcs, Build{"v2.0.0", "fff"}},
		{"nothing known", Build{"dev", "unknown"}, "", nil, Build{"dev", "unknown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stamp(tc.ldflags, &debug.BuildInfo{Main: debug.Module{Version: tc.main}, Settings: tc.settings})
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
