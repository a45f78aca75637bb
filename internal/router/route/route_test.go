package route

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/bench/synthnet"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// line builds A —— B —— C over ICS-20 with the given PFM setting on B, plus a direct
// A —— C channel when direct is set; token "uatom" is native on A.
func line(t *testing.T, pfmB, direct bool) *registry.Registry {
	t.Helper()
	a := &registry.Chain{Name: "a", ID: "a-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "a", PFM: true, Memo: true,
		Channels: []registry.Channel{{Port: "transfer", ID: "channel-0", CounterpartyChainID: "b-1", CounterpartyPort: "transfer", CounterpartyID: "channel-0"}},
		Assets:   []*registry.Asset{{Denom: "uatom"}}}
	b := &registry.Chain{Name: "b", ID: "b-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "b", PFM: pfmB, Memo: true,
		Channels: []registry.Channel{
			{Port: "transfer", ID: "channel-0", CounterpartyChainID: "a-1", CounterpartyPort: "transfer", CounterpartyID: "channel-0"},
			{Port: "transfer", ID: "channel-1", CounterpartyChainID: "c-1", CounterpartyPort: "transfer", CounterpartyID: "channel-0"}},
		Assets: []*registry.Asset{{Denom: registry.IBCDenom("transfer/channel-0/uatom"), Path: "transfer/channel-0/uatom"}}}
	cPath := "transfer/channel-0/transfer/channel-0/uatom"
	c := &registry.Chain{Name: "c", ID: "c-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "c", PFM: true, Memo: true,
		Channels: []registry.Channel{{Port: "transfer", ID: "channel-0", CounterpartyChainID: "b-1", CounterpartyPort: "transfer", CounterpartyID: "channel-1"}},
		Assets:   []*registry.Asset{{Denom: registry.IBCDenom(cPath), Path: cPath}}}
	if direct {
		// A direct channel lands a different voucher on C: only used when asked for.
		a.Channels = append(a.Channels, registry.Channel{Port: "transfer", ID: "channel-1", CounterpartyChainID: "c-1", CounterpartyPort: "transfer", CounterpartyID: "channel-1"})
		c.Channels = append(c.Channels, registry.Channel{Port: "transfer", ID: "channel-1", CounterpartyChainID: "a-1", CounterpartyPort: "transfer", CounterpartyID: "channel-1"})
		c.Assets = append(c.Assets, &registry.Asset{Denom: registry.IBCDenom("transfer/channel-1/uatom"), Path: "transfer/channel-1/uatom"})
	}
	reg, err := registry.New([]*registry.Chain{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

func TestFindMultiHop(t *testing.T) {
	cDenom := registry.IBCDenom("transfer/channel-0/transfer/channel-0/uatom")
	req := Request{AmountIn: "100", SourceAssetChainID: "a-1", SourceAssetDenom: "uatom", DestAssetChainID: "c-1", DestAssetDenom: cDenom}
	for _, tc := range []struct {
		name    string
		pfm     bool
		multi   *bool
		wantTxs int
		wantErr string
	}{
		{"pfm_one_tx", true, nil, 1, ""},
		{"no_pfm_needs_multi_tx", false, nil, 0, ReasonNoRoute},
		{"no_pfm_multi_tx_allowed", false, ptr(true), 2, ""},
		{"pfm_multi_allowed_still_one_tx", true, ptr(true), 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Build(line(t, tc.pfm, false), Config{})
			r := req
			r.AllowMultiTx = tc.multi
			rt, err := g.Find(r)
			if tc.wantErr != "" {
				if reason(err) != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rt.TxsRequired != tc.wantTxs || len(rt.Operations) != 2 || rt.Operations[1].TxIndex != tc.wantTxs-1 {
				t.Errorf("txs=%d ops=%+v", rt.TxsRequired, rt.Operations)
			}
			if got := rt.ChainIDs; len(got) != 3 || got[1] != "b-1" {
				t.Errorf("chain_ids = %v", got)
			}
			if rt.EstimatedRouteDurationSeconds != 60 {
				t.Errorf("duration = %d, want 2 IBC hops of 30 s", rt.EstimatedRouteDurationSeconds)
			}
		})
	}
}

func TestFindFilters(t *testing.T) {
	reg, err := registry.Load("../registry/testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	l2 := registry.L2Denom(1, "uinit")
	dep := Request{AmountIn: "5", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: "uinit", DestAssetChainID: "minievm-devnet-1", DestAssetDenom: l2}
	wd := Request{AmountIn: "5", SourceAssetChainID: "minievm-devnet-1", SourceAssetDenom: l2, DestAssetChainID: "initia-devnet-1", DestAssetDenom: "uinit", IsOPWithdraw: true}
	for _, tc := range []struct {
		name    string
		mut     func(r *Request)
		base    Request
		cfg     Config
		wantErr string
		wantSec int
	}{
		{"deposit", nil, dep, Config{}, "", 15},
		{"deposit_ibc_only", func(r *Request) { r.Bridges = []string{BridgeIBC} }, dep, Config{}, ReasonNoRoute, 0},
		{"deposit_opinit_only", func(r *Request) { r.Bridges = []string{BridgeOPInit} }, dep, Config{}, "", 15},
		{"deposit_configured_duration", nil, dep, Config{OPDepositSeconds: 4}, "", 4},
		{"withdraw", nil, wd, Config{}, "", 604800},
		{"withdraw_configured", nil, wd, Config{OPWithdrawSeconds: 3600}, "", 3600},
		// Without the flag the withdrawal is still the answer: nothing else takes the token
		// to its L1 denom.
		{"withdraw_only_way_out", func(r *Request) { r.IsOPWithdraw = false }, wd, Config{}, "", 604800},
		{"withdraw_only_way_out_ibc_only", func(r *Request) { r.IsOPWithdraw, r.Bridges = false, []string{BridgeIBC} }, wd, Config{}, ReasonNoRoute, 0},
		{"exact_out_unsupported", func(r *Request) { r.AmountIn, r.AmountOut = "", "5" }, dep, Config{}, ReasonUnsupportedField, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.base
			if tc.mut != nil {
				tc.mut(&r)
			}
			rt, err := Build(reg, tc.cfg).Find(r)
			if tc.wantErr != "" {
				if reason(err) != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rt.EstimatedRouteDurationSeconds != tc.wantSec {
				t.Errorf("duration = %d, want %d", rt.EstimatedRouteDurationSeconds, tc.wantSec)
			}
		})
	}
}

func TestRefreshedStateChangesRoutes(t *testing.T) {
	reg, err := registry.Load("../registry/testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	atom := registry.IBCDenom("transfer/channel-3/uatom")
	req := Request{AmountIn: "5", SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: atom, DestAssetChainID: "cosmoshub-devnet-1", DestAssetDenom: "uatom"}
	if _, err := Build(reg, Config{}).Find(req); err != nil {
		t.Fatal(err)
	}
	closed, err := reg.Refresh(t.Context(), fakeSource{chans: map[string][]registry.ChannelState{"initia-devnet-1": {{Port: "transfer", ID: "channel-3", CounterpartyID: "channel-0", State: "STATE_CLOSED"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(closed, Config{}).Find(req); reason(err) != ReasonNoRoute {
		t.Fatalf("route over a closed channel: %v", err)
	}
	fin, err := reg.Refresh(t.Context(), fakeSource{bridges: []registry.BridgeInfo{{ID: 1, FinalizationPeriod: 90 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := Build(fin, Config{}).Find(Request{AmountIn: "5", SourceAssetChainID: "minievm-devnet-1", SourceAssetDenom: registry.L2Denom(1, "uinit"),
		DestAssetChainID: "initia-devnet-1", DestAssetDenom: "uinit", IsOPWithdraw: true})
	if err != nil {
		t.Fatal(err)
	}
	if rt.EstimatedRouteDurationSeconds != 90 {
		t.Errorf("withdrawal duration %d, want the bridge's 90 s finalization period", rt.EstimatedRouteDurationSeconds)
	}
	// A bridge that finalizes at once (the devnet's) is a known zero, not an unknown period.
	now, err := reg.Refresh(t.Context(), fakeSource{bridges: []registry.BridgeInfo{{ID: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	rt, err = Build(now, Config{}).Find(Request{AmountIn: "5", SourceAssetChainID: "minievm-devnet-1", SourceAssetDenom: registry.L2Denom(1, "uinit"),
		DestAssetChainID: "initia-devnet-1", DestAssetDenom: "uinit", IsOPWithdraw: true})
	if err != nil {
		t.Fatal(err)
	}
	if rt.EstimatedRouteDurationSeconds != 0 || len(rt.ExtraInfos) != 1 || !strings.Contains(rt.ExtraInfos[0], "at once") {
		t.Errorf("withdrawal over a zero finalization period: %d s, %q", rt.EstimatedRouteDurationSeconds, rt.ExtraInfos)
	}
}

type fakeSource struct {
	chans   map[string][]registry.ChannelState
	bridges []registry.BridgeInfo
}

func (f fakeSource) Bridges(context.Context, *registry.Chain) ([]registry.BridgeInfo, error) {
	return f.bridges, nil
}
func (f fakeSource) TokenPairs(context.Context, *registry.Chain, uint64) ([]registry.TokenPair, error) {
	return nil, nil
}
func (f fakeSource) Channels(_ context.Context, c *registry.Chain) ([]registry.ChannelState, error) {
	return f.chans[c.ID], nil
}

// TestOffersOnlyBuildableHops pins what the engine leaves out until msgs can build it (swaps,
// whatever allow_swaps says) and what it offers: LayerZero sends from the EVM chain and from
// the Move L1 (msgs builds its MsgExecute).
func TestOffersOnlyBuildableHops(t *testing.T) {
	reg, err := registry.Load("../registry/testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	g := Build(reg, Config{})
	usdtEth, usdtL1 := "0x5FbDB2315678afecb367f032d93F642f64180aa3", ""
	for _, a := range reg.Chain("initia-devnet-1").Assets {
		if a.Symbol == "USDT" {
			usdtL1 = a.Denom
		}
	}
	for _, tc := range []struct {
		name       string
		req        Request
		wantReason string
	}{
		{"layer_zero_from_evm", Request{SourceAssetChainID: "31337", SourceAssetDenom: usdtEth, DestAssetChainID: "initia-devnet-1", DestAssetDenom: usdtL1}, ""},
		{"layer_zero_from_move_l1", Request{SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: usdtL1, DestAssetChainID: "31337", DestAssetDenom: usdtEth}, ""},
		{"swap_asked_for", Request{AllowSwaps: ptr(true), SourceAssetChainID: "initia-devnet-1", SourceAssetDenom: "uinit", DestAssetChainID: "cosmoshub-devnet-1", DestAssetDenom: "uatom"}, ReasonNoRoute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.AmountIn = "1000"
			tc.req.AllowMultiTx = ptr(true)
			rt, err := g.Find(tc.req)
			if reason(err) != tc.wantReason {
				t.Fatalf("err = %v, want reason %q", err, tc.wantReason)
			}
			if rt != nil && rt.DoesSwap {
				t.Errorf("route swaps: %+v", rt)
			}
		})
	}
}

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{"1", ""}, {"115792089237316195423570985008687907853269984665640564039457584007913129639935", ""},
		{"115792089237316195423570985008687907853269984665640564039457584007913129639936", ReasonAmountTooHigh},
		{"0", ReasonAmountTooLow}, {"000", ReasonAmountTooLow}, {"-1", ReasonAmountTooLow}, {"", ReasonMissingField},
		{"1.0", ReasonInvalidAmount}, {"1e6", ReasonInvalidAmount}, {" 1", ReasonInvalidAmount}, {"+1", ReasonInvalidAmount}, {"--1", ReasonInvalidAmount},
	} {
		_, err := ParseAmount("amount_in", tc.in)
		got := ""
		if err != nil {
			got = err.Reason
		}
		if got != tc.reason {
			t.Errorf("ParseAmount(%q) reason %q, want %q", tc.in, got, tc.reason)
		}
	}
}

// TestSyntheticRoutes routes over the benchmark's generated network: every spoke-to-spoke
// voucher the generator placed must be reachable from its home spoke in one transaction,
// forwarded over the hub, amount preserved.
func TestSyntheticRoutes(t *testing.T) {
	reg, err := synthnet.Registry(100, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range reg.Chains {
		n += len(c.Assets)
	}
	if len(reg.Chains) != 100 || n < 2000 {
		t.Fatalf("%d chains, %d assets", len(reg.Chains), n)
	}
	g := Build(reg, Config{})
	checked := 0
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			// Two-hop vouchers only: a spoke's token forwarded over the hub to this spoke.
			if strings.Count(a.Path, "/") != 4 || checked >= 50 {
				continue
			}
			checked++
			rt, err := g.Find(Request{AmountIn: "7", SourceAssetChainID: a.OriginChainID, SourceAssetDenom: a.OriginDenom,
				DestAssetChainID: c.ID, DestAssetDenom: a.Denom})
			if err != nil {
				t.Fatalf("%s on %s from %s: %v", a.Denom, c.ID, a.OriginChainID, err)
			}
			want := []string{a.OriginChainID, "hub-1", c.ID}
			if rt.TxsRequired != 1 || len(rt.Operations) != 2 || !slices.Equal(rt.ChainIDs, want) || rt.AmountOut != "7" ||
				rt.Operations[0].Transfer == nil || rt.Operations[1].Transfer == nil || rt.Operations[1].Transfer.DenomOut != a.Denom {
				t.Fatalf("route to %s on %s: txs=%d chains=%v out=%s ops=%+v; want one forwarded tx over %v",
					a.Denom, c.ID, rt.TxsRequired, rt.ChainIDs, rt.AmountOut, rt.Operations, want)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("the generator placed only %d two-hop vouchers; want at least 50 to route", checked)
	}
}

func BenchmarkRoute(b *testing.B) {
	reg, err := synthnet.Registry(100, 2000, 1)
	if err != nil {
		b.Fatal(err)
	}
	g := Build(reg, Config{})
	var reqs []Request
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			if a.Trace != "" && a.OriginChainID != "" {
				reqs = append(reqs, Request{AmountIn: "1000", SourceAssetChainID: a.OriginChainID, SourceAssetDenom: a.OriginDenom, DestAssetChainID: c.ID, DestAssetDenom: a.Denom})
			}
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := g.Find(reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRanking pins the tie-break order: amount out, then transactions, then seconds, then hops.
func TestRanking(t *testing.T) {
	mk := func(amount uint64, txs, secs, hops, seq int) *label {
		return &label{amount: uint256.NewInt(amount), value: uint256.NewInt(amount), txs: txs, secs: secs, hops: hops, seq: seq}
	}
	for _, tc := range []struct {
		name string
		a, b *label
	}{
		{"more_out_wins_over_fewer_txs", mk(101, 3, 900, 5, 9), mk(100, 1, 10, 1, 0)},
		{"fewer_txs_win_over_faster", mk(100, 1, 900, 5, 9), mk(100, 2, 10, 1, 0)},
		{"faster_wins_over_fewer_hops", mk(100, 1, 30, 5, 9), mk(100, 1, 31, 1, 0)},
		{"fewer_hops", mk(100, 1, 30, 1, 9), mk(100, 1, 30, 2, 0)},
		{"earlier_found", mk(100, 1, 30, 1, 0), mk(100, 1, 30, 1, 1)},
	} {
		if !better(tc.a, tc.b) || better(tc.b, tc.a) {
			t.Errorf("%s: ranking wrong", tc.name)
		}
	}
}

// TestForwardingNodeSharedBySources: when two chains can both put the same unlisted voucher
// on a packet-forwarding hub (the token's home chain sending it there, and another chain
// unwinding its two-hop voucher to it), both must reach the hub's in-between node, whichever
// of them the graph visits first.
func TestForwardingNodeSharedBySources(t *testing.T) {
	ch := func(id, peer, peerID string) registry.Channel {
		return registry.Channel{Port: "transfer", ID: id, CounterpartyChainID: peer, CounterpartyPort: "transfer", CounterpartyID: peerID}
	}
	viaHub := func(hubToDst string) string { return "transfer/channel-0/transfer/" + hubToDst + "/ux" }
	// Y is listed first, so the hub's node for X's token is first met from Y's voucher.
	y := &registry.Chain{Name: "y", ID: "y-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "y", PFM: true, Memo: true,
		Channels: []registry.Channel{ch("channel-0", "h-1", "channel-1")},
		Assets:   []*registry.Asset{{Denom: registry.IBCDenom(viaHub("channel-0")), Path: viaHub("channel-0")}}}
	x := &registry.Chain{Name: "x", ID: "x-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "x", PFM: true, Memo: true,
		Channels: []registry.Channel{ch("channel-0", "h-1", "channel-0")},
		Assets:   []*registry.Asset{{Denom: "ux"}}}
	z := &registry.Chain{Name: "z", ID: "z-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "z", PFM: true, Memo: true,
		Channels: []registry.Channel{ch("channel-0", "h-1", "channel-2")},
		Assets:   []*registry.Asset{{Denom: registry.IBCDenom(viaHub("channel-0")), Path: viaHub("channel-0")}}}
	h := &registry.Chain{Name: "h", ID: "h-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "h", PFM: true, Memo: true,
		Channels: []registry.Channel{ch("channel-0", "x-1", "channel-0"), ch("channel-1", "y-1", "channel-0"), ch("channel-2", "z-1", "channel-0")}}
	reg, err := registry.New([]*registry.Chain{y, x, z, h})
	if err != nil {
		t.Fatal(err)
	}
	g := Build(reg, Config{})
	voucher := registry.IBCDenom(viaHub("channel-0"))
	// The hub's in-between voucher is passed through, never offered as a destination.
	reach, err := g.Reachable("x-1", "ux", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range reach {
		if a.ChainID == "h-1" {
			t.Errorf("reachable lists the unlisted in-between voucher %s on h-1", a.Denom)
		}
	}
	if len(reach) != 2 {
		t.Errorf("reachable from ux on x-1: %d assets, want the vouchers listed on y-1 and z-1", len(reach))
	}
	for _, tc := range []struct{ name, src, srcDenom, dst, dstDenom string }{
		{"home chain through the hub", "x-1", "ux", "z-1", voucher},
		{"voucher through the hub", "y-1", voucher, "z-1", voucher},
		{"voucher unwound home through the hub", "y-1", voucher, "x-1", "ux"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := g.Find(Request{AmountIn: "100", SourceAssetChainID: tc.src, SourceAssetDenom: tc.srcDenom,
				DestAssetChainID: tc.dst, DestAssetDenom: tc.dstDenom})
			if err != nil {
				t.Fatalf("no route: %v", err)
			}
			if rt.TxsRequired != 1 || len(rt.ChainIDs) != 3 || rt.ChainIDs[1] != "h-1" {
				t.Errorf("route %v in %d txs, want one forwarded tx through h-1", rt.ChainIDs, rt.TxsRequired)
			}
		})
	}
}
