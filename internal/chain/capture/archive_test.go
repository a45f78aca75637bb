package capture

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// writeArchive builds a .tar.zst holding the given files (path → content).
func writeArchive(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the unpacked copies land under os.TempDir()
	src := t.TempDir()
	plain := filepath.Join(src, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(src, "chain.tar.zst")
	writeArchive(t, good, map[string]string{"chain/index.jsonl": "{}\n", "chain/r/1.json": "[1]"})
	escape := filepath.Join(src, "evil.tar.zst")
	writeArchive(t, escape, map[string]string{"evil/ok": "x", "../outside": "x"})
	empty := filepath.Join(src, "none.tar.zst")
	writeArchive(t, empty, map[string]string{})
	file := filepath.Join(src, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, in string
		wantErr  string // empty: must succeed
		wantFile string // relative to the returned directory
	}{
		{name: "a directory is used as is", in: plain},
		{name: "an archive is unpacked", in: good, wantFile: "r/1.json"},
		{name: "the second call reuses the unpacked copy", in: good, wantFile: "index.jsonl"},
		{name: "an entry outside name/ is refused", in: escape, wantErr: "outside"},
		{name: "an empty archive is refused", in: empty, wantErr: "no files"},
		{name: "a plain file is neither", in: file, wantErr: "neither"},
		{name: "a missing path", in: filepath.Join(src, "missing"), wantErr: "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := Dir(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Dir(%s) = %q, %v; want an error containing %q", tc.in, dir, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantFile == "" {
				if dir != tc.in {
					t.Fatalf("Dir(%s) = %s", tc.in, dir)
				}
				return
			}
			if filepath.Base(dir) != "chain" {
				t.Fatalf("unpacked into %s, want a directory named chain", dir)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.wantFile)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
