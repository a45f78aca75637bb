package protos_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/rollgate/rollgate/internal/chain/protos"
	"github.com/rollgate/rollgate/internal/testutil"
)

var typeRe = regexp.MustCompile(`"@type": *"/([^"]+)"`)

// Every Any type URL the real chains served over REST must resolve to a generated type.
func TestFixtureTypeURLsResolve(t *testing.T) {
	seen := map[string]bool{}
	for _, chain := range []string{"minievm", "minimove", "miniwasm"} {
		dir := filepath.Join(testutil.Fixture(t, chain), "rest")
		err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || filepath.Ext(p) != ".json" {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range typeRe.FindAllSubmatch(b, -1) {
				seen[string(m[1])] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 10 {
		t.Fatalf("only %d type urls found in fixtures", len(names))
	}
	for _, n := range names {
		if _, err := protoregistry.GlobalTypes.FindMessageByURL("/" + n); err != nil {
			t.Errorf("type %s: %v", n, err)
		}
	}
}
