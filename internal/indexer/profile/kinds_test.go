package profile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kindWords are the VM kinds' spellings (chain/vmkind).
var kindWords = map[string]bool{"evm": true, "move": true, "wasm": true}

// kindExempt are the trees allowed to compare kind spellings: the kinds themselves and this
// profile. The simulated network is held to the rule too: its chain kind is vmkind.Kind, and
// its VMs name the event types and codespaces spelled as a kind.
var kindExempt = []string{"internal/chain/vmkind", "internal/indexer/profile"}

// kindComparisons lists, as file:line: text, every comparison of a string literal spelled as
// a VM kind: an operand of == or !=, or a value of a switch case. Event types that happen to be
// spelled so get named constants, so that what is left is a kind compared as a string.
func kindComparisons(fset *token.FileSet, f *ast.File) []string {
	var out []string
	isKind := func(e ast.Expr) bool {
		lit, ok := ast.Unparen(e).(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		s, err := strconv.Unquote(lit.Value)
		return err == nil && kindWords[s]
	}
	report := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isKind(n.X) || isKind(n.Y)) {
				report(n, "kind spelled as a string in "+n.Op.String())
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isKind(e) {
					report(e, "kind spelled as a string in a case")
				}
			}
		}
		return true
	})
	return out
}

// TestNoKindStringComparisons: outside the kinds and this profile, no Go file (tests
// included) compares a VM kind as a string; they compare vmkind.Kind values, so the set of
// kinds and what each one runs stay in one place.
func TestNoKindStringComparisons(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found from the package directory: %v", err)
	}
	fset := token.NewFileSet()
	files := 0
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			name := d.Name()
			if (strings.HasPrefix(name, ".") && path != root) || name == "testdata" || name == "vendor" {
				return filepath.SkipDir
			}
			for _, ex := range kindExempt {
				if rel == ex {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, c := range kindComparisons(fset, f) {
			found = append(found, strings.TrimPrefix(c, root+string(filepath.Separator)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files read under %s: the walk missed the tree", files, root)
	}
	if len(found) > 0 {
		t.Errorf("VM kinds compared as strings (use chain/vmkind, or name the event type):\n%s", strings.Join(found, "\n"))
	}
}

// TestKindCheckerCatches: the checker finds kinds compared as strings in every form, and
// leaves alone typed kinds, named event types and other strings.
func TestKindCheckerCatches(t *testing.T) {
	const src = `package x

const eventEVM = "evm"

func f(vm string, k Kind, typ string) {
	if vm == "evm" {}          // caught
	if "move" != vm {}         // caught
	switch vm {
	case "", "wasm":           // caught
	case "cosmos":
	}
	if k == EVM {}             // typed: fine
	if typ == eventEVM {}      // named event type: fine
	if vm == "evmos" {}        // another word: fine
	x := map[string]int{"evm": 1} // not a comparison: fine
	_ = x
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := kindComparisons(fset, f)
	want := []string{
		"planted.go:6:5: kind spelled as a string in ==",
		"planted.go:7:5: kind spelled as a string in !=",
		"planted.go:9:11: kind spelled as a string in a case",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checker found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
