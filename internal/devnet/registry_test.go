package devnet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/denom"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
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
		{"rollup token to another rollup through the L1 (PFM)", route.Request{AmountIn: "1000", SourceAssetChainID: "minimove-devnet-1", SourceAssetDenom: "uusdc",
			DestAssetChainID: "miniwasm-devnet-1", DestAssetDenom: denom.IBC("transfer/channel-0/transfer/channel-1", "uusdc")}, []string{"transfer", "transfer"},
			denom.IBC("transfer/channel-0/transfer/channel-1", "uusdc"), 1, nil},
		{"external token to a rollup through the L1 (PFM)", route.Request{AmountIn: "1000", SourceAssetChainID: "cosmoshub-devnet-1", SourceAssetDenom: "uatom",
			DestAssetChainID: "minievm-devnet-1", DestAssetDenom: denom.IBC("transfer/channel-0/transfer/channel-3", "uatom")}, []string{"transfer", "transfer"},
			denom.IBC("transfer/channel-0/transfer/channel-3", "uatom"), 1, nil},
		{"rollup's bridged INIT to another rollup through the L1", route.Request{AmountIn: "1000", SourceAssetChainID: "miniwasm-devnet-1", SourceAssetDenom: l2(3),
			DestAssetChainID: "minimove-devnet-1", DestAssetDenom: denom.IBC("transfer/channel-0/transfer/channel-2", l2(3))}, []string{"transfer", "transfer"},
			denom.IBC("transfer/channel-0/transfer/channel-2", l2(3)), 1, nil},
		{"L1 INIT deposited to a rollup, then forwarded to another (hook)", route.Request{AmountIn: "1000", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: "uinit",
			DestAssetChainID: "minievm-devnet-1", DestAssetDenom: denom.IBC("transfer/channel-0/transfer/channel-1", l2(2)), AllowAmountHooks: true}, []string{"op_init_transfer", "transfer", "transfer"},
			denom.IBC("transfer/channel-0/transfer/channel-1", l2(2)), 1, []string{"2"}},
		{"LayerZero Ethereum→L1", route.Request{AmountIn: "1000", SourceAssetChainID: lzChainID, SourceAssetDenom: lzUSDT,
			DestAssetChainID: "initia-devnet-1", DestAssetDenom: l1LZUSDTDenom}, []string{"layer_zero_transfer"}, l1LZUSDTDenom, 1, nil},
		// The L1's OPinit composer makes the deposit on arrival (a LayerZero compose): one tx,
		// without allow_multi_tx.
		{"LayerZero to the L1, then deposited to a Move rollup", route.Request{AmountIn: "1000", SourceAssetChainID: lzChainID, SourceAssetDenom: lzUSDT,
			DestAssetChainID: "minimove-devnet-1", DestAssetDenom: denom.L2(2, l1LZUSDTDenom)},
			[]string{"layer_zero_transfer", "op_init_transfer"}, denom.L2(2, l1LZUSDTDenom), 1, []string{"2"}},
		// The L1's OFT sends over its Move entry function (send_withdraw), so the way back is a route.
		{"LayerZero L1→Ethereum", route.Request{AmountIn: "1000", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: l1LZUSDTDenom,
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

// TestForwardedVouchers: every rollup lists the vouchers that reach it through the L1 by
// packet forwarding (the other rollups' native and bridged tokens, the external chain's
// token), each with its full two-hop path and origin; the L1 lists the one-hop vouchers of
// the rollups' bridged INIT those routes pass through.
func TestForwardedVouchers(t *testing.T) {
	dir := t.TempDir()
	startManual(t, 1, func(c *Config) { c.DataDir = dir })
	reg, err := registry.Load(filepath.Join(dir, "registry"))
	if err != nil {
		t.Fatal(err)
	}
	l2 := func(id uint64) string { return denom.L2(id, "uinit") }
	// origin chain id, its L1 channel, and what it sends
	type origin struct {
		id, l1Channel string
		denoms        []string
	}
	origins := []origin{
		{"minievm-devnet-1", "channel-0", []string{"uusdc", l2(1)}},
		{"minimove-devnet-1", "channel-1", []string{"uusdc", l2(2)}},
		{"miniwasm-devnet-1", "channel-2", []string{"uusdc", l2(3)}},
		{"cosmoshub-devnet-1", "channel-3", []string{"uatom"}},
	}
	for _, dst := range []string{"minievm-devnet-1", "minimove-devnet-1", "miniwasm-devnet-1"} {
		for _, o := range origins {
			if o.id == dst {
				continue
			}
			for _, d := range o.denoms {
				path := "transfer/channel-0/transfer/" + o.l1Channel + "/" + d
				a := reg.Chain(dst).Asset("ibc/" + denom.IBCHash(path))
				if a == nil {
					t.Errorf("%s lacks %s", dst, path)
					continue
				}
				if a.Path != path || a.OriginChainID != o.id || a.OriginDenom != d || a.Decimals != 6 {
					t.Errorf("%s %s: path %s origin %s %s decimals %d", dst, path, a.Path, a.OriginChainID, a.OriginDenom, a.Decimals)
				}
			}
		}
	}
	for _, o := range origins[:3] {
		path := "transfer/" + o.l1Channel + "/" + o.denoms[1]
		if a := reg.Chain("initia-devnet-1").Asset("ibc/" + denom.IBCHash(path)); a == nil || a.OriginChainID != o.id || a.Symbol != "INIT" {
			t.Errorf("initia lacks %s of %s: %+v", path, o.id, a)
		}
	}
	// nothing forwarded to the external chain, nothing lists its own token as a voucher
	if got := len(reg.Chain("cosmoshub-devnet-1").Assets); got != 2 {
		t.Errorf("cosmoshub lists %d assets, want uatom and the INIT voucher", got)
	}
}

// TestZeroFeesAsRegistered: every chain.json says its fee tokens cost nothing (all gas price
// tiers 0), and every chain does take a tx that pays no fee at all, so a wallet following
// the registry gets its txs in.
func TestZeroFeesAsRegistered(t *testing.T) {
	dir := t.TempDir()
	n := startManual(t, 1, func(c *Config) { c.DataDir = dir })
	ctx := context.Background()
	hashes := map[string][32]byte{}
	for _, id := range n.ChainIDs() {
		s, _ := n.Spec(id)
		var cj struct {
			Fees struct {
				FeeTokens []map[string]any `json:"fee_tokens"`
			} `json:"fees"`
		}
		raw, err := os.ReadFile(filepath.Join(dir, "registry", s.name(), "chain.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &cj); err != nil {
			t.Fatal(err)
		}
		if len(cj.Fees.FeeTokens) != 1 || cj.Fees.FeeTokens[0]["denom"] != s.FeeDenom {
			t.Errorf("%s: fee tokens %v, want %s", id, cj.Fees.FeeTokens, s.FeeDenom)
		}
		for _, ft := range cj.Fees.FeeTokens {
			for _, k := range []string{"fixed_min_gas_price", "low_gas_price", "average_gas_price", "high_gas_price"} {
				if v, ok := ft[k].(float64); !ok || v != 0 {
					t.Errorf("%s: %s = %v, want 0 (the engine enforces no minimum gas price)", id, k, ft[k])
				}
			}
		}
		from, err := userKey(1, 0, s)
		if err != nil {
			t.Fatal(err)
		}
		to, err := userKey(1, 1, s)
		if err != nil {
			t.Fatal(err)
		}
		c := engineOf(t, n, id)
		num, seq, ok := c.AccountState(from.Address())
		if !ok {
			t.Fatalf("%s: user 0 has no account", id)
		}
		msg := &bankv1beta1.MsgSend{FromAddress: engine.Bech32(s.Prefix, from.Address()), ToAddress: engine.Bech32(s.Prefix, to.Address()),
			Amount: []*basev1beta1.Coin{{Denom: s.FeeDenom, Amount: "1"}}}
		raw, err = engine.SignDirect(id, from, num, seq, []proto.Message{msg}, "", engine.Fee{GasLimit: 200_000})
		if err != nil {
			t.Fatal(err)
		}
		res := c.BroadcastTxSync(raw)
		if res.Code != 0 {
			t.Fatalf("%s: zero-fee tx refused by CheckTx: %d %s", id, res.Code, res.Log)
		}
		hashes[id] = res.Hash
	}
	if err := n.ProduceBlock(ctx); err != nil {
		t.Fatal(err)
	}
	for id, h := range hashes {
		b, i, ok := engineOf(t, n, id).TxByHash(h)
		if !ok {
			t.Errorf("%s: zero-fee tx not in a block", id)
			continue
		}
		if r := b.Results[i]; r.Code != 0 {
			t.Errorf("%s: zero-fee tx failed: %d %s", id, r.Code, r.Log)
		}
	}
}
