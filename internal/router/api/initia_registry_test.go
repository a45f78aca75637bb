package api

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/registry"
)

// initiaRegistry is the pinned snapshot of initia-labs/initia-registry
// (../registry/testdata/initia-registry/README.md).
const initiaRegistry = "../registry/testdata/initia-registry"

// ikOperationKeys are the operation variants InterwovenKit renders; any other key throws
// "Unknown operation type" (initia-labs/interwovenkit@913e480:
// packages/interwovenkit-react/src/pages/bridge/BridgePreviewRoute.tsx:16-59).
var ikOperationKeys = []string{"transfer", "bank_send", "swap", "axelar_transfer", "cctp_transfer", "hyperlane_transfer",
	"evm_swap", "op_init_transfer", "go_fast_transfer", "eureka_transfer", "stargate_transfer", "layer_zero_transfer"}

type snapshotAsset struct {
	Base       string `json:"base"`
	Display    string `json:"display"`
	DenomUnits []struct {
		Denom    string `json:"denom"`
		Exponent int    `json:"exponent"`
	} `json:"denom_units"`
	Traces []struct {
		Type         string `json:"type"`
		Counterparty struct {
			ChainID   string `json:"chain_id"`
			BaseDenom string `json:"base_denom"`
		} `json:"counterparty"`
	} `json:"traces"`
}

func (a snapshotAsset) decimals() int {
	for _, u := range a.DenomUnits {
		if u.Denom == a.Display {
			return u.Exponent
		}
	}
	return -1
}

type snapshotChain struct {
	ChainID string `json:"chain_id"`
	IsL1    bool
	Assets  []snapshotAsset
}

// readSnapshot reads the chains and assets straight from the files, so the expectations do
// not come from the code under test.
func readSnapshot(t *testing.T, dir string) []snapshotChain {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "chain.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no chain.json under %s: %v", dir, err)
	}
	var out []snapshotChain
	for _, f := range files {
		var c struct {
			ChainID  string `json:"chain_id"`
			Metadata struct {
				IsL1 bool `json:"is_l1"`
			} `json:"metadata"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sc := snapshotChain{ChainID: c.ChainID, IsL1: c.Metadata.IsL1}
		if raw, err := os.ReadFile(filepath.Join(filepath.Dir(f), "assetlist.json")); err == nil {
			var al struct {
				Assets []snapshotAsset `json:"assets"`
			}
			if err := json.Unmarshal(raw, &al); err != nil {
				t.Fatal(err)
			}
			sc.Assets = al.Assets
		}
		out = append(out, sc)
	}
	return out
}

// TestInitiaRegistrySnapshot starts the router API on initia-registry's `mainnets/` and
// `testnets/` as published, with no network: it lists every chain and asset the files hold
// (the `evm/…` wrapper tokens with 18 decimals), and quotes, with InterwovenKit's own /route
// body, a one-transaction route from the L1 asset each rollup asset's trace starts from to that
// asset and back; wrapper tokens brought in by an OPinit deposit need the op hook, nothing
// else does.
func TestInitiaRegistrySnapshot(t *testing.T) {
	for _, network := range []string{"mainnets", "testnets"} {
		t.Run(network, func(t *testing.T) {
			dir := filepath.Join(initiaRegistry, network)
			reg, err := registry.LoadLogged(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := New(Config{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }, Balances: fakeBalances{}},
				registry.NewLive(reg), nil, prometheus.NewRegistry())
			files := readSnapshot(t, dir)

			// Every chain, as InterwovenKit asks for them (no query).
			code, body := do(t, h, http.MethodGet, "/v2/info/chains", nil)
			var chains struct {
				Chains []struct {
					ChainID string `json:"chain_id"`
					Hidden  *bool  `json:"hidden"`
				} `json:"chains"`
			}
			if err := json.Unmarshal(body, &chains); code != http.StatusOK || err != nil {
				t.Fatalf("chains: %d %s", code, body)
			}
			if len(chains.Chains) != len(files) {
				t.Errorf("chains listed = %d, chain.json files = %d", len(chains.Chains), len(files))
			}
			for _, c := range chains.Chains {
				if c.Hidden == nil || *c.Hidden {
					t.Errorf("chain %s: hidden = %v, want false (the snapshot hides nothing)", c.ChainID, c.Hidden)
				}
			}

			// Every asset, as InterwovenKit asks for them (no query).
			code, body = do(t, h, http.MethodGet, "/v2/fungible/assets", nil)
			var assets struct {
				Map map[string]struct {
					Assets []struct {
						Denom    string `json:"denom"`
						Decimals *int   `json:"decimals"`
						Hidden   *bool  `json:"hidden"`
					} `json:"assets"`
				} `json:"chain_to_assets_map"`
			}
			if err := json.Unmarshal(body, &assets); code != http.StatusOK || err != nil {
				t.Fatalf("assets: %d %s", code, body)
			}
			total, wrapped := 0, 0
			for _, fc := range files {
				listed := assets.Map[fc.ChainID].Assets
				if len(listed) != len(fc.Assets) {
					t.Errorf("%s: %d assets listed, the file has %d", fc.ChainID, len(listed), len(fc.Assets))
				}
				for _, fa := range fc.Assets {
					total++
					i := slices.IndexFunc(listed, func(a struct {
						Denom    string `json:"denom"`
						Decimals *int   `json:"decimals"`
						Hidden   *bool  `json:"hidden"`
					}) bool {
						return a.Denom == fa.Base
					})
					if i < 0 {
						t.Errorf("%s: asset %s not listed", fc.ChainID, fa.Base)
						continue
					}
					a := listed[i]
					if a.Decimals == nil || *a.Decimals != fa.decimals() || a.Hidden == nil || *a.Hidden {
						t.Errorf("%s: %s decimals %v hidden %v, want %d false", fc.ChainID, fa.Base, a.Decimals, a.Hidden, fa.decimals())
					}
					if strings.HasPrefix(fa.Base, "evm/") && fa.Traces != nil && fa.Traces[len(fa.Traces)-1].Type == "wrapped" {
						wrapped++
						if *a.Decimals != 18 {
							t.Errorf("%s: wrapped %s has %d decimals, want 18", fc.ChainID, fa.Base, *a.Decimals)
						}
					}
				}
			}
			if total == 0 || wrapped == 0 {
				t.Fatalf("assets %d, wrapped %d", total, wrapped)
			}

			// Routes between the L1 and each rollup's assets.
			var l1 string
			for _, fc := range files {
				if fc.IsL1 {
					l1 = fc.ChainID
				}
			}
			routed, hooked := 0, 0
			for _, fc := range files {
				if fc.ChainID == l1 {
					continue
				}
				for _, fa := range fc.Assets {
					from, via := "", ""
					for _, tr := range fa.Traces {
						if tr.Counterparty.ChainID == l1 && from == "" {
							from, via = tr.Counterparty.BaseDenom, tr.Type
						}
					}
					if from == "" || reg.Chain(l1).Asset(from) == nil {
						continue // native to the rollup, or from an L1 asset the registry does not list
					}
					isWrapped := fa.Traces[len(fa.Traces)-1].Type == "wrapped"
					oneIn := "1" + strings.Repeat("0", reg.Chain(l1).Asset(from).Decimals)
					oneOut := "1" + strings.Repeat("0", fa.decimals())
					// InterwovenKit's body (pages/bridge/data/simulate.ts:44-56).
					to := routeOf(t, h, map[string]any{"amount_in": oneIn, "source_asset_chain_id": l1, "source_asset_denom": from,
						"dest_asset_chain_id": fc.ChainID, "dest_asset_denom": fa.Base})
					wantHook := isWrapped && via == "op"
					if to == nil || to.RequiredOPHook != wantHook || to.AmountOut != oneOut || to.TxsRequired != 1 {
						t.Errorf("L1 %s → %s %s: %+v, want hook %v, out %s", from, fc.ChainID, fa.Base, to, wantHook, oneOut)
						continue
					}
					if wantHook {
						hooked++
					}
					back := map[string]any{"amount_in": oneOut, "source_asset_chain_id": fc.ChainID, "source_asset_denom": fa.Base,
						"dest_asset_chain_id": l1, "dest_asset_denom": from}
					if via == "op" {
						back["is_op_withdraw"] = true
					}
					if rb := routeOf(t, h, back); rb == nil || rb.RequiredOPHook || rb.AmountOut != oneIn {
						t.Errorf("%s %s → L1 %s: %+v", fc.ChainID, fa.Base, from, rb)
						continue
					}
					routed++
				}
			}
			if routed == 0 || (network == "mainnets" && hooked == 0) {
				t.Fatalf("routed %d, over the op hook %d", routed, hooked)
			}
			t.Logf("%s: %d chains, %d assets (%d wrapped), %d rollup assets routed both ways, %d over the op hook",
				network, len(files), total, wrapped, routed, hooked)
		})
	}
}

type quotedRoute struct {
	AmountOut      string                       `json:"amount_out"`
	RequiredOPHook bool                         `json:"required_op_hook"`
	TxsRequired    int                          `json:"txs_required"`
	Operations     []map[string]json.RawMessage `json:"operations"`
}

// routeOf posts a /route body and checks the answer is a route InterwovenKit can render.
func routeOf(t *testing.T, h http.Handler, body map[string]any) *quotedRoute {
	t.Helper()
	code, raw := do(t, h, http.MethodPost, "/v2/fungible/route", body)
	if code != http.StatusOK {
		t.Errorf("route %v: %d %s", body, code, raw)
		return nil
	}
	var r quotedRoute
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	for _, op := range r.Operations {
		n := 0
		for k := range op {
			switch k {
			case "tx_index", "amount_in", "amount_out":
			default:
				n++
				if !slices.Contains(ikOperationKeys, k) {
					t.Errorf("operation variant %q is not one InterwovenKit knows", k)
				}
			}
		}
		if n != 1 {
			t.Errorf("operation %v: %d variants", op, n)
		}
	}
	return &r
}

// TestHiddenFromRegistry: a registry entry's `hidden` reaches /v2/info/chains and
// /v2/fungible/assets; entries without one are not hidden.
func TestHiddenFromRegistry(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a/chain.json":     `{"chain_name":"a","chain_id":"a-1","bech32_prefix":"init","hidden":true}`,
		"a/assetlist.json": `{"assets":[{"base":"ua","hidden":true},{"base":"ub"}]}`,
		"b/chain.json":     `{"chain_name":"b","chain_id":"b-1","bech32_prefix":"init"}`,
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := registry.LoadLogged(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Balances: fakeBalances{}}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	_, body := do(t, h, http.MethodGet, "/v2/info/chains", nil)
	var chains struct {
		Chains []struct {
			ChainID string `json:"chain_id"`
			Hidden  bool   `json:"hidden"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(body, &chains); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range chains.Chains {
		got[c.ChainID] = c.Hidden
	}
	if len(got) != 2 || !got["a-1"] || got["b-1"] {
		t.Errorf("chains hidden = %v, want a-1 only", got)
	}
	_, body = do(t, h, http.MethodGet, "/v2/fungible/assets?chain_ids=a-1", nil)
	var assets struct {
		Map map[string]struct {
			Assets []struct {
				Denom  string `json:"denom"`
				Hidden bool   `json:"hidden"`
			} `json:"assets"`
		} `json:"chain_to_assets_map"`
	}
	if err := json.Unmarshal(body, &assets); err != nil {
		t.Fatal(err)
	}
	got = map[string]bool{}
	for _, a := range assets.Map["a-1"].Assets {
		got[a.Denom] = a.Hidden
	}
	if len(got) != 2 || !got["ua"] || got["ub"] {
		t.Errorf("assets hidden = %v, want ua only", got)
	}
}
