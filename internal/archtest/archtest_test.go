package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

const mod = "github.com/rollgate/rollgate/"

// pkg is what the rules need of `go list -json`: the package's own imports and everything it
// depends on, both without its tests, and the imports of its tests (in-package and external),
// which only rules that say so look at.
type pkg struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// rule is one line of ARCHITECTURE.md's rules: no package that applies imports (directly, or
// through any other package when transitive; with tests, also from its test files) a package
// that forbidden matches.
type rule struct {
	name       string
	applies    func(p string) bool
	forbidden  func(dep string) bool
	transitive bool
	tests      bool
}

func under(prefixes ...string) func(string) bool {
	return func(p string) bool {
		p = strings.TrimPrefix(p, mod)
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

func not(f func(string) bool) func(string) bool { return func(p string) bool { return !f(p) } }

// apiLayer is the one layer that turns domain errors into HTTP errors.
var apiLayer = under("internal/httpapi", "internal/indexer/api", "internal/router/api")

// belowFacade is the simulator behind internal/devnet: every package under it. Go's internal
// rule already fences internal/devnet/internal/...; this also covers any package added beside it.
func belowFacade(p string) bool {
	return under("internal/devnet")(p) && strings.TrimPrefix(p, mod) != "internal/devnet"
}

var rules = []rule{
	{"nothing imports cmd/ or internal/cli", not(under("cmd")), under("cmd", "internal/cli"), false, false},
	{"the indexer API never depends on the ingest pipeline", under("internal/indexer/api"), under("internal/indexer/ingest"), true, false},
	{"the ingest pipeline never depends on the indexer API", under("internal/indexer/ingest"), under("internal/indexer/api"), true, false},
	{"outside tests, only internal/cli depends on the devnet", not(under("cmd", "internal/cli", "internal/devnet")), under("internal/devnet"), true, false},
	{"product code and its tests reach the simulator only through its façade, internal/devnet", not(under("internal/devnet")), belowFacade, false, true},
	{"only the API layer builds HTTP errors (imports internal/apierr)", not(apiLayer), under("internal/apierr"), false, false},
	{"router packages never depend on the indexer's store", under("internal/router"), under("internal/store"), true, false},
	{"the one SQL layer depends on neither store", under("internal/sqldb"), under("internal/store", "internal/router"), true, false},
	{"the router's Go client never depends on its server", under("internal/router/client"), under("internal/router/api"), true, false},
}

// violations lists, per rule, the packages that break it and what they import.
func violations(pkgs []pkg, rules []rule) []string {
	var out []string
	for _, r := range rules {
		for _, p := range pkgs {
			if !r.applies(p.ImportPath) || r.forbidden(p.ImportPath) {
				continue
			}
			deps := p.Imports
			if r.transitive {
				deps = p.Deps
			}
			if r.tests {
				deps = slices.Concat(deps, p.TestImports, p.XTestImports)
			}
			for _, d := range deps {
				if strings.HasPrefix(d, mod) && r.forbidden(d) {
					out = append(out, fmt.Sprintf("%s: %s imports %s", r.name, strings.TrimPrefix(p.ImportPath, mod), strings.TrimPrefix(d, mod)))
				}
			}
		}
	}
	return out
}

func TestImportRules(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...")
	cmd.Dir = testutil.RepoRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	// Guard against a listing that silently covers nothing (a wrong directory, a changed
	// module path): every rule must apply to at least one package.
	for _, r := range rules {
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return r.applies(p.ImportPath) && !r.forbidden(p.ImportPath) }) {
			t.Errorf("rule %q applies to no package", r.name)
		}
	}
	for _, v := range violations(pkgs, rules) {
		t.Error(v)
	}
}

// TestViolations checks the checker itself on made-up packages: each rule catches its case.
func TestViolations(t *testing.T) {
	tests := []struct {
		name string
		pkg  pkg
		want int
	}{
		{"clean api", pkg{ImportPath: mod + "internal/indexer/api", Imports: []string{mod + "internal/apierr", mod + "internal/store"}, Deps: []string{mod + "internal/apierr", mod + "internal/store"}}, 0},
		{"api through a helper reaches ingest", pkg{ImportPath: mod + "internal/indexer/api", Imports: []string{mod + "internal/x"}, Deps: []string{mod + "internal/x", mod + "internal/indexer/ingest"}}, 1},
		{"ingest imports the api", pkg{ImportPath: mod + "internal/indexer/ingest", Imports: []string{mod + "internal/indexer/api"}, Deps: []string{mod + "internal/indexer/api"}}, 1},
		{"store depends on the devnet", pkg{ImportPath: mod + "internal/store", Imports: []string{mod + "internal/x"}, Deps: []string{mod + "internal/x", mod + "internal/devnet/engine"}}, 1},
		{"cli uses the devnet", pkg{ImportPath: mod + "internal/cli", Imports: []string{mod + "internal/devnet"}, Deps: []string{mod + "internal/devnet", mod + "internal/devnet/internal/engine"}}, 0},
		{"cli reaches below the façade", pkg{ImportPath: mod + "internal/cli", Imports: []string{mod + "internal/devnet/localnet"}, Deps: []string{mod + "internal/devnet/localnet"}}, 1},
		{"a product test uses the façade", pkg{ImportPath: mod + "internal/router/e2e", TestImports: []string{mod + "internal/devnet"}, XTestImports: []string{mod + "internal/devnet"}}, 0},
		{"a product test imports the engine", pkg{ImportPath: mod + "internal/indexer/devnettest", TestImports: []string{mod + "internal/devnet", mod + "internal/devnet/internal/engine"}}, 1},
		{"an external product test imports a VM", pkg{ImportPath: mod + "internal/cli", XTestImports: []string{mod + "internal/devnet/vm/evm"}}, 1},
		{"the façade's own tests reach below it", pkg{ImportPath: mod + "internal/devnet", Imports: []string{mod + "internal/devnet/internal/engine"}, Deps: []string{mod + "internal/devnet/internal/engine"}, TestImports: []string{mod + "internal/devnet/internal/sim"}}, 0},
		{"the simulator's tests reach anywhere in it", pkg{ImportPath: mod + "internal/devnet/internal/bridge", XTestImports: []string{mod + "internal/devnet/internal/bridge/relayer"}}, 0},
		{"router route builds HTTP errors", pkg{ImportPath: mod + "internal/router/route", Imports: []string{mod + "internal/apierr"}, Deps: []string{mod + "internal/apierr"}}, 1},
		{"store imports the cli", pkg{ImportPath: mod + "internal/store", Imports: []string{mod + "internal/cli"}, Deps: []string{mod + "internal/cli"}}, 1},
		{"tracker classifies through the indexer's store", pkg{ImportPath: mod + "internal/router/track", Imports: []string{mod + "internal/store"}, Deps: []string{mod + "internal/store", mod + "internal/sqldb"}}, 1},
		{"tracker on the SQL layer", pkg{ImportPath: mod + "internal/router/track", Imports: []string{mod + "internal/sqldb"}, Deps: []string{mod + "internal/sqldb"}}, 0},
		{"router API reaches the store through a helper", pkg{ImportPath: mod + "internal/router/api", Imports: []string{mod + "internal/x"}, Deps: []string{mod + "internal/x", mod + "internal/store/storetest"}}, 1},
		{"router client imports the server", pkg{ImportPath: mod + "internal/router/client", Imports: []string{mod + "internal/router/api"}, Deps: []string{mod + "internal/router/api"}}, 1},
		{"router client on the wire bodies", pkg{ImportPath: mod + "internal/router/client", Imports: []string{mod + "internal/router/wire"}, Deps: []string{mod + "internal/router/wire"}}, 0},
		{"SQL layer imports the tracker", pkg{ImportPath: mod + "internal/sqldb", Imports: []string{mod + "internal/router/track"}, Deps: []string{mod + "internal/router/track"}}, 1},
		{"SQL layer imports the store", pkg{ImportPath: mod + "internal/sqldb", Imports: []string{mod + "internal/store"}, Deps: []string{mod + "internal/store"}}, 1},
		{"outside dependency", pkg{ImportPath: mod + "internal/store", Imports: []string{"github.com/jackc/pgx/v5"}, Deps: []string{"github.com/jackc/pgx/v5"}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := violations([]pkg{tc.pkg}, rules); len(got) != tc.want {
				t.Errorf("%d violations, want %d: %q", len(got), tc.want, got)
			}
		})
	}
}

// TestArchitectureListsEveryPackage holds docs/ARCHITECTURE.md's package table to the tree:
// every package of the module appears in it. A row names its first package in full and may
// name more relative to that one's parent directories (`internal/router/registry`, `route`),
// or a whole subtree with `/...`.
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := testutil.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed, subtrees := documentedPackages(string(doc))
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, p := range strings.Fields(string(out)) {
		p = strings.TrimPrefix(p, mod)
		n++
		if listed[p] || slices.ContainsFunc(subtrees, func(s string) bool { return strings.HasPrefix(p, s+"/") }) {
			continue
		}
		t.Errorf("package %s is not in docs/ARCHITECTURE.md's table", p)
	}
	if n < 20 {
		t.Fatalf("go list found only %d packages", n)
	}
}

// documentedPackages reads the package table: the backquoted names of each row's first cell.
func documentedPackages(doc string) (listed map[string]bool, subtrees []string) {
	listed = map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		var names []string
		for i, part := range strings.Split(cell, "`") {
			if i%2 == 1 {
				names = append(names, part)
			}
		}
		first := names[0]
		for _, name := range names {
			var candidates []string
			if name == first || strings.HasPrefix(name, "internal/") || strings.HasPrefix(name, "cmd/") {
				candidates = []string{name}
			} else {
				for dir := path.Dir(first); dir != "." && dir != "/"; dir = path.Dir(dir) {
					candidates = append(candidates, dir+"/"+name)
				}
			}
			for _, c := range candidates {
				if s, ok := strings.CutSuffix(c, "/..."); ok {
					subtrees = append(subtrees, s)
				} else {
					listed[c] = true
				}
			}
		}
	}
	return listed, subtrees
}

func TestDocumentedPackages(t *testing.T) {
	doc := "| package | what |\n|---|---|\n" +
		"| `internal/router/registry`, `route`, `msgs` | x |\n" +
		"| `internal/devnet/vm/evm`, `vm/move` | y |\n" +
		"| `internal/chain/protos/...` | z |\n"
	listed, subtrees := documentedPackages(doc)
	for _, p := range []string{"internal/router/registry", "internal/router/route", "internal/router/msgs", "internal/devnet/vm/evm", "internal/devnet/vm/move"} {
		if !listed[p] {
			t.Errorf("%s not read as listed", p)
		}
	}
	if listed["internal/router/api"] || listed["internal/devnet/vm/wasm"] {
		t.Error("a package the table does not name was read as listed")
	}
	if !slices.Equal(subtrees, []string{"internal/chain/protos"}) {
		t.Errorf("subtrees %q", subtrees)
	}
}
