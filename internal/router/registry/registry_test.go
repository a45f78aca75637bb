package registry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDenomFormulas(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{IBCDenom("transfer/channel-3/uusdc"), "ibc/6490A7EAB61059BFC1CDDEB05917DD70BDF3A611654162A1A47DB930D40D8AF4"},
		{IBCDenom("transfer/channel-0/transfer/channel-3/uusdc"), "ibc/AA4E7DF065DC4D4B29B8662A919295F525B19251FB2618C41C0DED3BD1128FEE"},
		{IBCDenom("uinit"), "uinit"},
		{L2Denom(16, "uinit"), "l2/23c8396041db74441f4268d0c7e0533177dc3e028a47a8e584318f2d0c46fbe9"},
		{L2Denom(12, "uinit"), "l2/2b2d36f666e98b9eecf70d6ec24b882b79f2c8e2af73f54f97b8b670dbb87605"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

func TestSplitPath(t *testing.T) {
	for _, tc := range []struct{ in, trace, base string }{
		{"uatom", "", "uatom"},
		{"transfer/channel-0/uatom", "transfer/channel-0", "uatom"},
		{"transfer/channel-0/transfer/channel-3/uatom", "transfer/channel-0/transfer/channel-3", "uatom"},
		{"transfer/channel-0/l2/abc", "transfer/channel-0", "l2/abc"},
		{"transfer/channel-0/factory/init1x/foo", "transfer/channel-0", "factory/init1x/foo"},
		{"transfer/notachannel/x", "", "transfer/notachannel/x"},
		{"transfer/channel-0", "", "transfer/channel-0"},
	} {
		tr, b := SplitPath(tc.in)
		if tr != tc.trace || b != tc.base {
			t.Errorf("SplitPath(%q) = %q, %q; want %q, %q", tc.in, tr, b, tc.trace, tc.base)
		}
	}
	if got := ReceivedPath("transfer/channel-3/uatom", "transfer", "channel-3", "transfer", "channel-0"); got != "uatom" {
		t.Errorf("unwind: %s", got)
	}
	if got := ReceivedPath("uinit", "transfer", "channel-0", "transfer", "channel-9"); got != "transfer/channel-9/uinit" {
		t.Errorf("wrap: %s", got)
	}
}

func TestLoadDevnet(t *testing.T) {
	r, err := Load("testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Chains) != 6 {
		t.Fatalf("chains = %d", len(r.Chains))
	}
	l1 := r.Chain("initia-devnet-1")
	if l1 == nil || !l1.L1 || !l1.PFM {
		t.Fatalf("L1 = %+v", l1)
	}
	ch, ok := l1.Channel("channel-3")
	if !ok || ch.CounterpartyChainID != "cosmoshub-devnet-1" || ch.CounterpartyID != "channel-0" {
		t.Fatalf("channel-3 = %+v", ch)
	}
	evm := r.Chain("minievm-devnet-1")
	if evm.BridgeID != 1 || evm.MinitiaType != "minievm" || evm.EVMChainID != "2001" {
		t.Fatalf("minievm = %+v", evm)
	}
	init := evm.Asset(L2Denom(1, "uinit"))
	if init == nil || init.OP == nil || init.OP.L1Denom != "uinit" {
		t.Fatalf("l2 INIT = %+v", init)
	}
	atom := r.Chain("miniwasm-devnet-1").Asset(IBCDenom("transfer/channel-0/transfer/channel-3/uatom"))
	if atom == nil || atom.OriginChainID != "cosmoshub-devnet-1" || atom.OriginDenom != "uatom" || atom.Trace != "transfer/channel-0/transfer/channel-3" {
		t.Fatalf("atom on miniwasm = %+v", atom)
	}
	eth := r.Chain("31337")
	if eth == nil || eth.Type != ChainTypeEVM || eth.LZEndpointID != 40161 {
		t.Fatalf("eth = %+v", eth)
	}
	if u := eth.Asset("0x5fbdb2315678afecb367f032d93f642f64180aa3"); u == nil || u.LZ == nil || !u.LZ.NeedsApproval || u.LZ.PeerChainID != "initia-devnet-1" {
		t.Fatalf("usdt = %+v", u)
	}
}

type fakeSource struct {
	bridges []BridgeInfo
	pairs   map[uint64][]TokenPair
	chans   map[string][]ChannelState
	fail    string
}

func (f fakeSource) Bridges(ctx context.Context, l1 *Chain) ([]BridgeInfo, error) { return f.bridges, nil }
func (f fakeSource) TokenPairs(ctx context.Context, l1 *Chain, id uint64) ([]TokenPair, error) {
	return f.pairs[id], nil
}
func (f fakeSource) Channels(ctx context.Context, c *Chain) ([]ChannelState, error) {
	if c.ID == f.fail {
		return nil, errors.New("down")
	}
	return f.chans[c.ID], nil
}

func TestRefresh(t *testing.T) {
	r, err := Load("testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	src := fakeSource{
		bridges: []BridgeInfo{{ID: 2, FinalizationPeriod: time.Hour}},
		pairs: map[uint64][]TokenPair{2: {
			{L1Denom: "uinit", L2Denom: L2Denom(2, "uinit")},
			{L1Denom: IBCDenom("transfer/channel-3/uatom"), L2Denom: L2Denom(2, IBCDenom("transfer/channel-3/uatom"))},
			{L1Denom: "ubad", L2Denom: "l2/wrong"},
		}},
		chans: map[string][]ChannelState{"initia-devnet-1": {{Port: "transfer", ID: "channel-3", CounterpartyPort: "transfer", CounterpartyID: "channel-0", State: "STATE_CLOSED"}}},
		fail:  "cosmoshub-devnet-1",
	}
	live := NewLive(r)
	err = live.Refresh(context.Background(), src)
	if err == nil {
		t.Fatal("want the unreachable chain's error")
	}
	n := live.Current()
	mm := n.Chain("minimove-devnet-1")
	if mm.OPFinalization != time.Hour {
		t.Errorf("finalization = %v", mm.OPFinalization)
	}
	added := mm.Asset(L2Denom(2, IBCDenom("transfer/channel-3/uatom")))
	if added == nil || added.Symbol != "ATOM" || added.OP.BridgeID != 2 {
		t.Errorf("added pair asset = %+v", added)
	}
	if mm.Asset("l2/wrong") != nil {
		t.Error("a pair whose l2 denom does not match the formula was added")
	}
	if ch, _ := n.Chain("initia-devnet-1").Channel("channel-3"); ch.Usable() {
		t.Error("closed channel still usable")
	}
	// The old snapshot is untouched.
	if ch, _ := r.Chain("initia-devnet-1").Channel("channel-3"); !ch.Usable() || r.Chain("minimove-devnet-1").Asset(L2Denom(2, IBCDenom("transfer/channel-3/uatom"))) != nil {
		t.Error("refresh mutated the previous snapshot")
	}
}
