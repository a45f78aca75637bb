package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestFungibleDiscoveryGolden covers the Skip-only discovery endpoints on the devnet registry:
// venues, recommend_assets, ibc_origin_assets and assets_between_chains (POST as Skip's
// OpenAPI has it, GET as Skip's client sends it), with their client mistakes as 4xx.
func TestFungibleDiscoveryGolden(t *testing.T) {
	h := newServer(t)
	var (
		initEVM = registry.L2Denom(1, "uinit")
		atomEVM = registry.IBCDenom("transfer/channel-0/transfer/channel-3/uatom")
		rec     = func(chain, denom, dest string) map[string]any {
			return map[string]any{"source_asset_chain_id": chain, "source_asset_denom": denom, "dest_chain_id": dest}
		}
		tooMany    = make([]map[string]any, maxBatch+1)
		tooManyIDs = make([]map[string]any, maxBatch+1)
	)
	for i := range tooMany {
		tooMany[i] = rec(l1, "uinit", mevm)
		tooManyIDs[i] = map[string]any{"denom": "uinit", "chain_id": l1}
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"venues", http.MethodGet, "/v2/fungible/venues", nil, 200},
		{"venues_only_testnets", http.MethodGet, "/v2/fungible/venues?only_testnets=true", nil, 200},
		{"venues_bad_bool", http.MethodGet, "/v2/fungible/venues?only_testnets=maybe", nil, 400},

		{"recommend_assets", http.MethodPost, "/v2/fungible/recommend_assets", map[string]any{"requests": []any{
			rec(l1, "uinit", mevm),   // equally direct forms: the OPinit token and the IBC voucher
			rec(hub, "uatom", l1),    // one IBC hop
			rec(mevm, atomEVM, hub),  // back home: the base token
			rec(mevm, initEVM, mmov), // through the L1
			rec(l1, "uinit", l1),     // already there: the token itself
			rec(hub, "uatom", eth),   // nothing reaches the EVM L1
			map[string]any{"source_asset_chain_id": hub, "source_asset_denom": "uatom", "dest_chain_id": l1, "reason": "MOST_LIQUID"},
			map[string]any{"source_asset_chain_id": l1, "source_asset_denom": atomL1, "dest_chain_id": hub, "reason": "BASE_TOKEN"},
			map[string]any{"source_asset_chain_id": l1, "source_asset_denom": atomL1, "dest_chain_id": hub, "reason": "DIRECT"},
			map[string]any{"source_asset_chain_id": hub, "source_asset_denom": "uatom", "dest_chain_id": l1, "reason": "BASE_TOKEN"},
		}}, 200},
		{"recommend_assets_unknown_chain", http.MethodPost, "/v2/fungible/recommend_assets", map[string]any{"requests": []any{rec(l1, "uinit", "nope-1")}}, 404},
		{"recommend_assets_unknown_asset", http.MethodPost, "/v2/fungible/recommend_assets", map[string]any{"requests": []any{rec(l1, "ufoo", mevm)}}, 404},
		{"recommend_assets_missing_dest", http.MethodPost, "/v2/fungible/recommend_assets", map[string]any{"requests": []any{rec(l1, "uinit", "")}}, 400},
		{"recommend_assets_bad_reason", http.MethodPost, "/v2/fungible/recommend_assets", map[string]any{"requests": []any{
			map[string]any{"source_asset_chain_id": l1, "source_asset_denom": "uinit", "dest_chain_id": mevm, "reason": "CHEAPEST"}}}, 400},
		{"recommend_assets_empty", http.MethodPost, "/v2/fungible/recommend_assets", `{"requests":[]}`, 400},
		{"recommend_assets_too_many", http.MethodPost, "/v2/fungible/recommend_assets", map[string]any{"requests": tooMany}, 400},
		{"recommend_assets_bad_json", http.MethodPost, "/v2/fungible/recommend_assets", `{"requests":{}}`, 400},

		{"ibc_origin_assets", http.MethodPost, "/v2/fungible/ibc_origin_assets", map[string]any{"assets": []any{
			map[string]any{"denom": atomL1, "chain_id": l1},
			map[string]any{"denom": initEVM, "chain_id": mevm},
			map[string]any{"denom": "uinit", "chain_id": l1},
			map[string]any{"denom": atomEVM, "chain_id": mevm},
			map[string]any{"denom": "ufoo", "chain_id": l1},
		}}, 200},
		{"ibc_origin_assets_unknown_chain", http.MethodPost, "/v2/fungible/ibc_origin_assets", map[string]any{"assets": []any{map[string]any{"denom": "uinit", "chain_id": "nope-1"}}}, 404},
		{"ibc_origin_assets_missing_denom", http.MethodPost, "/v2/fungible/ibc_origin_assets", map[string]any{"assets": []any{map[string]any{"chain_id": l1}}}, 400},
		{"ibc_origin_assets_empty", http.MethodPost, "/v2/fungible/ibc_origin_assets", `{}`, 400},
		{"ibc_origin_assets_too_many", http.MethodPost, "/v2/fungible/ibc_origin_assets", map[string]any{"assets": tooManyIDs}, 400},

		{"assets_between_chains", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"source_chain_id": l1, "dest_chain_id": mevm}, 200},
		{"assets_between_chains_to_l1", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"source_chain_id": mmov, "dest_chain_id": l1}, 200},
		{"assets_between_chains_layer_zero", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"source_chain_id": eth, "dest_chain_id": l1, "include_evm_assets": true}, 200},
		{"assets_between_chains_multi_tx", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"source_chain_id": mmov, "dest_chain_id": mevm, "allow_multi_tx": true}, 200},
		{"assets_between_chains_single_tx", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"source_chain_id": mmov, "dest_chain_id": mevm}, 200},
		{"assets_between_chains_get", http.MethodGet, "/v2/fungible/assets_between_chains?source_chain_id=" + hub + "&dest_chain_id=" + l1 + "&include_evm_assets=true", nil, 200},
		{"assets_between_chains_unknown", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"source_chain_id": l1, "dest_chain_id": "nope-1"}, 404},
		{"assets_between_chains_missing", http.MethodPost, "/v2/fungible/assets_between_chains", map[string]any{"dest_chain_id": l1}, 400},
		{"assets_between_chains_get_bad_bool", http.MethodGet, "/v2/fungible/assets_between_chains?source_chain_id=" + hub + "&dest_chain_id=" + l1 + "&allow_multi_tx=2x", nil, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := do(t, h, tc.method, tc.path, tc.body)
			if st != tc.want {
				t.Errorf("status %d, want %d: %s", st, tc.want, body)
			}
			testutil.Golden(t, "endpoints/"+tc.name+".json", pretty(t, st, body))
			if st >= 400 && !strings.Contains(string(body), `"details":[`) {
				t.Errorf("error without a reason: %s", body)
			}
		})
	}
}
