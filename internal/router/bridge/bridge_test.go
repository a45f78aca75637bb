package bridge

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rollgate/rollgate/internal/router/registry"
)

// TestTable holds the table to what the rest of the router assumes of it: names and kinds
// are each one bridge's, every kind has its bridge, and the watched events are unique.
func TestTable(t *testing.T) {
	names := map[string]bool{}
	for _, b := range All {
		if n := b.Name(); n != "" {
			if names[n] {
				t.Errorf("two bridges named %s", n)
			}
			names[n] = true
			if Named(n) != b || b.Title() == "" || slices.Contains(Known, n) {
				t.Errorf("%s: Named %v, title %q, listed as known-without-edges %v", n, Named(n), b.Title(), slices.Contains(Known, n))
			}
		}
		for _, k := range b.Kinds() {
			if Of(k) != b {
				t.Errorf("kind %d belongs to %v, not %v", k, Of(k), b)
			}
		}
	}
	for k := KindIBC; k < NumKinds; k++ {
		if Of(k) == nil {
			t.Errorf("kind %d has no bridge", k)
		}
	}
	if Named("") != nil || Named("WORMHOLE") != nil || Of(NumKinds) != nil {
		t.Error("Named or Of answers for what no bridge is")
	}
	events, kinds := map[string]bool{}, map[string]bool{}
	starts := 0
	for _, b := range All {
		for _, w := range b.Watch() {
			if events[w.Event] || kinds[w.Kind] || len(w.Key) == 0 {
				t.Errorf("watch %+v: duplicate event or kind, or no key", w)
			}
			events[w.Event], kinds[w.Kind] = true, true
			if w.Starts {
				starts++
			}
		}
	}
	if starts != 4 { // send_packet, initiate_token_deposit, initiate_token_withdrawal, the OFT's send
		t.Errorf("%d watched events start a leg, want 4", starts)
	}
}

// TestRenderReadsBack: what a bridge renders, Operation.Hop reads back as the same hop, it
// is the operation's one variant, and WithDenoms changes only the denoms.
func TestRenderReadsBack(t *testing.T) {
	l1 := &registry.Chain{Name: "l1", ID: "l1-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", L1: true, PFM: true, Memo: true,
		LZEndpointID: 30001, Assets: []*registry.Asset{{Denom: "uinit"}, {Denom: "uusdt", LZ: &registry.LZInfo{OFT: "0xaa", PeerChainID: "eth-1", PeerDenom: "0xbb"}}}}
	l2 := &registry.Chain{Name: "l2", ID: "l2-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", BridgeID: 1,
		Assets: []*registry.Asset{{Denom: "l2/x", OP: &registry.OPTrace{BridgeID: 1, L1ChainID: "l1-1", L1Denom: "uinit"}}}}
	eth := &registry.Chain{Name: "eth", ID: "eth-1", Type: registry.ChainTypeEVM, LZEndpointID: 30101,
		Assets: []*registry.Asset{{Denom: "0xbb", TokenContract: "0xbb", LZ: &registry.LZInfo{OFT: "0xbb", PeerChainID: "l1-1", PeerDenom: "uusdt"}}}}
	reg, err := registry.New([]*registry.Chain{l1, l2, eth})
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Reg: reg, Est: Estimates{LayerZeroFee: map[string]string{"eth-1": "7"}}}
	for _, tc := range []struct {
		name string
		b    Bridge
		v    Via
		h    Hop
	}{
		{"bank", Bank, Via{}, Hop{FromChainID: "l1-1", ToChainID: "l1-1", DenomIn: "uinit", DenomOut: "uinit"}},
		{"ibc", IBC, Via{Kind: KindIBC, Port: "transfer", Channel: "channel-0"}, Hop{FromChainID: "l1-1", ToChainID: "l2-1", DenomIn: "uinit", DenomOut: "ibc/AB"}},
		{"deposit", OPInit, Via{Kind: KindDeposit, BridgeID: 1}, Hop{FromChainID: "l1-1", ToChainID: "l2-1", DenomIn: "uinit", DenomOut: "l2/x"}},
		{"withdrawal", OPInit, Via{Kind: KindWithdraw, BridgeID: 1, Seconds: 60}, Hop{FromChainID: "l2-1", ToChainID: "l1-1", DenomIn: "l2/x", DenomOut: "uinit"}},
		{"layerzero", LayerZero, Via{Kind: KindLayerZero, OFT: "0xbb"}, Hop{FromChainID: "eth-1", ToChainID: "l1-1", DenomIn: "0xbb", DenomOut: "uusdt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.h.AmountIn, tc.h.AmountOut, tc.h.TxIndex = "5", "5", 1
			r := tc.b.Render(env, tc.v, tc.h)
			got := r.Op.Hop()
			want := tc.h
			want.Bridge, want.Label, want.Via = tc.b, got.Label, got.Via
			if got != want || r.Op.Variants() != 1 || got.Label == "" {
				t.Fatalf("rendered %+v reads back as %+v (%d variants), want %+v", r.Op, got, r.Op.Variants(), want)
			}
			if _, err := json.Marshal(r.Op); err != nil {
				t.Fatal(err)
			}
			moved := r.Op.WithDenoms("in2", "out2").Hop()
			if tc.b != Bank && (moved.DenomIn != "in2" || moved.DenomOut != "out2" || moved.FromChainID != got.FromChainID) {
				t.Errorf("WithDenoms: %+v", moved)
			}
			if kept := r.Op.WithDenoms("", "").Hop(); kept != got {
				t.Errorf("WithDenoms with nothing changed the hop: %+v", kept)
			}
			if got := r.Op.Hop(); got != want {
				t.Errorf("WithDenoms changed the operation it was called on: %+v", got)
			}
		})
	}
	// The withdrawal says it is claimed separately, the LayerZero send charges its fee.
	w := OPInit.Render(env, Via{Kind: KindWithdraw, BridgeID: 1, Seconds: 60}, Hop{FromChainID: "l2-1", ToChainID: "l1-1", DenomIn: "l2/x", DenomOut: "uinit"})
	if len(w.Infos) != 1 || len(w.Warns) != 1 || !Withdrawal(reg, w.Op) {
		t.Errorf("withdrawal: %+v", w)
	}
	z := LayerZero.Render(env, Via{Kind: KindLayerZero, OFT: "0xbb"}, Hop{FromChainID: "eth-1", ToChainID: "l1-1", DenomIn: "0xbb", DenomOut: "uusdt"})
	if len(z.Fees) != 1 || z.Fees[0].Amount != "7" || z.Op.LayerZeroTransfer.DestinationEndpointID != 30001 {
		t.Errorf("layerzero: %+v", z)
	}
}
