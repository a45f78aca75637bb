package cli

import "runtime/debug"

// StampedBuild fills what -ldflags left at its defaults ("dev", "unknown") from the build
// information the Go toolchain embeds: the module version when the binary was installed as a
// module (`go install github.com/rollgate/rollgate/cmd/rollgate@v1.2.3`), the VCS revision when
// built from a checkout.
func StampedBuild(b Build) Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	return stamp(b, info)
}

func stamp(b Build, info *debug.BuildInfo) Build {
	if b.Version == "" || b.Version == "dev" {
		// "(devel)" is what the toolchain records for a build from a checkout: no version.
		if v := info.Main.Version; v != "" && v != "(devel)" {
			b.Version = v
		}
	}
	if b.Commit == "" || b.Commit == "unknown" {
		rev, dirty := "", false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			b.Commit = rev
			if dirty {
				b.Commit += "-dirty"
			}
		}
	}
	return b
}
