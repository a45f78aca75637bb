package bridge

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/holiman/uint256"

	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// TestLayerZeroBuildPerVM: an OFT send is built in its source VM's form — an evm_tx on an EVM
// chain, a Move MsgExecute of send_withdraw with BCS arguments on the L1, MsgCalls (approve,
// then send with the fee as value) on a minievm rollup — and a chain of no such kind gets no
// edge and an UNSUPPORTED refusal.
func TestLayerZeroBuildPerVM(t *testing.T) {
	l1 := &registry.Chain{Name: "l1", ID: "l1-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", L1: true, LZEndpointID: 30001,
		Assets: []*registry.Asset{{Denom: "uusdt", LZ: &registry.LZInfo{OFT: "0xaa", PeerChainID: "eth-1", PeerDenom: "0xbb"}}}}
	evmRollup := &registry.Chain{Name: "mevm", ID: "mevm-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", MinitiaType: "minievm", BridgeID: 1, LZEndpointID: 30002,
		Assets: []*registry.Asset{{Denom: "evm/CC", TokenContract: "0x00000000000000000000000000000000000000cc",
			LZ: &registry.LZInfo{OFT: "0x00000000000000000000000000000000000000dd", PeerChainID: "eth-1", PeerDenom: "0xbb", NeedsApproval: true}}}}
	hub := &registry.Chain{Name: "hub", ID: "hub-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "cosmos", LZEndpointID: 30003,
		Assets: []*registry.Asset{{Denom: "uusdt", LZ: &registry.LZInfo{OFT: "0xee", PeerChainID: "eth-1", PeerDenom: "0xbb"}}}}
	eth := &registry.Chain{Name: "eth", ID: "eth-1", Type: registry.ChainTypeEVM, LZEndpointID: 30101,
		Assets: []*registry.Asset{{Denom: "0xbb", TokenContract: "0xbb", LZ: &registry.LZInfo{OFT: "0xbb", PeerChainID: "l1-1", PeerDenom: "uusdt"}}}}
	reg, err := registry.New([]*registry.Chain{l1, evmRollup, hub, eth})
	if err != nil {
		t.Fatal(err)
	}
	user := "init1qyqszqgpqyqszqgpqyqszqgpqyqszqgpu9pdx7"
	leg := func(from *registry.Chain, oft, denom string) Leg {
		op := Operation{LayerZeroTransfer: &LayerZeroTransfer{FromChainID: from.ID, ToChainID: "eth-1", DenomIn: denom, DenomOut: "0xbb",
			SourceOFTContractAddress: oft, DestinationEndpointID: 30101}}
		return Leg{Reg: reg, Ops: []Operation{op}, RouteLen: 1, Sender: user, Receivers: []string{"0x00000000000000000000000000000000000000e4"},
			Amount: uint256.NewInt(1000), MinAmount: uint256.NewInt(990), Fee: "77"}
	}

	m, err := LayerZero.Build(leg(l1, "0xaa", "uusdt"))
	if err != nil {
		t.Fatal(err)
	}
	x, ok := m.Cosmos.(*movev1.MsgExecute)
	if !ok || m.TypeURL != TypeMsgExecute || x.ModuleAddress != "0xaa" || x.ModuleName != "oft" || x.FunctionName != "send_withdraw" || len(x.Args) != 9 ||
		binary.LittleEndian.Uint32(x.Args[0]) != 30101 || x.Args[1][0] != 32 || x.Args[1][32] != 0xe4 ||
		binary.LittleEndian.Uint64(x.Args[2]) != 1000 || binary.LittleEndian.Uint64(x.Args[3]) != 990 ||
		binary.LittleEndian.Uint64(x.Args[7]) != 77 || binary.LittleEndian.Uint64(x.Args[8]) != 0 {
		t.Fatalf("move send %+v", m)
	}

	m, err = LayerZero.Build(leg(evmRollup, "0x00000000000000000000000000000000000000dd", "evm/CC"))
	if err != nil {
		t.Fatal(err)
	}
	approve, ok1 := m.Cosmos.(*evmv1.MsgCall)
	if !ok1 || len(m.Then) != 1 || m.TypeURL != TypeMsgCall {
		t.Fatalf("minievm send %+v", m)
	}
	send := m.Then[0].Cosmos.(*evmv1.MsgCall)
	if !strings.HasPrefix(approve.Input, "0x095ea7b3") || !strings.EqualFold(approve.ContractAddr, "0x00000000000000000000000000000000000000cc") ||
		!strings.HasPrefix(send.Input, "0xc7c7f5b3") || send.Value != "77" || !strings.EqualFold(send.ContractAddr, "0x00000000000000000000000000000000000000dd") {
		t.Fatalf("minievm calls %+v then %+v", approve, send)
	}

	var be *Error
	if _, err := LayerZero.Build(leg(hub, "0xee", "uusdt")); !errors.As(err, &be) || !be.Unsupported {
		t.Fatalf("hub send: %v", err)
	}
	if lzSender(hub) != lzNone || lzSender(l1) != lzMove || lzSender(eth) != lzEVMChain || lzSender(evmRollup) != lzMiniEVM {
		t.Fatal("send kinds")
	}
}
