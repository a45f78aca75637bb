package route

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/testutil"
)

// snapshotDir is the pinned copy of initia-labs/initia-registry (see its README).
const snapshotDir = "../registry/testdata/initia-registry"

// fileAsset is what this test reads from the snapshot's files by itself, so the expectations
// do not come from the registry package under test.
type fileAsset struct {
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

// TestInitiaRegistryRoutes: on the registry as Initia publishes it, every rollup asset whose
// trace starts from (or passes through) an L1 asset is reachable from that L1 asset in one
// transaction, and back; wrapper tokens (`evm/…`, trace "wrapped") after an OPinit deposit
// need the op hook, those after an ICS-20 hop do not, and no route back needs one.
func TestInitiaRegistryRoutes(t *testing.T) {
	for _, network := range []string{"mainnets", "testnets"} {
		t.Run(network, func(t *testing.T) {
			dir := filepath.Join(snapshotDir, network)
			reg, err := registry.LoadLogged(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := Build(reg, Config{})
			var l1 *registry.Chain
			for _, c := range reg.Chains {
				if c.L1 {
					l1 = c
				}
			}
			if l1 == nil {
				t.Fatal("no L1")
			}
			chainDirs, _ := filepath.Glob(filepath.Join(dir, "*", "chain.json"))
			routed, hooked := 0, 0
			for _, cf := range chainDirs {
				var chain struct {
					ChainID string `json:"chain_id"`
				}
				testutil.ReadJSON(t, cf, &chain)
				if chain.ChainID == l1.ID {
					continue
				}
				al := filepath.Join(filepath.Dir(cf), "assetlist.json")
				if _, err := os.Stat(al); err != nil {
					continue
				}
				var list struct {
					Assets []fileAsset `json:"assets"`
				}
				testutil.ReadJSON(t, al, &list)
				for _, fa := range list.Assets {
					// The hop that left the L1 names the L1 asset the route starts from.
					l1Denom, bridged := "", ""
					for _, tr := range fa.Traces {
						if tr.Counterparty.ChainID == l1.ID && l1Denom == "" {
							l1Denom, bridged = tr.Counterparty.BaseDenom, tr.Type
						}
					}
					if l1Denom == "" || l1.Asset(l1Denom) == nil {
						continue // native to the rollup, or from an L1 asset the registry does not list
					}
					wrapped := len(fa.Traces) > 0 && fa.Traces[len(fa.Traces)-1].Type == "wrapped"
					decimals := -1
					for _, u := range fa.DenomUnits {
						if u.Denom == fa.Display {
							decimals = u.Exponent
						}
					}
					name := chain.ChainID + "/" + fa.Base
					t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
						in := "1" + strings.Repeat("0", l1.Asset(l1Denom).Decimals)
						rt, err := g.Find(Request{AmountIn: in, SourceAssetChainID: l1.ID, SourceAssetDenom: l1Denom,
							DestAssetChainID: chain.ChainID, DestAssetDenom: fa.Base})
						if err != nil {
							t.Fatalf("L1 %s → %s: %v", l1Denom, name, err)
						}
						wantHook := wrapped && bridged == "op"
						if rt.RequiredOPHook != wantHook || rt.TxsRequired != 1 {
							t.Errorf("required_op_hook = %v, txs = %d; want %v, 1", rt.RequiredOPHook, rt.TxsRequired, wantHook)
						}
						want := "1" + strings.Repeat("0", decimals)
						if rt.AmountOut != want {
							t.Errorf("amount_out = %s, want %s (one whole token of %d decimals)", rt.AmountOut, want, decimals)
						}
						lastOp := rt.Operations[len(rt.Operations)-1]
						if lastOp.DenomOut() != fa.Base || lastOp.AmountOut != want {
							t.Errorf("last operation = %s %s, want %s %s", lastOp.AmountOut, lastOp.DenomOut(), want, fa.Base)
						}
						for _, op := range rt.Operations {
							if op.Variants() != 1 || (op.Transfer == nil && op.OPInitTransfer == nil) {
								t.Errorf("operation %+v: want one transfer or op_init_transfer", op)
							}
						}
						if wrapped != (len(rt.Wraps) == 1) {
							t.Fatalf("wraps = %+v", rt.Wraps)
						}
						if wrapped {
							w := rt.Wraps[0]
							wantVia := WrapInIBCHook
							if bridged == "op" {
								wantVia = WrapInOPHook
							}
							if !w.ToLocal || w.Via != wantVia || w.LocalDenom != fa.Base || w.LocalAmount != want ||
								w.RemoteAmount != "1"+strings.Repeat("0", w.RemoteDecimals) || w.LocalDecimals != decimals {
								t.Errorf("wrap = %+v", w)
							}
							hooked += map[bool]int{true: 1}[rt.RequiredOPHook]
						}

						// And back: an OP-bridged coin leaves through the OPinit bridge (is_op_withdraw),
						// an IBC one over IBC; a wrapper token is unwrapped in the source tx.
						back := Request{AmountIn: want, SourceAssetChainID: chain.ChainID, SourceAssetDenom: fa.Base,
							DestAssetChainID: l1.ID, DestAssetDenom: l1Denom, IsOPWithdraw: bridged == "op"}
						rb, err := g.Find(back)
						if err != nil {
							t.Fatalf("%s → L1 %s: %v", name, l1Denom, err)
						}
						if rb.RequiredOPHook || rb.AmountOut != in || rb.Operations[0].DenomIn() != fa.Base || rb.Operations[0].AmountIn != want {
							t.Errorf("back: hook %v, amount_out %s, first op %+v", rb.RequiredOPHook, rb.AmountOut, rb.Operations[0])
						}
						if wrapped && (len(rb.Wraps) != 1 || rb.Wraps[0].ToLocal || rb.Wraps[0].Via != WrapInSourceTx || rb.Wraps[0].OperationIndex != 0) {
							t.Errorf("back: wraps = %+v", rb.Wraps)
						}
						routed++
					})
				}
			}
			if routed == 0 || (network == "mainnets" && hooked == 0) {
				t.Fatalf("routed %d assets, %d with the op hook", routed, hooked)
			}
			t.Logf("%s: %d rollup assets routed from and to the L1, %d over the op hook", network, routed, hooked)
		})
	}
}

// TestWrapAmounts: an 18-decimal wrapper token converts back only in whole units of its
// 6-decimal coin (toRemote refuses dust), and the refusal says so.
func TestWrapAmounts(t *testing.T) {
	reg, err := registry.LoadLogged(filepath.Join(snapshotDir, "mainnets"), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := Build(reg, Config{})
	const evmINIT = "evm/df5A85F89731fEB77d7EEaaCe627EB135eDB46DB"
	for _, tc := range []struct {
		in, wantOut, wantErr string
	}{
		{"1000000000000", "1", ""},
		{"2500000000000000000", "2500000", ""},
		{"1000000000001", "", ReasonInvalidAmount},
		{"999999999999", "", ReasonInvalidAmount},
	} {
		t.Run(tc.in, func(t *testing.T) {
			rt, err := g.Find(Request{AmountIn: tc.in, SourceAssetChainID: "cabal-1", SourceAssetDenom: evmINIT,
				DestAssetChainID: "interwoven-1", DestAssetDenom: "uinit", IsOPWithdraw: true})
			if tc.wantErr != "" {
				if reason(err) != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			op := rt.Operations[0].OPInitTransfer
			if rt.AmountOut != tc.wantOut || op == nil || op.DenomIn != evmINIT || op.DenomOut != "uinit" || len(rt.Operations) != 1 {
				t.Errorf("route = %s out, operations %+v", rt.AmountOut, rt.Operations)
			}
			if len(rt.Warnings) != 1 || !strings.Contains(rt.Warnings[0], "finalization period") {
				t.Errorf("warnings = %q", rt.Warnings)
			}
		})
	}
	// Without is_op_withdraw the default quote is the same withdrawal (the only way out), and
	// says so; with the OPinit bridge left out it refuses, and says why.
	plain := Request{AmountIn: "1000000000000", SourceAssetChainID: "cabal-1", SourceAssetDenom: evmINIT,
		DestAssetChainID: "interwoven-1", DestAssetDenom: "uinit"}
	flagged := plain
	flagged.IsOPWithdraw = true
	rt, err := g.Find(plain)
	want, werr := g.Find(flagged)
	if err != nil || werr != nil || !slices.EqualFunc(rt.Operations, want.Operations, func(a, b Operation) bool { return *a.OPInitTransfer == *b.OPInitTransfer }) ||
		!slices.ContainsFunc(rt.ExtraInfos, func(s string) bool { return strings.Contains(s, "is_op_withdraw") }) {
		t.Errorf("without the flag: %v %+v, with it: %v %+v", err, rt, werr, want)
	}
	plain.Bridges = []string{BridgeIBC}
	_, err = g.Find(plain)
	var e *Error
	if reason(err) != ReasonNoRoute || !errors.As(err, &e) || !strings.Contains(e.Info, "is_op_withdraw") {
		t.Errorf("err = %v", err)
	}
	// A huge amount overflows nothing: 2^256-1 base units of uinit cannot be wrapped ×10^12.
	max := new(uint256.Int).SetAllOne().Dec()
	if _, err := g.Find(Request{AmountIn: max, SourceAssetChainID: "interwoven-1", SourceAssetDenom: "uinit",
		DestAssetChainID: "cabal-1", DestAssetDenom: evmINIT}); reason(err) != ReasonNoRoute {
		t.Errorf("overflow: err = %v", err)
	}
}

// wrapNet is an L1 with a minievm rollup (bridge 7, one channel) whose registry lists INIT both
// as the bridged coin and as the wrapper token, and the IBC voucher of an L1 token only wrapped.
func wrapNet(t *testing.T, hooks bool) *registry.Registry {
	t.Helper()
	l2INIT := registry.L2Denom(7, "uinit")
	usdcPath := "transfer/channel-0/uusdc"
	l1 := &registry.Chain{Name: "l1", ID: "l1-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", L1: true, PFM: true, Hooks: true, Memo: true,
		Channels: []registry.Channel{{Port: "transfer", ID: "channel-5", CounterpartyChainID: "evm-1", CounterpartyPort: "transfer", CounterpartyID: "channel-0"}},
		Assets:   []*registry.Asset{{Denom: "uinit", Symbol: "INIT", Decimals: 6}, {Denom: "uusdc", Symbol: "USDC", Decimals: 6}}}
	evm := &registry.Chain{Name: "evm", ID: "evm-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", BridgeID: 7, MinitiaType: "minievm",
		PFM: true, Hooks: hooks, Memo: true,
		Channels: []registry.Channel{{Port: "transfer", ID: "channel-0", CounterpartyChainID: "l1-1", CounterpartyPort: "transfer", CounterpartyID: "channel-5"}},
		Assets: []*registry.Asset{
			{Denom: l2INIT, Symbol: "INIT", Decimals: 6, OP: &registry.OPTrace{BridgeID: 7, L1ChainID: "l1-1", L1Denom: "uinit"}},
			{Denom: "evm/00000000000000000000000000000000000000aa", Symbol: "INIT", Decimals: 18,
				Wrap: &registry.Wrap{Contract: "0x00000000000000000000000000000000000000f1", RemoteDenom: l2INIT, RemoteDecimals: 6, LocalDecimals: 18}},
			{Denom: registry.IBCDenom(usdcPath), Path: usdcPath, Symbol: "USDC", Decimals: 6},
			{Denom: "evm/00000000000000000000000000000000000000bb", Symbol: "USDC", Decimals: 18,
				Wrap: &registry.Wrap{Contract: "0x00000000000000000000000000000000000000f1", RemoteDenom: registry.IBCDenom(usdcPath), RemoteDecimals: 6, LocalDecimals: 18}},
		}}
	reg, err := registry.New([]*registry.Chain{l1, evm})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestWrapRules pins where a wrap may happen: after an OPinit deposit (the op hook), after an
// ICS-20 arrival on a chain with IBC hooks, at the start of the source tx before the coin
// leaves; never as a route of its own on one chain.
func TestWrapRules(t *testing.T) {
	const evmINIT, evmUSDC = "evm/00000000000000000000000000000000000000aa", "evm/00000000000000000000000000000000000000bb"
	l2INIT := registry.L2Denom(7, "uinit")
	for _, tc := range []struct {
		name     string
		hooks    bool
		req      Request
		wantErr  string
		wantHook bool
		wantVia  string
		wantOut  string
	}{
		{"deposit_then_wrap_is_the_op_hook", true, Request{AmountIn: "3", SourceAssetChainID: "l1-1", SourceAssetDenom: "uinit", DestAssetChainID: "evm-1", DestAssetDenom: evmINIT},
			"", true, WrapInOPHook, "3000000000000"},
		{"deposit_of_the_coin_needs_no_hook", true, Request{AmountIn: "3", SourceAssetChainID: "l1-1", SourceAssetDenom: "uinit", DestAssetChainID: "evm-1", DestAssetDenom: l2INIT},
			"", false, "", "3"},
		{"ibc_then_wrap_in_the_memo", true, Request{AmountIn: "3", SourceAssetChainID: "l1-1", SourceAssetDenom: "uusdc", DestAssetChainID: "evm-1", DestAssetDenom: evmUSDC},
			"", false, WrapInIBCHook, "3000000000000"},
		{"ibc_then_wrap_needs_ibc_hooks", false, Request{AmountIn: "3", SourceAssetChainID: "l1-1", SourceAssetDenom: "uusdc", DestAssetChainID: "evm-1", DestAssetDenom: evmUSDC},
			ReasonNoRoute, false, "", ""},
		{"unwrap_then_withdraw", true, Request{AmountIn: "3000000000000", SourceAssetChainID: "evm-1", SourceAssetDenom: evmINIT, DestAssetChainID: "l1-1", DestAssetDenom: "uinit", IsOPWithdraw: true},
			"", false, WrapInSourceTx, "3"},
		{"unwrap_then_ibc", true, Request{AmountIn: "3000000000000", SourceAssetChainID: "evm-1", SourceAssetDenom: evmUSDC, DestAssetChainID: "l1-1", DestAssetDenom: "uusdc"},
			"", false, WrapInSourceTx, "3"},
		{"unwrap_alone_is_no_route", true, Request{AmountIn: "3000000000000", SourceAssetChainID: "evm-1", SourceAssetDenom: evmINIT, DestAssetChainID: "evm-1", DestAssetDenom: l2INIT},
			ReasonNoRoute, false, "", ""},
		{"wrap_alone_is_no_route", true, Request{AmountIn: "3", SourceAssetChainID: "evm-1", SourceAssetDenom: l2INIT, DestAssetChainID: "evm-1", DestAssetDenom: evmINIT},
			ReasonNoRoute, false, "", ""},
		{"unwrap_dust", true, Request{AmountIn: "3000000000001", SourceAssetChainID: "evm-1", SourceAssetDenom: evmUSDC, DestAssetChainID: "l1-1", DestAssetDenom: "uusdc"},
			ReasonInvalidAmount, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := Build(wrapNet(t, tc.hooks), Config{}).Find(tc.req)
			if tc.wantErr != "" {
				if reason(err) != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rt.RequiredOPHook != tc.wantHook || rt.AmountOut != tc.wantOut || len(rt.Operations) != 1 || rt.TxsRequired != 1 {
				t.Fatalf("route: hook %v, out %s, %d operations, %d txs", rt.RequiredOPHook, rt.AmountOut, len(rt.Operations), rt.TxsRequired)
			}
			if tc.wantVia == "" {
				if len(rt.Wraps) != 0 {
					t.Errorf("wraps = %+v", rt.Wraps)
				}
				return
			}
			if len(rt.Wraps) != 1 || rt.Wraps[0].Via != tc.wantVia || rt.Wraps[0].Contract != "0x00000000000000000000000000000000000000f1" {
				t.Fatalf("wraps = %+v", rt.Wraps)
			}
			op := rt.Operations[0]
			if w := rt.Wraps[0]; (w.ToLocal && (op.DenomOut() != w.LocalDenom || op.AmountOut != w.LocalAmount)) ||
				(!w.ToLocal && (op.DenomIn() != w.LocalDenom || op.AmountIn != w.LocalAmount || op.AmountOut != w.RemoteAmount)) {
				t.Errorf("operation %+v does not show wrap %+v", op, w)
			}
		})
	}
}
