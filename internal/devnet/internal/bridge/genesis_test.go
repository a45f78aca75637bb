package bridge

import (
	"encoding/json"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
)

func TestWireChannelsAndRegistry(t *testing.T) {
	specs := []ChainSpec{
		{ChainID: "initia-devnet-1", Kind: KindL1, Prefix: "init", NativeDenoms: []string{"uinit"}},
		{ChainID: "minievm-devnet-1", Kind: KindMinievm, Prefix: "init", Executor: "init1exec"},
		{ChainID: "noble-devnet-1", Kind: KindExternal, Prefix: "noble", NativeDenoms: []string{"uusdc"}},
		{ChainID: "miniwasm-devnet-1", Kind: KindMiniwasm, Prefix: "init", Executor: "init1exec"},
	}
	n, err := Wire(specs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l1, _ := n.Chain("initia-devnet-1")
	if len(l1.Channels) != 3 || l1.Host == nil || l1.Child != nil {
		t.Fatalf("L1 wiring %+v", l1)
	}
	// every channel end's counterparty points back at it
	for _, c := range n.Chains {
		for _, ch := range c.Channels {
			other, ok := n.Chain(ch.CounterpartyChainID)
			if !ok {
				t.Fatalf("%s: unknown counterparty %s", c.Spec.ChainID, ch.CounterpartyChainID)
			}
			found := false
			for _, oc := range other.Channels {
				if oc.ChannelID == ch.CounterpartyChannelID && oc.CounterpartyChannelID == ch.ChannelID &&
					oc.CounterpartyChainID == c.Spec.ChainID && oc.ConnectionID == ch.CounterpartyConnectionID {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s has no matching end on %s", c.Spec.ChainID, ch.ChannelID, other.Spec.ChainID)
			}
		}
	}
	wasm, _ := n.Chain("miniwasm-devnet-1")
	if wasm.BridgeID != 2 || wasm.Registry.OpBridgeID != "2" || wasm.Channels[0].CounterpartyChannelID != "channel-2" {
		t.Errorf("wasm wiring: bridge %d channel %+v", wasm.BridgeID, wasm.Channels[0])
	}
	noble, _ := n.Chain("noble-devnet-1")
	if noble.Child != nil || noble.BridgeID != 0 || noble.Registry.OpBridgeID != "" {
		t.Error("external chain got a bridge")
	}
	reg := wasm.Registry
	reg.Assets = nil
	meta, _ := json.Marshal(reg)
	want := `{"op_bridge_id":"2","op_denoms":["uinit"],"ibc_channels":[{"chain_id":"initia-devnet-1","port_id":"transfer","channel_id":"channel-0","version":"ics20-1"}],"assets":null}`
	if string(meta) != want || !reg.Hooks {
		t.Errorf("registry metadata %s (hooks %v)", meta, reg.Hooks)
	}
	var op, ibcAsset bool
	for _, a := range wasm.Registry.Assets {
		switch a.Base {
		case "l2/" + denom.L2(2, "uinit")[3:]:
			op = a.Traces[0].Type == "op" && a.Traces[0].Chain.BridgeID == "2"
		case "ibc/" + denom.IBCHash("transfer/channel-0/uinit"):
			ibcAsset = a.Traces[0].Type == "ibc" && a.Traces[0].Counterparty.ChannelID == "channel-2"
		}
	}
	if !op || !ibcAsset {
		t.Errorf("wasm assets %+v", wasm.Registry.Assets)
	}
	var l1usdc bool
	for _, a := range l1.Registry.Assets {
		l1usdc = l1usdc || a.Base == "ibc/"+denom.IBCHash("transfer/channel-1/uusdc")
	}
	if !l1usdc {
		t.Errorf("L1 assets %+v", l1.Registry.Assets)
	}
	rc := n.RelayerConfig(nil)
	if rc.Counterparty[relayer.ChannelEnd{ChainID: "initia-devnet-1", PortID: "transfer", Channel: "channel-1"}] != "noble-devnet-1" || len(rc.Bridges) != 2 {
		t.Errorf("relayer config %+v", rc)
	}
	if _, err := Wire(specs[1:], Options{}); err == nil {
		t.Error("wiring without an L1 accepted")
	}
	if _, err := Wire([]ChainSpec{specs[0], {ChainID: "x-1", Kind: KindMinimove, Prefix: "init"}}, Options{}); err == nil {
		t.Error("rollup without executor accepted")
	}
}
