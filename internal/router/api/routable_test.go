package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// TestEveryRouteBuilds asks /route for every ordered pair of devnet registry assets, as a
// standard client (single and multi transaction), and sends each route it answers to /msgs:
// the engine must offer no route that /msgs refuses as UNSUPPORTED_OPERATION.
func TestEveryRouteBuilds(t *testing.T) {
	h := newServer(t)
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	addrOf := func(c *registry.Chain) string {
		switch {
		case c.Type == registry.ChainTypeEVM:
			return userEth
		case c.Bech32Prefix == "cosmos":
			return userHub
		}
		return userInit
	}
	routes := 0
	for _, sc := range reg.Chains {
		for _, sa := range sc.Assets {
			for _, dc := range reg.Chains {
				for _, da := range dc.Assets {
					for _, multi := range []bool{false, true} {
						st, body := do(t, h, http.MethodPost, "/v2/fungible/route", map[string]any{"amount_in": "1000000000000000000",
							"source_asset_chain_id": sc.ID, "source_asset_denom": sa.Denom, "dest_asset_chain_id": dc.ID,
							"dest_asset_denom": da.Denom, "allow_multi_tx": multi})
						if st != http.StatusOK {
							continue
						}
						var rt route.Route
						if err := json.Unmarshal(body, &rt); err != nil {
							t.Fatal(err)
						}
						routes++
						addrs := make([]string, len(rt.RequiredChainAddresses))
						for i, c := range rt.RequiredChainAddresses {
							addrs[i] = addrOf(reg.Chain(c))
						}
						m := map[string]any{"source_asset_chain_id": rt.SourceAssetChainID, "source_asset_denom": rt.SourceAssetDenom,
							"dest_asset_chain_id": rt.DestAssetChainID, "dest_asset_denom": rt.DestAssetDenom, "amount_in": rt.AmountIn,
							"amount_out": rt.AmountOut, "address_list": addrs, "operations": rt.Operations}
						if rt.RequiredOPHook {
							m["signed_op_hook"] = signedHook(t, userInit)
						}
						st, body = do(t, h, http.MethodPost, "/v2/fungible/msgs", m)
						// The stand-in hook is not the wrap hook's signer's; everything else must build.
						if st != http.StatusOK && !(rt.RequiredOPHook && strings.Contains(string(body), "INVALID_OP_HOOK")) {
							t.Errorf("%s %s → %s %s (multi %v): /route offers it, /msgs answers %d %s", sc.ID, sa.Denom, dc.ID, da.Denom, multi, st, body)
						}
					}
				}
			}
		}
	}
	if routes == 0 {
		t.Fatal("no route between any two devnet assets")
	}
	t.Logf("%d routes built", routes)
}
