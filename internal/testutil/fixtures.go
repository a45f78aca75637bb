package testutil

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/capture"
)

// The captured chains ship inside the repository as testdata/fixtures/<name>.tar.zst (see the
// README there), so a clone of the repository alone runs every test. capture.Dir unpacks each
// archive once per machine; the sync.Once below only saves a test binary re-hashing it.

var fixtureDirs sync.Map // name → *fixtureOnce

type fixtureOnce struct {
	once sync.Once
	dir  string
	err  error
}

// Fixture returns the directory of a captured chain or rollytics answer set, e.g. Fixture(t,
// "minievm"), unpacked from testdata/fixtures/<name>.tar.zst. A missing or unreadable archive
// fails the test: it is part of the repository, so its absence is a broken checkout, not an
// optional input.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	archive := filepath.Join(RepoRoot(t), "testdata", "fixtures", name+".tar.zst")
	v, _ := fixtureDirs.LoadOrStore(name, &fixtureOnce{})
	f := v.(*fixtureOnce)
	f.once.Do(func() { f.dir, f.err = capture.Dir(archive) })
	if f.err != nil {
		t.Fatalf("fixture %s: %v", name, f.err)
	}
	return f.dir
}

// Busy names the large capture (752 blocks, 89 MB unpacked). Under -short one package,
// internal/bench, owns it; the client and replay tests that also check it in the full suite
// list their captures with WithBusy, so the short tier replays it once instead of in every package.
const Busy = "minievm-busy"

// WithBusy returns names plus Busy, or names alone under -short.
func WithBusy(names ...string) []string {
	if testing.Short() {
		return names
	}
	return append(names[:len(names):len(names)], Busy)
}
