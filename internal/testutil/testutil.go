// Package testutil holds helpers shared by the tests of several packages: the captured chains
// shipped in testdata/fixtures/, golden files, and throwaway PostgreSQL databases.
package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is set by `go test ./... -update` and makes Golden rewrite the files it compares.
var Update = flag.Bool("update", false, "rewrite golden files under testdata/")

// RepoRoot returns the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// Golden compares got with testdata/<name>, byte for byte. With -update it writes the file
// instead, so the change shows up in the diff for review.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("golden %s differs (run with -update and review the diff)\n--- got ---\n%s\n--- want ---\n%s", path, clip(got), clip(want))
	}
}

func clip(b []byte) []byte {
	if len(b) > 4000 {
		return append(b[:4000:4000], "…"...)
	}
	return b
}
