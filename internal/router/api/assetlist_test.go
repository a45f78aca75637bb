package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestPricedAssetListsGolden: the asset lists with prices in the shape Celatone asks for
// (alleslabs/celatone-frontend@99feb85:src/lib/services/asset.ts, GET
// {INITIA_API}/initia/{chainId}/assets?with_prices=true) and InterwovenKit asks for
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/data/chains.ts:195-206,
// GET initia/{chainId}/assets?quote=USD&with_prices=true).
func TestPricedAssetListsGolden(t *testing.T) {
	h := newServer(t)
	for _, c := range []struct{ name, path string }{
		{"celatone_l1", "/initia/" + l1 + "/assets?with_prices=true"},
		{"interwovenkit_minievm", "/initia/" + mevm + "/assets?quote=USD&with_prices=true"},
		{"interwovenkit_evm_chain", "/initia/" + eth + "/assets?quote=USD&with_prices=true"},
		{"celatone_minimove_no_min_price", "/initia/" + mmov + "/assets?with_prices=true"},
		{"quote_not_usd", "/initia/" + l1 + "/assets?quote=EUR&with_prices=true"},
		{"bad_with_prices", "/initia/" + l1 + "/assets?with_prices=maybe"},
		{"unknown_chain", "/initia/nope-1/assets?with_prices=true"},
		// The operator's view: both sources' state and every asset's price_info.
		{"price_status", "/prices"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, body := do(t, h, http.MethodGet, c.path, nil)
			testutil.Golden(t, "assetlist/"+c.name+".json", pretty(t, st, body))
		})
	}
}

// TestPricedAssetListsParse holds every registry chain's list to the clients' schemas:
// Celatone's zAssetInfo (src/lib/types/asset.ts: ten fields, strings, precision a number,
// slugs a string array, price a non-negative number) and InterwovenKit's PriceItem ({id:
// string, price: number}); a listed price is never 0.
func TestPricedAssetListsParse(t *testing.T) {
	h := newServer(t)
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	priced := 0
	for _, c := range reg.Chains {
		st, body := do(t, h, http.MethodGet, "/initia/"+c.ID+"/assets?quote=USD&with_prices=true", nil)
		if st != http.StatusOK {
			t.Fatalf("%s: %d %s", c.ID, st, body)
		}
		var list []map[string]any
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatalf("%s: not an array: %s", c.ID, body)
		}
		for _, e := range list {
			for _, k := range []string{"coingecko", "description", "id", "logo", "name", "symbol", "type"} {
				if _, ok := e[k].(string); !ok {
					t.Errorf("%s %v: %s is not a string", c.ID, e["id"], k)
				}
			}
			if _, ok := e["precision"].(float64); !ok {
				t.Errorf("%s %v: precision is not a number", c.ID, e["id"])
			}
			if p, ok := e["price"].(float64); !ok || p <= 0 {
				t.Errorf("%s %v: price %v is not a positive number", c.ID, e["id"], e["price"])
			}
			if s, ok := e["slugs"].([]any); !ok {
				t.Errorf("%s %v: slugs is not an array", c.ID, e["id"])
			} else {
				for _, x := range s {
					if _, ok := x.(string); !ok {
						t.Errorf("%s %v: a slug is not a string", c.ID, e["id"])
					}
				}
			}
			if a := c.Asset(e["id"].(string)); a == nil {
				t.Errorf("%s lists %v, which its registry does not", c.ID, e["id"])
			}
			priced++
		}
	}
	// INIT, its vouchers and USDC are priced on every Initia chain; ETH on the EVM chain.
	if priced < 20 {
		t.Errorf("only %d priced assets across the registry", priced)
	}
}
