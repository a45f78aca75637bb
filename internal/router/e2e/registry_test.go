package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/testutil"
)

// copyDir is the committed copy of the devnet registry the router's golden tests run over.
func copyDir(t testing.TB) string {
	return filepath.Join(testutil.RepoRoot(t), "internal", "router", "registry", "testdata", "devnet")
}

// TestDevnetRegistryCopy checks the committed registry copy equals what the devnet writes now
// (URLs in their canonical layout); `go test ./internal/router/e2e -run TestDevnetRegistryCopy
// -update` rewrites it, after which the router goldens are regenerated with -update too.
func TestDevnetRegistryCopy(t *testing.T) {
	tn := startNet(t)
	got, err := tn.canonicalFiles(tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Load(tn.dir); err != nil {
		t.Fatalf("the router cannot load the devnet registry: %v", err)
	}
	dst := copyDir(t)
	if *testutil.Update {
		if err := os.RemoveAll(dst); err != nil {
			t.Fatal(err)
		}
		for name, b := range got {
			p := filepath.Join(dst, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string][]byte{}
	err = filepath.Walk(dst, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dst, p)
		want[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatalf("%v (run with -update to create the copy)", err)
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		g, w := got[n], want[n]
		switch {
		case w == nil:
			t.Errorf("%s: written by the devnet, missing from the copy (run with -update)", n)
		case g == nil:
			t.Errorf("%s: in the copy, no longer written by the devnet (run with -update)", n)
		case !bytes.Equal(g, w):
			t.Errorf("%s differs from what the devnet writes (run with -update and review):\n--- devnet ---\n%s", n, g)
		}
	}
	// The copy itself must load (the router goldens depend on it).
	if _, err := registry.Load(dst); err != nil {
		t.Errorf("committed copy: %v", err)
	}
}
