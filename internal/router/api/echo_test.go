package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// maxErrorBody bounds an error body whatever the request: a message quotes each piece of the
// client's input clipped to 128 bytes.
const maxErrorBody = 2 << 10

// leaves calls set once per string leaf of v (a decoded JSON value) with a setter for it.
func leaves(v any, set func(replace func(string) any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(string); ok {
				set(func(s string) any { old := x[k]; x[k] = s; return old })
			} else {
				leaves(e, set)
			}
		}
	case []any:
		for i, e := range x {
			if _, ok := e.(string); ok {
				set(func(s string) any { old := x[i]; x[i] = s; return old })
			} else {
				leaves(e, set)
			}
		}
	}
}

// TestLongInputsComeBackClipped: a 30,000-character value in any string field of any POST
// body, a 70,000-character one in any query parameter of any GET route or in the path, is
// answered below 500 with an
// error body of at most 2 KiB: the router quotes input clipped to 128 bytes, as the indexer does.
func TestLongInputsComeBackClipped(t *testing.T) {
	h := newServer(t)
	long := strings.Repeat("x", 70000)
	// Bodies stay under the test server's 64 KiB limit, or they would all be its 413.
	longField := strings.Repeat("x", 30000)
	check := func(what string, st int, out []byte) {
		t.Helper()
		if st >= 500 {
			t.Errorf("%s: %d %.300s", what, st, out)
		}
		if st >= 400 && len(out) > maxErrorBody {
			t.Errorf("%s: %d, a %d-byte error body: %.300s…", what, st, len(out), out)
		}
	}
	var bodies []string
	for _, tc := range routeCases() {
		b, _ := json.Marshal(tc.req)
		bodies = append(bodies, string(b))
	}
	bodies = append(bodies,
		`{"source_address":"`+userInit+`","dest_address":"`+user2Init+`","amount_in":"1","source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_asset_chain_id":"`+mwas+`","dest_asset_denom":"`+initMoveW+`"}`,
		`{"chains":{"`+l1+`":{"address":"`+userInit+`","denoms":["uinit"]}}}`,
		`{"amount_in":"1","source_asset_chain_id":"`+mmov+`","source_asset_denom":"uusdc","dest_asset_chain_id":"`+mwas+`","dest_asset_denom":"`+usdcMoveWasm+`","address_list":["a","b","c"],"operations":[{"transfer":{"channel":"channel-0","from_chain_id":"`+mmov+`","to_chain_id":"`+l1+`"},"tx_index":0}]}`,
		`{"tx_hash":"AB","chain_id":"`+l1+`"}`,
		`{"requests":[{"source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_chain_id":"`+mwas+`"}]}`,
		`{"assets":[{"denom":"uinit","chain_id":"`+l1+`"}]}`,
		`{"source_asset_chain_id":"`+l1+`","source_asset_denom":"uinit","dest_chain_id":"`+mwas+`"}`,
		`{"source_chain_id":"`+l1+`","dest_chain_id":"`+mwas+`"}`,
	)
	for _, rt := range (&server{}).routes() {
		path := rt.Path()
		switch rt.Method() {
		case http.MethodPost:
			for _, b := range bodies {
				var v any
				if err := json.Unmarshal([]byte(b), &v); err != nil {
					t.Fatal(err)
				}
				leaves(v, func(replace func(string) any) {
					old := replace(longField)
					raw, _ := json.Marshal(v)
					st, out := do(t, h, http.MethodPost, path, string(raw))
					check(path+" "+clipped(string(raw)), st, out)
					replace(old.(string))
				})
				// A long key, too.
				if m, ok := v.(map[string]any); ok {
					m[longField] = "1"
					raw, _ := json.Marshal(m)
					st, out := do(t, h, http.MethodPost, path, string(raw))
					check(path+" long key", st, out)
				}
			}
		case http.MethodGet:
			if rt.Stream != nil {
				continue // a stream's own errors come before it opens: covered by its query below
			}
			for _, p := range []string{"chain_id", "chain_ids", "tx_hash", "source_chain_id", "dest_chain_id", "include_evm_assets",
				"include_svm_assets", "include_cw20_assets", "only_testnets", "native_only", "include_no_metadata_assets"} {
				st, out := do(t, h, http.MethodGet, path+"?"+p+"="+long, nil)
				check(path+"?"+p+"=<70000>", st, out)
			}
		}
		st, out := do(t, h, http.MethodGet, path+"/"+url.PathEscape(long), nil)
		check(path+"/<70000>", st, out)
	}
	st, out := do(t, h, http.MethodGet, "/v2/tx/status/stream?chain_id="+long+"&tx_hash=AB", nil)
	check("status stream", st, out)
}

func clipped(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
