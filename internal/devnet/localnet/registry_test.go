package localnet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestRegistryGivesRoutes loads the registry the network writes with the router's loader
// and asks the route engine for the routes the devnet exists to exercise.
func TestRegistryGivesRoutes(t *testing.T) {
	dir := t.TempDir()
	n := startManual(t, 1, func(c *Config) { c.DataDir = dir })
	reg, err := registry.Load(filepath.Join(dir, "registry"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range append(n.ChainIDs(), lzChainID) {
		if reg.Chain(id) == nil {
			t.Fatalf("registry lacks %s", id)
		}
	}
	if u := reg.Chain("minimove-devnet-1").ExecutorURI; u == "" || u != n.ExecutorURL("minimove-devnet-1") {
		t.Errorf("executor_uri %q", u)
	}
	g := route.Build(reg, route.Config{})
	yes := true
	l2 := func(id uint64) string { return denom.L2(id, "uinit") }
	voucher := denom.IBC("transfer/channel-0", "uinit")
	cases := []struct {
		name          string
		req           route.Request
		wantOps       []string // operation kinds in order
		wantDenomOut  string
		wantTxs       int
		wantOPBridges []string
	}{
		{"L1→L2 OPinit deposit", route.Request{AmountIn: "1000", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: "uinit",
			DestAssetChainID: "minimove-devnet-1", DestAssetDenom: l2(2)}, []string{"op_init_transfer"}, l2(2), 1, []string{"2"}},
		{"L1→L2 IBC", route.Request{AmountIn: "1000", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: "uinit",
			DestAssetChainID: "miniwasm-devnet-1", DestAssetDenom: voucher}, []string{"transfer"}, voucher, 1, nil},
		{"L2→L2 over IBC through the L1 (unwind + PFM)", route.Request{AmountIn: "1000", SourceAssetChainID: "minievm-devnet-1", SourceAssetDenom: voucher,
			DestAssetChainID: "minimove-devnet-1", DestAssetDenom: voucher}, []string{"transfer", "transfer"}, voucher, 1, nil},
		{"L2→L1 OPinit withdrawal", route.Request{AmountIn: "1000", SourceAssetChainID: "minievm-devnet-1", SourceAssetDenom: l2(1),
			DestAssetChainID: "initia-devnet-1", DestAssetDenom: "uinit", IsOPWithdraw: true}, []string{"op_init_transfer"}, "uinit", 1, []string{"1"}},
		{"rollup-native token to the L1 over IBC", route.Request{AmountIn: "1000", SourceAssetChainID: "minimove-devnet-1", SourceAssetDenom: "uusdc",
			DestAssetChainID: "initia-devnet-1", DestAssetDenom: denom.IBC("transfer/channel-1", "uusdc"), AllowMultiTx: &yes}, []string{"transfer"}, denom.IBC("transfer/channel-1", "uusdc"), 1, nil},
		{"L1 token to the external chain over IBC", route.Request{AmountIn: "1000", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: "uinit",
			DestAssetChainID: "cosmoshub-devnet-1", DestAssetDenom: voucher}, []string{"transfer"}, voucher, 1, nil},
		{"LayerZero L1→EVM peer", route.Request{AmountIn: "1000", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: l1LZUSDTDenom,
			DestAssetChainID: lzChainID, DestAssetDenom: lzUSDT}, []string{"layer_zero_transfer"}, lzUSDT, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := g.Find(c.req)
			if err != nil {
				t.Fatal(err)
			}
			var ops, bridges []string
			for _, op := range r.Operations {
				switch {
				case op.Transfer != nil:
					ops = append(ops, "transfer")
				case op.OPInitTransfer != nil:
					ops = append(ops, "op_init_transfer")
					bridges = append(bridges, op.OPInitTransfer.OPInitBridgeID)
				case op.LayerZeroTransfer != nil:
					ops = append(ops, "layer_zero_transfer")
				default:
					ops = append(ops, "other")
				}
			}
			if strings.Join(ops, ",") != strings.Join(c.wantOps, ",") || r.TxsRequired != c.wantTxs || r.DestAssetDenom != c.wantDenomOut ||
				strings.Join(bridges, ",") != strings.Join(c.wantOPBridges, ",") {
				b, _ := json.Marshal(r)
				t.Fatalf("ops %v bridges %v txs %d; route %s", ops, bridges, r.TxsRequired, b)
			}
		})
	}
}

// TestRegistryFieldsMatchRouterTestdata: every field the router's own test registry uses
// (chain.json and assetlist.json, per chain) is present in the registry the devnet writes,
// except the ones listed here with the reason.
func TestRegistryFieldsMatchRouterTestdata(t *testing.T) {
	want := filepath.Join(testutil.RepoRoot(t), "internal/router/registry/testdata/registry")
	dir := t.TempDir()
	startManual(t, 1, func(c *Config) { c.DataDir = dir })
	exempt := map[string]string{
		// The router's testdata gives the rollups' INIT a symbol and name; ours are derived
		// from the base denom by bridge.RegistryAsset.AssetJSON. Same keys, so nothing here.
	}
	entries, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		for _, f := range []string{"chain.json", "assetlist.json"} {
			wantPaths := jsonPaths(t, filepath.Join(want, e.Name(), f))
			gotPaths := jsonPaths(t, filepath.Join(dir, "registry", e.Name(), f))
			var missing []string
			for p := range wantPaths {
				if !gotPaths[p] && exempt[e.Name()+"/"+f+":"+p] == "" {
					missing = append(missing, p)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s/%s lacks %v", e.Name(), f, missing)
			}
		}
	}
}

// jsonPaths lists the object key paths of a JSON file (array elements merged as []).
func jsonPaths(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]bool{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				out[p+"."+k] = true
				walk(p+"."+k, c)
			}
		case []any:
			for _, c := range x {
				walk(p+"[]", c)
			}
		}
	}
	walk("$", v)
	return out
}
