package apierr

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// apiLayer are the packages allowed to build HTTP errors: the shared HTTP layer and the two
// APIs. Domain packages return domain errors (store.ErrNotFound, route.Error) that these map.
var apiLayer = map[string]bool{
	"internal/httpapi":     true,
	"internal/indexer/api": true,
	"internal/router/api":  true,
}

// TestOnlyTheAPILayerImportsApierr enforces the rule of docs/ARCHITECTURE.md: only the API
// layer turns errors into HTTP answers.
func TestOnlyTheAPILayerImportsApierr(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if rel == "internal/apierr" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/rollgate/rollgate/internal/apierr" && !apiLayer[rel] {
				t.Errorf("%s imports internal/apierr: return a domain error and map it in the API layer", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files: the walk no longer finds the tree", checked)
	}
}
