// Package capture locates captured chains: the recorded RPC, REST and JSON-RPC answers of a real
// node that internal/chain/replay serves again, kept as a directory or as the .tar.zst archive the
// repository ships (testdata/fixtures).
package capture

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// A captured chain ships as <name>.tar.zst (a tar of the directory <name>/, see
// testdata/fixtures/README.md). The replay server reads a plain directory, so an archive is
// unpacked once per machine into a directory named after the archive's hash: a changed archive
// gets a fresh directory, and concurrent processes never see a half-written one because the
// unpacking happens in a temporary directory renamed into place.

// Dir returns the directory of a captured chain given either that directory or its
// <name>.tar.zst archive, unpacking the archive under the machine's temporary directory unless
// an earlier call (of any process) already did.
func Dir(p string) (string, error) {
	name, ok := strings.CutSuffix(filepath.Base(p), ".tar.zst")
	if !ok {
		if fi, err := os.Stat(p); err != nil {
			return "", err
		} else if !fi.IsDir() {
			return "", fmt.Errorf("%s: neither a capture directory nor a .tar.zst archive", p)
		}
		return p, nil
	}
	return unpack(p, name)
}

// unpack unpacks archive (a tar of the directory <name>/) under the machine's
// temporary directory, unless an earlier run already did, and returns <cache>/<name>.
func unpack(archive, name string) (string, error) {
	sum, err := fileSHA256(archive)
	if err != nil {
		return "", err
	}
	root := filepath.Join(os.TempDir(), "rollgate-fixtures", name+"-"+sum[:16])
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), name+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := untarZstd(archive, tmp, name); err != nil {
		return "", fmt.Errorf("unpack %s: %w", archive, err)
	}
	if err := os.Rename(tmp, root); err != nil {
		// Another test binary unpacked the same archive first: use its copy.
		if _, statErr := os.Stat(dir); statErr == nil {
			return dir, nil
		}
		return "", err
	}
	return dir, nil
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// untarZstd writes the regular files and directories of the archive under dst. Every entry
// must lie under name/: the archives are built that way (testdata/fixtures/README.md), and the
// check keeps a malformed archive from writing outside dst.
func untarZstd(archive, dst, name string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	files := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		clean := path.Clean(h.Name)
		if clean != name && !strings.HasPrefix(clean, name+"/") {
			return fmt.Errorf("entry %q is outside %s/", h.Name, name)
		}
		target := filepath.Join(dst, filepath.FromSlash(clean))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(target, tr, 0o644); err != nil {
				return err
			}
			files++
		default:
			return fmt.Errorf("entry %q: unsupported type %c", h.Name, h.Typeflag)
		}
	}
	if files == 0 {
		return fmt.Errorf("no files in the archive")
	}
	return nil
}

func writeFile(target string, r io.Reader, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
