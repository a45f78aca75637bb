package msgs

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/cosmos/btcutil/bech32"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

func TestAminoRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  proto.Message
		want string
	}{
		{"MsgTransfer", &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-3", Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "1000000"},
			Sender: "init1a", Receiver: "osmo1b", TimeoutHeight: &clientv1.Height{}, TimeoutTimestamp: 1688663426558649000, Memo: `{"forward":{}}`},
			`{"memo":"{\"forward\":{}}","receiver":"osmo1b","sender":"init1a","source_channel":"channel-3","source_port":"transfer","timeout_height":{},"timeout_timestamp":"1688663426558649000","token":{"amount":"1000000","denom":"uusdc"}}`},
		{"MsgTransfer_height", &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "u", Amount: "1"},
			Sender: "s", Receiver: "r", TimeoutHeight: &clientv1.Height{RevisionNumber: 1, RevisionHeight: 99}},
			`{"receiver":"r","sender":"s","source_channel":"channel-0","source_port":"transfer","timeout_height":{"revision_height":"99","revision_number":"1"},"token":{"amount":"1","denom":"u"}}`},
		{"MsgSend", &bankv1beta1.MsgSend{FromAddress: "init1a", ToAddress: "init1b", Amount: []*basev1beta1.Coin{{Denom: "uinit", Amount: "5"}, {Denom: "uatom", Amount: "6"}}},
			`{"amount":[{"amount":"5","denom":"uinit"},{"amount":"6","denom":"uatom"}],"from_address":"init1a","to_address":"init1b"}`},
		{"MsgInitiateTokenDeposit", &ophostv1.MsgInitiateTokenDeposit{Sender: "init1a", BridgeId: 16, To: "init1b", Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "1000000"}, Data: []byte{0, 1, 2, 0xff}},
			`{"amount":{"amount":"1000000","denom":"uinit"},"bridge_id":"16","data":"AAEC/w==","sender":"init1a","to":"init1b"}`},
		{"MsgInitiateTokenDeposit_no_hook", &ophostv1.MsgInitiateTokenDeposit{Sender: "init1a", BridgeId: 1, To: "init1b", Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "1"}},
			`{"amount":{"amount":"1","denom":"uinit"},"bridge_id":"1","sender":"init1a","to":"init1b"}`},
		{"MsgInitiateTokenWithdrawal", &opchildv1.MsgInitiateTokenWithdrawal{Sender: "init1a", To: "init1b", Amount: &basev1beta1.Coin{Denom: "l2/ab", Amount: "7"}},
			`{"amount":{"amount":"7","denom":"l2/ab"},"sender":"init1a","to":"init1b"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := txcodec.MarshalAminoValue(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("amino\n got %s\nwant %s", got, tc.want)
			}
			// amino → real protobuf message → wire bytes → message → amino: identical.
			decoded := tc.msg.ProtoReflect().New().Interface()
			if err := txcodec.UnmarshalAminoInto(got, decoded); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(decoded, tc.msg) {
				t.Fatalf("decoded %v, want %v", decoded, tc.msg)
			}
			wire, err := proto.Marshal(decoded)
			if err != nil {
				t.Fatal(err)
			}
			wantWire, _ := proto.Marshal(tc.msg)
			if !bytes.Equal(wire, wantWire) {
				t.Fatal("wire bytes differ")
			}
			back := tc.msg.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(wire, back); err != nil {
				t.Fatal(err)
			}
			again, err := txcodec.MarshalAminoValue(back)
			if err != nil || string(again) != tc.want {
				t.Fatalf("re-encoded %s (%v)", again, err)
			}
		})
	}
}

func TestValidateAddress(t *testing.T) {
	cosmos := &registry.Chain{ID: "c", Type: registry.ChainTypeCosmos, Bech32Prefix: "init"}
	evm := &registry.Chain{ID: "1", Type: registry.ChainTypeEVM}
	enc := func(p string, n int) string {
		s, _ := bech32.EncodeFromBase256(p, bytes.Repeat([]byte{9}, n))
		return s
	}
	for _, tc := range []struct {
		c    *registry.Chain
		addr string
		ok   bool
	}{
		{cosmos, enc("init", 20), true},
		{cosmos, enc("init", 32), true},
		{cosmos, enc("init", 21), false},
		{cosmos, enc("cosmos", 20), false},
		{cosmos, "init1", false},
		{cosmos, "", false},
		{cosmos, "0x0000000000000000000000000000000000000001", false},
		{evm, "0x0000000000000000000000000000000000000001", true},
		{evm, "0x00000000000000000000000000000000000001", false},
		{evm, "0xZZ00000000000000000000000000000000000001", false},
		{evm, enc("init", 20), false},
	} {
		if err := ValidateAddress(tc.c, tc.addr); (err == nil) != tc.ok {
			t.Errorf("ValidateAddress(%s, %q) = %v, want ok=%v", tc.c.Type, tc.addr, err, tc.ok)
		}
	}
}

func TestSlippage(t *testing.T) {
	for _, tc := range []struct{ amount, slip, want string }{
		{"1000000", "1", "990000"}, {"1000000", "", "990000"}, {"1000000", "0", "1000000"}, {"1000000", "100", "0"},
		{"999", "0.5", "994"}, {"3", "33.3333", "2"},
	} {
		s, err := parseSlippage(tc.slip)
		if err != nil {
			t.Fatal(err)
		}
		if got := applySlippage(uint256.MustFromDecimal(tc.amount), s).Dec(); got != tc.want {
			t.Errorf("%s at %s%% = %s, want %s", tc.amount, tc.slip, got, tc.want)
		}
	}
	for _, bad := range []string{"-1", "100.01", "abc", "1/2", "1e2"} {
		if _, err := parseSlippage(bad); err == nil {
			t.Errorf("slippage %q accepted", bad)
		}
	}
	_ = big.NewInt
}

// TestForwardMemoNesting checks a three-hop transfer becomes one MsgTransfer whose memo nests
// two forwards, with "pfm" as intermediate receiver and the recipient last.
func TestForwardMemoNesting(t *testing.T) {
	mk := func(id string, chans ...registry.Channel) *registry.Chain {
		return &registry.Chain{Name: id, ID: id, Type: registry.ChainTypeCosmos, Bech32Prefix: "init", PFM: true, Memo: true, Channels: chans}
	}
	ch := func(id, to, cp string) registry.Channel {
		return registry.Channel{Port: "transfer", ID: id, CounterpartyChainID: to, CounterpartyPort: "transfer", CounterpartyID: cp}
	}
	p1 := "transfer/channel-0/u"
	p2 := "transfer/channel-0/" + p1
	p3 := "transfer/channel-0/" + p2
	a, b, c, d := mk("a", ch("channel-0", "b", "channel-0")), mk("b", ch("channel-0", "a", "channel-0"), ch("channel-1", "c", "channel-0")),
		mk("c", ch("channel-0", "b", "channel-1"), ch("channel-1", "d", "channel-0")), mk("d", ch("channel-0", "c", "channel-1"))
	a.Assets = []*registry.Asset{{Denom: "u"}}
	d.Assets = []*registry.Asset{{Denom: registry.IBCDenom(p3), Path: p3}}
	reg, err := registry.New([]*registry.Chain{a, b, c, d})
	if err != nil {
		t.Fatal(err)
	}
	tr := func(from, to, chn, in, out string) route.Operation {
		return route.Operation{Transfer: &route.Transfer{Port: "transfer", Channel: chn, FromChainID: from, ToChainID: to, DenomIn: in, DenomOut: out}, AmountIn: "10", AmountOut: "10"}
	}
	ops := []route.Operation{tr("a", "b", "channel-0", "u", registry.IBCDenom(p1)), tr("b", "c", "channel-1", registry.IBCDenom(p1), registry.IBCDenom(p2)),
		tr("c", "d", "channel-1", registry.IBCDenom(p2), registry.IBCDenom(p3))}
	addr := func(n byte) string {
		s, _ := bech32.EncodeFromBase256("init", bytes.Repeat([]byte{n}, 20))
		return s
	}
	resp, err := Builder{Reg: reg}.Build(Request{SourceAssetChainID: "a", SourceAssetDenom: "u", DestAssetChainID: "d", DestAssetDenom: registry.IBCDenom(p3),
		AmountIn: "10", AddressList: []string{addr(1), addr(2), addr(3), addr(4)}, Operations: ops})
	if err != nil {
		t.Fatal(err)
	}
	var m transferv1.MsgTransfer
	if err := txcodec.UnmarshalAminoInto([]byte(resp.Txs[0].CosmosTx.Msgs[0].Msg), &m); err != nil {
		t.Fatal(err)
	}
	var memo struct {
		Forward struct {
			Receiver, Port, Channel, Timeout string
			Next                             struct {
				Forward struct {
					Receiver, Channel string
					Next              json.RawMessage
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(m.Memo), &memo); err != nil {
		t.Fatal(err)
	}
	if m.Receiver != "pfm" || m.SourceChannel != "channel-0" || memo.Forward.Receiver != "pfm" || memo.Forward.Channel != "channel-1" ||
		memo.Forward.Next.Forward.Receiver != addr(4) || memo.Forward.Next.Forward.Channel != "channel-1" || memo.Forward.Next.Forward.Next != nil {
		t.Errorf("msg %+v memo %s", &m, m.Memo)
	}
	if got := resp.Txs[0].OperationsIndices; len(got) != 3 || resp.MinAmountOut != "9" {
		t.Errorf("indices %v min out %s", got, resp.MinAmountOut)
	}
	// Without PFM on the middle chain the same operations in one tx are refused.
	c.PFM = false
	if _, err := (Builder{Reg: reg}).Build(Request{SourceAssetChainID: "a", SourceAssetDenom: "u", DestAssetChainID: "d", DestAssetDenom: registry.IBCDenom(p3),
		AmountIn: "10", AddressList: []string{addr(1), addr(2), addr(3), addr(4)}, Operations: ops}); err == nil {
		t.Error("forward through a chain without PFM accepted")
	}
}

// TestAminoNames checks every message type the router emits is registered under the amino
// name wallets' converters use (cosmjs / InterwovenKit look messages up by it), and that the
// {"type","value"} form decodes by name and by type URL into the same protobuf message and
// re-encodes to the same JSON.
func TestAminoNames(t *testing.T) {
	coin := &basev1beta1.Coin{Denom: "uinit", Amount: "1"}
	for _, tc := range []struct {
		typeURL, name string
		msg           proto.Message
	}{
		{TypeMsgTransfer, "cosmos-sdk/MsgTransfer", &transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: coin,
			Sender: "init1a", Receiver: "init1b", TimeoutHeight: &clientv1.Height{}, TimeoutTimestamp: 5, Memo: `{"forward":{"receiver":"x"}}`}},
		{TypeMsgSend, "cosmos-sdk/MsgSend", &bankv1beta1.MsgSend{FromAddress: "init1a", ToAddress: "init1b", Amount: []*basev1beta1.Coin{coin}}},
		{TypeMsgInitiateTokenDeposit, "ophost/MsgInitiateTokenDeposit", &ophostv1.MsgInitiateTokenDeposit{Sender: "init1a", BridgeId: 2, To: "init1b", Amount: coin, Data: []byte("hook")}},
		{TypeMsgInitiateTokenWithdrawal, "opchild/MsgInitiateTokenWithdrawal", &opchildv1.MsgInitiateTokenWithdrawal{Sender: "init1a", To: "init1b", Amount: coin}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := "/" + string(proto.MessageName(tc.msg)); got != tc.typeURL {
				t.Fatalf("type url %s, constant %s", got, tc.typeURL)
			}
			if name, ok := txcodec.AminoName(tc.msg); !ok || name != tc.name {
				t.Fatalf("amino name %q (%v), want %q", name, ok, tc.name)
			}
			if u, ok := txcodec.TypeURLForAmino(tc.name); !ok || u != tc.typeURL {
				t.Fatalf("type url for %s: %q (%v)", tc.name, u, ok)
			}
			value, err := txcodec.MarshalAminoValue(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			wrapped, err := txcodec.MarshalAmino(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"type":"` + tc.name + `","value":` + string(value) + `}`; string(wrapped) != want {
				t.Fatalf("wrapped\n got %s\nwant %s", wrapped, want)
			}
			for _, in := range []struct{ key, data string }{{tc.name, string(wrapped)}, {tc.name, string(value)}, {tc.typeURL, string(value)}} {
				m, err := txcodec.UnmarshalAmino(in.key, []byte(in.data))
				if err != nil {
					t.Fatalf("%s: %v", in.key, err)
				}
				if !proto.Equal(m, tc.msg) {
					t.Fatalf("%s decoded %v, want %v", in.key, m, tc.msg)
				}
				again, err := txcodec.MarshalAminoValue(m)
				if err != nil || string(again) != string(value) {
					t.Fatalf("%s re-encoded %s (%v)", in.key, again, err)
				}
			}
		})
	}
}
