package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
)

// evmStub is a store with the EVM tables, for tests that only look at routing.
type evmStub struct {
	store.Reader
	store.EVMReader
	store.RichListReader
	store.TransferReader
}

// TestSwaggerListsServedRoutes: on every kind of chain the document at /swagger/doc.json
// describes exactly the routes served, and the EVM paths a chain does not serve answer
// rollytics' 404 as JSON.
func TestSwaggerListsServedRoutes(t *testing.T) {
	cases := []struct {
		name        string
		cfg         Config
		evm, intern bool
	}{
		{"evm", Config{Features: evmFeatures(evmStub{})}, true, true},
		{"evm without internal txs", Config{Features: Features{EVMTxs: evmStub{}, RichList: evmStub{}, HexHolders: true, Transfers: evmStub{}}}, true, false},
		{"move or wasm", Config{Features: Features{RichList: evmStub{}, Transfers: evmStub{}}}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.defaults()
			srv := &server{cfg: c.cfg, store: evmStub{}}
			var served []string
			for _, rt := range srv.routes() {
				if rt.InSpec {
					served = append(served, rt.Path())
				}
			}
			h := New(c.cfg, evmStub{}, nil, nil)
			rec := do(h, "/swagger/doc.json")
			var doc struct {
				Paths map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); rec.Code != 200 || err != nil {
				t.Fatalf("/swagger/doc.json: %d %v", rec.Code, err)
			}
			var spec []string
			for p := range doc.Paths {
				spec = append(spec, p)
			}
			slices.Sort(spec)
			slices.Sort(served)
			if !slices.Equal(spec, served) {
				t.Errorf("document and served routes differ:\nspec:   %v\nserved: %v", spec, served)
			}
			for _, path := range []string{"/indexer/tx/v1/evm-txs", "/indexer/tx/v1/evm-txs/by_height/1",
				"/indexer/tx/v1/evm-internal-txs", "/indexer/tx/v1/evm-internal-txs/0xabcd"} {
				_, isEVMTx := doc.Paths["/indexer/tx/v1/evm-txs"]
				_, isInternal := doc.Paths["/indexer/tx/v1/evm-internal-txs"]
				if isEVMTx != c.evm || isInternal != c.intern {
					t.Fatalf("document has evm-txs=%v internal=%v, want %v %v", isEVMTx, isInternal, c.evm, c.intern)
				}
				served := c.evm
				if path[len("/indexer/tx/v1/evm-"):][0] == 'i' {
					served = c.intern
				}
				if served {
					continue
				}
				rec := do(h, path)
				var e struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &e); rec.Code != http.StatusNotFound || err != nil ||
					e.Code != 5 || e.Message != "evm routes are not available on this chain" {
					t.Errorf("%s: %d %s", path, rec.Code, rec.Body)
				}
			}
		})
	}
}
