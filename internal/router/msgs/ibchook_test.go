package msgs

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"

	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// TestIBCHookWrapMemo builds the devnet routes that arrive by IBC into minievm's wrapped INIT
// and checks the packet as minievm's ibc-hooks reads it: the last hop's receiver is the
// wrapper, equal to the memo's contract_addr, and the call is toLocal(recipient, the coin as
// it arrives, 6); a forwarded hop carries that memo as the innermost forward's next.
func TestIBCHookWrapMemo(t *testing.T) {
	reg := devnetRegistry(t)
	g := route.Build(reg, route.Config{})
	const evmChain = "minievm-devnet-1"
	var wrapped *registry.Asset
	for _, a := range reg.Chain(evmChain).Assets {
		if a.Wrap != nil {
			wrapped = a
		}
	}
	if wrapped == nil {
		t.Fatal("no wrapper token on " + evmChain)
	}
	addr := func(n byte) string {
		s, _ := bech32.EncodeFromBase256("init", bytes.Repeat([]byte{n}, 20))
		return s
	}
	cases := []struct {
		name, chain, denom string
		hops               int // ICS-20 hops in the one transaction
	}{
		{"l1_voucher", "initia-devnet-1", registry.IBCDenom("transfer/channel-0/" + wrapped.Wrap.RemoteDenom), 1},
		{"rollup_l2_via_l1", evmChain, wrapped.Wrap.RemoteDenom, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := g.Find(route.Request{AmountIn: "2000000", SourceAssetChainID: tc.chain, SourceAssetDenom: tc.denom,
				DestAssetChainID: evmChain, DestAssetDenom: wrapped.Denom})
			if err != nil {
				t.Fatal(err)
			}
			if len(rt.Operations) != tc.hops {
				t.Fatalf("%d operations, want %d", len(rt.Operations), tc.hops)
			}
			addrs := make([]string, len(rt.RequiredChainAddresses))
			for i := range addrs {
				addrs[i] = addr(byte(i + 1))
			}
			recipient := addrs[len(addrs)-1]
			resp, err := Builder{Reg: reg}.Build(Request{SourceAssetChainID: tc.chain, SourceAssetDenom: tc.denom, DestAssetChainID: evmChain,
				DestAssetDenom: wrapped.Denom, AmountIn: rt.AmountIn, AmountOut: rt.AmountOut, AddressList: addrs, Operations: rt.Operations})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Txs) != 1 || len(resp.Txs[0].CosmosTx.Msgs) != 1 {
				t.Fatalf("txs %+v", resp.Txs)
			}
			var m transferv1.MsgTransfer
			if err := txcodec.UnmarshalAminoInto([]byte(resp.Txs[0].CosmosTx.Msgs[0].Msg), &m); err != nil {
				t.Fatal(err)
			}
			// Unwrap the forwards down to the last hop's receiver and memo.
			receiver, memo := m.Receiver, json.RawMessage(m.Memo)
			for i := 1; i < tc.hops; i++ {
				if receiver != "pfm" {
					t.Fatalf("hop %d receiver %s", i, receiver)
				}
				var f struct {
					Forward struct {
						Receiver string          `json:"receiver"`
						Next     json.RawMessage `json:"next"`
					} `json:"forward"`
				}
				if err := json.Unmarshal(memo, &f); err != nil {
					t.Fatalf("memo %s: %v", memo, err)
				}
				receiver, memo = f.Forward.Receiver, f.Forward.Next
			}
			wrapper := common.HexToAddress(wrapped.Wrap.Contract).Hex()
			recv20, err := Address20(recipient)
			if err != nil {
				t.Fatal(err)
			}
			input, err := wrapABI.Pack("toLocal", recv20, wrapped.Wrap.RemoteDenom, uint8(6))
			if err != nil {
				t.Fatal(err)
			}
			want := `{"evm":{"message":{"contract_addr":"` + wrapper + `","input":"0x` + hex.EncodeToString(input) + `","value":"0","access_list":[]}}}`
			if receiver != wrapper || string(memo) != want {
				t.Errorf("last hop receiver %s memo\n %s\nwant receiver %s memo\n %s", receiver, memo, wrapper, want)
			}
			if !strings.HasPrefix(hex.EncodeToString(input), "701dcf21") {
				t.Errorf("toLocal selector %x", input[:4])
			}
		})
	}
	// A recipient the wrapper cannot pay (32 bytes) is a clear 400.
	rt, err := g.Find(route.Request{AmountIn: "2000000", SourceAssetChainID: cases[0].chain, SourceAssetDenom: cases[0].denom,
		DestAssetChainID: evmChain, DestAssetDenom: wrapped.Denom})
	if err != nil {
		t.Fatal(err)
	}
	long, _ := bech32.EncodeFromBase256("init", bytes.Repeat([]byte{9}, 32))
	_, err = Builder{Reg: reg}.Build(Request{SourceAssetChainID: cases[0].chain, SourceAssetDenom: cases[0].denom, DestAssetChainID: evmChain,
		DestAssetDenom: wrapped.Denom, AmountIn: rt.AmountIn, AmountOut: rt.AmountOut, AddressList: []string{addr(1), long}, Operations: rt.Operations})
	if e := (*route.Error)(nil); !errors.As(err, &e) || e.Reason != ReasonInvalidAddress {
		t.Errorf("32-byte recipient: %v", err)
	}
}
