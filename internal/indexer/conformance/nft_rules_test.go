package conformance

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/store"
)

func isNFTLookup(path string) bool {
	return strings.HasPrefix(path, "/minievm/evm/v1/call") || strings.Contains(path, "/resources/by_struct_tag") ||
		strings.HasPrefix(path, "/cosmwasm/wasm/v1/contract/")
}

// ruleCollectionTotal: rollytics' collection list and single-collection totals come from
// pg_class.reltuples, an estimate that reads "-1" on a table PostgreSQL has not analysed yet
// (testdata/fixtures/README.md lists it among rollytics' faults); the contract wants exact
// totals (docs/contract/indexer.md).
// So where rollytics says "-1", rollgate's total must be the exact number of collections,
// which a whole-list page shows (every captured chain has fewer than 100).
func ruleCollectionTotal(t *testing.T, want, got any) {
	t.Helper()
	w, _ := want.(map[string]any)
	g, _ := got.(map[string]any)
	wp, _ := w["pagination"].(map[string]any)
	gp, _ := g["pagination"].(map[string]any)
	if wp == nil || gp == nil || wp["total"] != "-1" {
		return
	}
	if gp["total"] == "0" {
		// count_total=false: nothing counted, as on every list.
		wp["total"] = "0"
		return
	}
	n, err := strconv.Atoi(gp["total"].(string))
	if err != nil || n < 1 {
		t.Errorf("collections total %v, want the exact count", gp["total"])
		return
	}
	wp["total"] = gp["total"]
}

// ruleByNameDecoded: rollytics matches collections/by_name on the raw path, so "Cosmos%20Side%20NFT"
// normalises to "cosmos20side20nft" and finds nothing; the spec decodes the name first. For
// such a request rollytics' by_name answer is not the reference. The reference is built from
// rollytics' own whole collection list (a captured list request without pagination limit):
// the collections whose normalised name or origin name contains the normalised decoded name,
// in the request's order, with the exact total. It returns false when the rule does not apply.
func ruleByNameDecoded(t *testing.T, sampleDir string, rec peerRecord, status int, gotBody []byte) bool {
	t.Helper()
	u, err := url.Parse(rec.Path)
	const prefix = "/indexer/nft/v1/collections/by_name/"
	rawPath, _, _ := strings.Cut(rec.Path, "?")
	if err != nil || !strings.HasPrefix(u.Path, prefix) || strings.TrimPrefix(rawPath, prefix) == strings.TrimPrefix(u.Path, prefix) {
		return false
	}
	name := strings.TrimPrefix(u.Path, prefix)
	var all []any
	for _, r := range readIndex(t, sampleDir) {
		if r.Status != http.StatusOK || (r.Path != "/indexer/nft/v1/collections" && r.Path != "/indexer/nft/v1/collections?pagination.reverse=false") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(sampleDir, r.File))
		if err != nil {
			t.Fatal(err)
		}
		o, _ := decode(t, "rollytics", b).(map[string]any)
		all, _ = o["collections"].([]any)
		break
	}
	if all == nil {
		t.Fatalf("no whole collection list in %s to build the by_name reference from", sampleDir)
	}
	key := store.NormalizeCollectionName(name)
	var match []any
	for _, c := range all {
		cc, _ := c.(map[string]any)["collection"].(map[string]any)
		n, _ := cc["name"].(string)
		on, _ := cc["origin_name"].(string)
		if strings.Contains(store.NormalizeCollectionName(n), key) || strings.Contains(store.NormalizeCollectionName(on), key) {
			match = append(match, c)
		}
	}
	height := func(c any) int64 {
		n, _ := c.(map[string]any)["height"].(json.Number).Int64()
		return n
	}
	desc := u.Query().Get("pagination.reverse") != "false"
	slices.SortStableFunc(match, func(a, b any) int {
		if desc {
			return cmp.Compare(height(b), height(a))
		}
		return cmp.Compare(height(a), height(b))
	})
	if len(match) == 0 {
		t.Fatalf("the decoded name %q matches no collection of rollytics' list: the request shows nothing", name)
	}
	want := map[string]any{"collections": match, "pagination": map[string]any{"previous_key": nil, "next_key": nil,
		"total": strconv.Itoa(len(match))}}
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200", status)
	}
	if d := gocmp.Diff(decode(t, "reference", mustJSON(t, want)), decode(t, "rollgate", gotBody)); d != "" {
		t.Errorf("by_name %q (decoded) differs from rollytics' collections matching it (-want +got):\n%s", name, d)
	}
	return true
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
