package archtest

import (
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rollgate/rollgate/internal/testutil"
)

// The repository must stand alone: every path a comment or a document names has to exist in a
// clone, and none may lead outside it. These are the trees a reference can point into.
var repoPath = regexp.MustCompile(`(?:^|[^\w@:/.\-])((?:\./)?(?:cmd|docs|internal|proto|scripts|testdata)/[\w.\-/]*)([<{*…]?)`)

// mdLink is a markdown link's target. climbing is a relative path that starts by going up: it
// must land on a file of the repository from where it is written, since from the root (where
// the documents' commands run) it leaves the repository. hostPath is an absolute path into a
// machine's home or work folders, which no clone has.
var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	climbing = regexp.MustCompile(`(?:^|[^\w./\-])((?:\.\./)+[\w.\-]+(?:/[\w.\-]*)*)`)
	hostPath = regexp.MustCompile(`(?:^|[\s"'(=\x60])(/(?:home|root|Users|mnt|srv|work|workspace)/[\w.\-/]*)`)
	// goIdent ends a package path naming one of its identifiers (`internal/testutil.Fixture`).
	goIdent = regexp.MustCompile(`\.[A-Z]\w*$`)
)

// linkedFiles lists the files the check reads: every tracked (or, without git, present) .go and
// .md file, except generated protobuf code and captured data, where paths are data.
func linkedFiles(fsys fs.FS, tracked []string) []string {
	if tracked == nil {
		_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			if !d.IsDir() {
				tracked = append(tracked, p)
			}
			return nil
		})
	}
	var out []string
	for _, p := range tracked {
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".pb.go") {
			continue
		}
		if strings.Contains("/"+p, "/testdata/") && path.Base(p) != "README.md" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// textLines is what the check reads of a file, line by line: a document whole (fenced code
// included: its commands must run in a clone), a Go file's comments only (its strings are code,
// which its own tests exercise).
func textLines(name string, src []byte) map[int]string {
	lines := map[int]string{}
	if !strings.HasSuffix(name, ".go") {
		for i, l := range strings.Split(string(src), "\n") {
			lines[i+1] = l
		}
		return lines
	}
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return lines
		}
		if tok != token.COMMENT {
			continue
		}
		first := fset.Position(pos).Line
		for i, l := range strings.Split(lit, "\n") {
			lines[first+i] += l + " "
		}
	}
}

// deadLinks reports, as file:line, every path in files that names something outside the
// repository or that does not exist in fsys (tried next to the file, then from the root).
func deadLinks(fsys fs.FS, files []string) []string {
	var exists func(dir, p string) bool
	exists = func(dir, p string) bool {
		for _, base := range []string{dir, "."} {
			full := path.Join(base, p)
			if !strings.HasPrefix(full, "../") && full != ".." {
				if _, err := fs.Stat(fsys, full); err == nil {
					return true
				}
			}
		}
		return goIdent.MatchString(p) && exists(dir, goIdent.ReplaceAllString(p, ""))
	}
	var out []string
	for _, name := range files {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		dir := path.Dir(name)
		lines := textLines(name, src)
		nums := make([]int, 0, len(lines))
		for n := range lines {
			nums = append(nums, n)
		}
		slices.Sort(nums)
		for _, n := range nums {
			line := lines[n]
			bad := func(format string, a ...any) {
				out = append(out, fmt.Sprintf("%s:%d: ", name, n)+fmt.Sprintf(format, a...))
			}
			for _, m := range climbing.FindAllStringSubmatchIndex(line, -1) {
				p := line[m[2]:m[3]]
				if strings.HasSuffix(line[:m[2]], "](") {
					continue // a link: checked below, relative to its file
				}
				if full := path.Join(dir, strings.TrimRight(p, "./")); strings.HasPrefix(full, "../") || full == ".." {
					bad("%s is outside the repository", p)
				} else if _, err := fs.Stat(fsys, full); err != nil {
					bad("%s is outside the repository (from the root) and names nothing next to the file", p)
				}
			}
			for _, m := range hostPath.FindAllStringSubmatch(line, -1) {
				bad("%s is outside the repository", m[1])
			}
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				p := strings.TrimSuffix(strings.TrimRight(m[1], "."), "/...")
				p = strings.TrimRight(strings.TrimPrefix(p, "./"), ".")
				if m[2] != "" { // a pattern (`testdata/fixtures/<name>.tar.zst`): its folder must exist
					p = p[:strings.LastIndex(p, "/")+1]
				}
				if p = strings.TrimSuffix(p, "/"); !exists(dir, p) {
					bad("%s does not exist", m[1])
				}
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target, _, _ := strings.Cut(m[1], "#")
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if full := path.Join(dir, target); strings.HasPrefix(full, "../") || full == ".." {
					bad("link %s leads outside the repository", m[1])
				} else if _, err := fs.Stat(fsys, full); err != nil {
					bad("link %s does not exist", m[1])
				}
			}
		}
	}
	return out
}

func TestLinksExist(t *testing.T) {
	root := testutil.RepoRoot(t)
	var tracked []string
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if raw, err := cmd.Output(); err == nil {
		for _, p := range bytes.Split(bytes.TrimRight(raw, "\x00"), []byte{0}) {
			tracked = append(tracked, string(p))
		}
	} else {
		t.Logf("git ls-files: %v; checking every file under %s", err, root)
	}
	fsys := os.DirFS(root)
	files := linkedFiles(fsys, tracked)
	if len(files) < 100 {
		t.Fatalf("only %d files to check: the file list is wrong", len(files))
	}
	for _, p := range deadLinks(fsys, files) {
		t.Error(p)
	}
}

func TestDeadLinks(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/a.md":                     {Data: []byte("# A\n")},
		"docs/b/c.md":                   {Data: []byte("x\n")},
		"internal/x/x.go":               {Data: []byte("package x\n")},
		"internal/x/testdata/t.json":    {Data: []byte("{}\n")},
		"testdata/fixtures/one.tar.zst": {Data: []byte{}},
	}
	for _, c := range []struct {
		name, file, text string
		want             []string // substrings of the problems, in order; none: clean
	}{
		{"doc path", "README.md", "see docs/a.md.\n", nil},
		{"dead doc path", "README.md", "ok\nsee `docs/gone.md`\n", []string{"README.md:2: docs/gone.md does not exist"}},
		{"package identifier", "docs/a.md", "`internal/x.New` unpacks it\n", nil},
		{"dead package identifier", "docs/a.md", "`internal/y.New`\n", []string{"internal/y.New does not exist"}},
		{"package dir and go pattern", "docs/a.md", "`go test ./internal/x/...` and internal/x\n", nil},
		{"dead package", "docs/a.md", "go test ./internal/y/...\n", []string{"docs/a.md:1: ./internal/y/... does not exist"}},
		{"placeholder", "docs/a.md", "testdata/fixtures/<name>.tar.zst\n", nil},
		{"placeholder in a dead folder", "docs/a.md", "testdata/capture/<name>.tar.zst\n", []string{"testdata/capture/ does not exist"}},
		{"relative link", "docs/b/c.md", "[a](../a.md#top) [web](https://x.y/docs/none.md) [s](#x)\n", nil},
		{"dead link", "docs/b/c.md", "[a](a.md)\n", []string{"docs/b/c.md:1: link a.md does not exist"}},
		{"link out of the tree", "README.md", "[spec](../spec/x.md)\n", []string{"leads outside the repository"}},
		{"a folder beside the clone", "docs/a.md", "(../elsewhere/reference/n.md)\n", []string{"../elsewhere/reference/n.md is outside"}},
		{"a folder beside the clone in a command", "docs/a.md", "ROLLGATE_X=../elsewhere go test\n", []string{"../elsewhere is outside"}},
		{"climbing out of a Go package", "internal/x/x_test.go", "package x\n\n// see ../../../notes/n.md\n", []string{"../../../notes/n.md is outside"}},
		{"a relative mention of a sibling file", "docs/b/c.md", "as ../a.md says\n", nil},
		{"a host path", "docs/a.md", "fixture /home/dev/x/y\n", []string{"/home/dev/x/y is outside"}},
		{"an API path", "docs/a.md", "GET /indexer/tx/v1/txs and /tmp/out\n", nil},
		{"another repository's path", "docs/a.md", "`skip-mev/skip-go@abc:docs/general/x.mdx`\n", nil},
		{"package-relative testdata in a comment", "internal/x/x_test.go", "package x\n\n// reads testdata/t.json\nvar s = \"docs/none.md\"\n", nil},
		{"dead path in a Go comment", "internal/x/x_test.go", "package x\n\n/* a\n   b: docs/none.md */\n", []string{"internal/x/x_test.go:4: docs/none.md does not exist"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fstest.MapFS{}
			for k, v := range fsys {
				f[k] = v
			}
			f[c.file] = &fstest.MapFile{Data: []byte(c.text)}
			got := deadLinks(f, []string{c.file})
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %d problems like %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestLinkedFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                      {},
		"docs/a.md":                      {},
		"internal/x/x.go":                {},
		"internal/x/x.pb.go":             {},
		"internal/x/testdata/golden.md":  {},
		"testdata/fixtures/README.md":    {},
		".git/HEAD.md":                   {},
		"scripts/node_modules/m/read.md": {},
		"go.mod":                         {},
	}
	want := []string{"README.md", "docs/a.md", "internal/x/x.go", "testdata/fixtures/README.md"}
	if got := linkedFiles(fsys, nil); !slices.Equal(got, want) {
		t.Errorf("walk: %q, want %q", got, want)
	}
	if got := linkedFiles(fsys, []string{"docs/a.md", "internal/x/x.pb.go", "go.mod"}); !slices.Equal(got, []string{"docs/a.md"}) {
		t.Errorf("tracked: %q", got)
	}
}
